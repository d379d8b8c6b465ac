"""Pure game engines for dmhost: rules, notation and states. No I/O frameworks here."""
