"""Persistence: engine and models, matches (event log and snapshots), guild settings, heartbeat."""
