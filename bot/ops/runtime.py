"""Process-level tuning for long-running hosts (called by entry points, never at import time)."""

from __future__ import annotations

import gc


def tune_gc() -> None:
    """Fewer, cheaper garbage collections: a host keeps thousands of long-lived match objects, and a
    full collection that walks all of them stalls the event loop (and so the clocks) for tens of ms.
    Objects alive now (imports, settings, resumed matches) are moved out of the collector's sight,
    and the youngest generation is collected less often."""
    gc.collect()
    gc.freeze()
    gen0, gen1, gen2 = gc.get_threshold()
    gc.set_threshold(max(gen0, 50_000), gen1, gen2)
