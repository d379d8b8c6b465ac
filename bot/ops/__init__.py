"""Process entry points: the command line, the runtime and the headless shard host."""
