"""The terminal room: one match hosted on stdin/stdout with the real host core."""
