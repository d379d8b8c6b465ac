"""`python -m bot.shardhost`: the headless shard host's stable entry point (the code is in `bot.ops.shardhost`)."""

import sys

from bot.ops.shardhost import main

if __name__ == "__main__":
    sys.exit(main())
