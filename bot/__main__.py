"""`python -m bot` runs the Discord bot (the same as `dmhost run`)."""

import sys

from bot.ops.cli import main

sys.exit(main(["run"]))
