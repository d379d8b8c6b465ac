"""The compiled search as an ahead-of-time built extension module, so that a process can search without
importing numba (a quarter of a second) or loading numba's cached code (as much again).

`games.solver.jit` is the search's one source. With numba and a C compiler at hand it is built once
(`numba.pycc`, in a child process, for this machine's processor) into the cache folder numba uses,
as `_dmsolver_<key>` where the key hashes the search's source, the Python version and the processor;
any change to one of them builds a new module, and the old one is removed. Where the build fails
(no C compiler, say) a marker file keeps later processes from trying again, and the kernel uses
numba's just-in-time compiled search instead (`games.solver.kernel.load`). Nothing here imports numba.
`DMHOST_SOLVER_AOT=0` turns this path off; `DMHOST_SOLVER_AOT_DIR` keeps the module elsewhere;
`DMHOST_SOLVER_CPU` (default `host`; `portable`, or an LLVM level such as `x86-64-v2`) names what to compile for
instead of this machine, for a module that runs on every machine of that level (a container image
built once and run anywhere); the key then hashes that name instead of this processor.
"""

from __future__ import annotations

import hashlib
import importlib.machinery
import importlib.util
import os
import platform
import subprocess
import sys
import tempfile
from pathlib import Path
from types import ModuleType

HERE = Path(__file__).resolve().parent
SOURCES = ("jit.py", "layout.py", "kernel.py", "pure.py", "aot.py", "aot_build.py")
"""The files whose text decides the compiled code (the search, its constants, INF, the build)."""
PREFIX = "_dmsolver_"
BUILD_TIMEOUT = 900


def cache_dir() -> Path:
    """The folder compiled code lives in: NUMBA_CACHE_DIR when set, else the package's `__pycache__`
    when it is writable (numba's own default), else the user's cache folder (see `ensure_cache_dir`)."""
    ensure_cache_dir()
    env = os.environ.get("NUMBA_CACHE_DIR")
    return Path(env) if env else HERE / "__pycache__"


def writable(folder: Path) -> bool:
    """Whether this process can create files in `folder` (made when missing): tried, not read off the
    permission bits, which root ignores and a read-only file system overrides."""
    try:
        folder.mkdir(parents=True, exist_ok=True)
        with tempfile.NamedTemporaryFile(dir=folder, prefix=".probe-"):
            pass
    except OSError:
        return False
    return True


def ensure_cache_dir() -> None:
    """Point NUMBA_CACHE_DIR at a folder this process can write. numba caches only into a folder it can
    write ("no locator available" otherwise), so a NUMBA_CACHE_DIR meant for another user (an image run
    with `--user`) or on a read-only root is replaced, as is the package's own `__pycache__` when it is
    read-only: by the user's cache folder, else a folder of this user's in the temporary directory."""
    env = os.environ.get("NUMBA_CACHE_DIR")
    if env and writable(Path(env)):
        return
    if not env and writable(HERE / "__pycache__"):
        return
    home = os.environ.get("XDG_CACHE_HOME") or str(Path.home() / ".cache")
    fallbacks = [Path(home) / "dmhost" / "numba", Path(tempfile.gettempdir()) / f"dmhost-numba-{os.getuid()}"]
    for target in fallbacks:
        if writable(target):
            os.environ["NUMBA_CACHE_DIR"] = str(target)
            return


def target_cpu() -> str:
    """The processor the extension is compiled for: `host` (this machine, the default), an LLVM level, or
    `portable`: x86-64-v2 on x86-64 (SSE4.2 and POPCNT, every such processor since about 2009), else the
    architecture's generic level."""
    cpu = os.environ.get("DMHOST_SOLVER_CPU", "").strip() or "host"
    if cpu == "portable":
        return "x86-64-v2" if platform.machine().lower() in ("x86_64", "amd64") else "generic"
    return cpu


