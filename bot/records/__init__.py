"""After the fact: the match log, replays, reviews and analysis."""
