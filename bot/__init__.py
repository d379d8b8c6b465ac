"""dmhost's host: match services, clocks, persistence, and the terminal and Discord adapters."""
