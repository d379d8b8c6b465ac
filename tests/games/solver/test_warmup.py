"""The solver's background warm-up and a player's first request, at the same moment.

A host starts `ensure_compiled()` in a thread at start-up; a practice opponent may ask for a move
while that thread is still importing `games.solver.kernel`. The child process below holds the
warm-up thread inside that import (a gate around the module's loader), so the window is open for as
long as the test needs, on any machine: asking then must neither fail nor see a half-imported module.
"""

from __future__ import annotations

import json

from games.solver import solve
from tests import run_python

GATED_WARM_UP = r"""
import importlib.abc, importlib.machinery, json, random, sys, threading

entered, release = threading.Event(), threading.Event()

class Gate(importlib.abc.MetaPathFinder):
    def find_spec(self, name, path, target=None):
        if name != "games.solver.kernel":
            return None
        spec = importlib.machinery.PathFinder.find_spec(name, path)
        inner = spec.loader.exec_module

        def exec_module(module):
            entered.set()
            release.wait()
            inner(module)

        spec.loader.exec_module = exec_module
        return spec

sys.meta_path.insert(0, Gate())

from games.boxes import RULESET
from games.solver import choose_move, ensure_compiled, kernel_ready

warm_up = threading.Thread(target=ensure_compiled, daemon=True)
warm_up.start()
entered.wait()
try:
    window_open = "games.solver.kernel" in sys.modules
    ready_during_import = kernel_ready()
finally:
    release.set()
state = RULESET.new_game(RULESET.parse_options({"rows": 2, "cols": 3}))
edge = choose_move(state, "perfect", random.Random(1), 30.0)
warm_up.join()
print(json.dumps({"window_open": window_open, "ready_during_import": ready_during_import,
                  "edge": edge, "ready_after": kernel_ready()}))
"""


def test_asking_for_a_move_while_the_warm_up_imports_the_kernel() -> None:
    proc = run_python(["-c", GATED_WARM_UP])
    assert proc.returncode == 0, proc.stderr
    assert "Traceback" not in proc.stderr
    got = json.loads(proc.stdout)
    assert got["window_open"]  # the kernel module was half-imported when we asked
    assert got["ready_during_import"] is False
    assert got["edge"] in solve(2, 3, all_best=True).best  # a perfect move, from the compiled search
    assert got["ready_after"] is True
