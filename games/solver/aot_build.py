"""Build the compiled search ahead of time: `python -m games.solver.aot_build NAME FOLDER` writes the
extension module NAME (see `games.solver.aot`) into FOLDER with numba's `pycc`, for this processor."""

from __future__ import annotations

import importlib
import sys
import warnings
from typing import Any


def build(name: str, folder: str) -> None:
    """Compile `search` and `closure_at` of `games.solver.jit` into the extension module `name`."""
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")  # numba marks pycc as pending deprecation
        pycc: Any = importlib.import_module("numba.pycc")

    from games.solver import jit
    from games.solver.aot import target_cpu

    cpu = target_cpu()
    if cpu == "host":
        _exact_host_features()
    _release_gil()
    cc = pycc.CC(name)
    cc.output_dir = folder
    cc.target_cpu = cpu
    cc.verbose = False
    cc.export("search", "i8(u8, i8, i8, i8, i8)")(jit.search.py_func)
    cc.export("closure_at", "Tuple((i8, u8, i8))(u8, i8)")(jit.closure_at.py_func)
    cc.compile()


def _release_gil() -> None:
    """Have the exported functions release the GIL while they search, as numba's `nogil=True` does,
    so that several Python threads can search at once (`games.solver.kernel`): pycc has no switch for
    it, so its compiler is given flags that ask for it."""
    compiler: Any = importlib.import_module("numba.pycc.compiler")
    base = compiler.Flags

    class _NoGil(base):  # type: ignore[misc, valid-type]
        def __init__(self, *args: Any, **kwargs: Any) -> None:
            super().__init__(*args, **kwargs)
            self.release_gil = True

    compiler.Flags = _NoGil


def _exact_host_features() -> None:
    """Compile for this processor's features as the processor itself reports them, not for its model's
    defaults: numba's ahead-of-time code generator takes the model name alone ("host" becomes e.g.
    `znver4`), and a virtual machine that hides part of the model's instruction set (AVX-512 here)
    would then run into an illegal instruction. The JIT path already asks for the real features."""
    codegen: Any = importlib.import_module("numba.core.codegen")
    features = codegen.get_host_cpu_features()
    codegen.AOTCPUCodegen._customize_tm_features = lambda self: features


if __name__ == "__main__":
    if len(sys.argv) != 3:
        sys.exit("usage: python -m games.solver.aot_build NAME FOLDER")
    build(sys.argv[1], sys.argv[2])