def processor() -> str:
    """What identifies this machine's processor for code compiled for it (model and feature flags)."""
    try:
        with open("/proc/cpuinfo", encoding="utf-8", errors="replace") as f:
            wanted = ("model name", "flags", "Features", "CPU part", "vendor_id")
            seen: dict[str, str] = {}
            for line in f:
                name, _, value = line.partition(":")
                name = name.strip()
                if name in wanted and name not in seen:
                    seen[name] = value.strip()
                if not line.strip() and seen:
                    break
        if seen:
            return repr(sorted(seen.items()))
    except OSError:
        pass
    return f"{platform.machine()} {platform.processor()} {platform.platform()}"


def module_name() -> str:
    """The extension's module name for the current source, Python and processor."""
    h = hashlib.sha256()
    for name in SOURCES:
        h.update((HERE / name).read_bytes())
    h.update(sys.version.encode())
    cpu = target_cpu()
    h.update((processor() if cpu == "host" else f"cpu {cpu} {platform.machine()}").encode())
    return PREFIX + h.hexdigest()[:16]


def suffix() -> str:
    """The file-name ending of an extension module for this Python."""
    return importlib.machinery.EXTENSION_SUFFIXES[0]


def enabled() -> bool:
    """Whether the ahead-of-time path may be used (`DMHOST_SOLVER_AOT=0` turns it off)."""
    return os.environ.get("DMHOST_SOLVER_AOT", "1") != "0"


def folder() -> Path:
    """Where the extension is kept: `DMHOST_SOLVER_AOT_DIR` when set, else the compiled-code cache."""
    env = os.environ.get("DMHOST_SOLVER_AOT_DIR")
    return Path(env) if env else cache_dir()


def built_path(name: str | None = None) -> Path:
    """Where the extension for the current source is (or would be)."""
    return folder() / f"{name or module_name()}{suffix()}"


def failed_path(name: str | None = None) -> Path:
    """The marker a failed build leaves (it holds the build's output)."""
    return folder() / f"{name or module_name()}.failed"


def status() -> str:
    """'ready' (built), 'buildable' (not built, no failed attempt), 'failed' or 'off'."""
    if not enabled():
        return "off"
    name = module_name()
    if built_path(name).exists():
        return "ready"
    return "failed" if failed_path(name).exists() else "buildable"


def load(build: bool = True) -> ModuleType | None:
    """The extension module (`search`, `closure_at`), built first when missing and `build` is set;
    None when it cannot be had (turned off, failed to build now or before, failed to load)."""
    if not enabled():
        return None
    name = module_name()
    path = built_path(name)
    if not path.exists():
        if not build or failed_path(name).exists() or not _build(name):
            return None
    try:
        spec = importlib.util.spec_from_file_location(name, path)
        if spec is None or spec.loader is None:
            return None
        module = importlib.util.module_from_spec(spec)
        spec.loader.exec_module(module)
    except Exception as exc:  # a broken or foreign file: never use it again
        _mark_failed(name, f"loading {path} failed: {exc!r}")
        return None
    return module


def _mark_failed(name: str, text: str) -> None:
    try:
        failed_path(name).write_text(text, encoding="utf-8")
    except OSError:
        pass


def _build(name: str) -> bool:
    """Build the extension in a child process (numba and the C compiler stay out of this one); True
    when it is in place. Concurrent builders are harmless: each moves its own finished file in."""
    target = built_path(name)
    if not writable(target.parent):  # a read-only install or another user's folder: use numba's path
        return False
    with tempfile.TemporaryDirectory(dir=target.parent, prefix=".build-") as tmp:
        try:
            proc = subprocess.run(
                [sys.executable, "-m", "games.solver.aot_build", name, tmp],
                capture_output=True,
                text=True,
                timeout=BUILD_TIMEOUT,
                env={**os.environ, "PYTHONPATH": os.pathsep.join(p for p in sys.path if p)},
            )
        except (OSError, subprocess.TimeoutExpired) as exc:
            _mark_failed(name, repr(exc))
            return False
        made = [p for p in Path(tmp).iterdir() if p.name.startswith(name) and p.name.endswith(suffix())]
        if proc.returncode != 0 or not made:
            _mark_failed(name, proc.stdout + proc.stderr)
            return False
        os.replace(made[0], target)
    for old in target.parent.glob(PREFIX + "*"):
        if not old.name.startswith(name):
            try:
                old.unlink()
            except OSError:
                pass
    return True
