"""`python -m bot` runs the Discord bot (the same as `dmhost run`)."""

import sys

from bot.cli import main

sys.exit(main(["run"]))
