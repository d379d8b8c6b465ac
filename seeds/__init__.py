"""The data the games and the bot are seeded with: rule cards (`rules/GAME.md`, designers credited), move
cards (`rules/moves/GAME.md`) and Pathing's preset layouts (`pathing/layouts.json`). A package of its own
so the wheel carries it; read only through `importlib.resources` (`games/resources.py`), never from the
working directory."""
