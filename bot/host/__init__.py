"""The match core: service, turn steps, live match, clocks and house rules. No Discord, no wording."""
