"""Trax (`trax`), designer David L. Smith: unlimited Trax with the Death Match notation.

`RULESET` is the game contract; `perft` counts legal turn sequences (see games.trax.state).
"""

from games.trax.ruleset import RULESET, THREE_SAME, TraxOptions, TraxRuleset
from games.trax.state import TraxState, perft

__all__ = ["RULESET", "THREE_SAME", "TraxOptions", "TraxRuleset", "TraxState", "perft"]
