"""ARCHITECTURE.md says only what the code does. What a reading of its text can check is checked here: every file
or folder it names in backticks exists (where the paragraph puts it), every `bot.…` module, every class and
`Class.member`, every other name it gives (`build_app`, `COMMANDS`, `rule_overdue`, …) is defined in `bot/` or
`games/`; its table of layers is the import-linter contract's (`pyproject.toml`); and the few facts it states in
numbers and orders hold. Its claims about behaviour are the other tests' (each named in the text beside its claim:
`tests/test_layers.py`, `tests/test_compose.py`, `tests/bot/test_compose_bus.py`, `tests/test_move_walk.py`, …)."""

from __future__ import annotations

import ast
import functools
import re
import tomllib
from collections.abc import Iterator
from pathlib import Path

import pytest

from tests import ROOT

TEXT = (ROOT / "ARCHITECTURE.md").read_text(encoding="utf-8")
FLAT = " ".join(TEXT.split())
"""The text with its lines joined, to find a phrase in."""
CODE = ("bot", "games")

NOT_OURS = frozenset({"Protocol", "sys.setprofile", "importlib.resources", "get_cog"})
"""Names the text borrows from Python and discord.py."""


def blocks(text: str) -> list[str]:
    """The text's paragraphs: a numbered item, a bullet or a table row each starts one (with the lines that
    continue it); a blank line ends one."""
    out: list[str] = []
    for line in text.splitlines():
        starts = re.match(r"\s*(\d+\.\s|- |\|)", line) is not None
        if not line.strip():
            out.append("")
        elif starts or not out or not out[-1]:
            out.append(line)
        else:
            out[-1] += " " + line.strip()
    return [b for b in out if b]


def quoted(block: str) -> list[str]:
    """What the block puts in backticks, in order."""
    return re.findall(r"`([^`\n]+)`", block)


def words(token: str) -> Iterator[str]:
    """A token's words: itself, or each word of a command line (`python -m pytest tests/… -n 0 -s`)."""
    yield from (token.split() if token.startswith("python ") else [token])


PATH = re.compile(r"[\w.<>-]+(/[\w.<>-]*)*")


def is_path(word: str) -> bool:
    return PATH.fullmatch(word) is not None and ("/" in word or word.endswith((".py", ".md", ".toml")))


def _where(word: str, near: list[Path]) -> Path | None:
    """The file or folder `word` names: from the repository's root, from `bot/`, or from a folder the paragraph
    named before it (or a folder above that one). A `<placeholder>` stands for any name."""
    pattern = re.sub(r"<[^>]+>", "*", word.rstrip("/"))
    for base in [ROOT, ROOT / "bot", *near]:
        for folder in [base, *base.parents]:
            if not folder.is_relative_to(ROOT):
                break
            found = sorted(folder.glob(pattern)) if "*" in pattern else [folder / pattern]
            for path in found:
                if path.exists() and (path.is_dir() or not word.endswith("/")):
                    return path
    return None


def _module_path(dotted: str) -> Path | None:
    """The folder or file of module `bot.x.y`, if there is one."""
    base = ROOT.joinpath(*dotted.split("."))
    for path in (base, base.with_suffix(".py")):
        if path.exists():
            return path
    return None


def test_every_file_and_folder_it_names_exists() -> None:
    missing = []
    for block in blocks(TEXT):
        near: list[Path] = []
        for token in quoted(block):
            for word in words(token):
                if word.startswith("bot.") and (module := _module_path(word)) is not None:
                    near.append(module if module.is_dir() else module.parent)
                if not is_path(word) or word.startswith(("/", "bot.", "games.")):
                    continue
                found = _where(word, near)
                if found is None:
                    missing.append(f"{word}  (in: {block[:80]}…)")
                else:
                    near.append(found if found.is_dir() else found.parent)
    assert missing == []


# The names defined in the code.


@functools.cache
def _trees() -> dict[Path, ast.Module]:
    return {
        path: ast.parse(path.read_text(encoding="utf-8"), filename=str(path))
        for top in CODE
        for path in sorted((ROOT / top).rglob("*.py"))
    }


def _targets(node: ast.AST) -> Iterator[ast.expr]:
    if isinstance(node, ast.Assign):
        yield from node.targets
    elif isinstance(node, ast.AnnAssign | ast.AugAssign):
        yield node.target


def _top_names(tree: ast.Module) -> set[str]:
    """What a module defines at its top (classes, functions, assignments, imports)."""
    names: set[str] = set()
    for node in tree.body:
        if isinstance(node, ast.ClassDef | ast.FunctionDef | ast.AsyncFunctionDef):
            names.add(node.name)
        elif isinstance(node, ast.Import | ast.ImportFrom):
            names |= {(a.asname or a.name).split(".")[0] for a in node.names}
        for target in _targets(node):
            names |= {n.id for n in ast.walk(target) if isinstance(n, ast.Name)}
    return names


@functools.cache
def _classes() -> dict[str, list[tuple[set[str], list[str]]]]:
    """Every class of bot/ and games/ by name: its members (methods, class attributes, fields, what its methods
    set on `self`) and its bases' names."""
    found: dict[str, list[tuple[set[str], list[str]]]] = {}
    for tree in _trees().values():
        for node in ast.walk(tree):
            if not isinstance(node, ast.ClassDef):
                continue
            members: set[str] = set()
            for item in node.body:
                if isinstance(item, ast.FunctionDef | ast.AsyncFunctionDef):
                    members.add(item.name)
                for target in _targets(item):
                    if isinstance(target, ast.Name):
                        members.add(target.id)
            for sub in ast.walk(node):
                for target in _targets(sub):
                    if isinstance(target, ast.Attribute) and isinstance(target.value, ast.Name):
                        if target.value.id == "self":
                            members.add(target.attr)
            bases = [ast.unparse(b).split(".")[-1].split("[")[0] for b in node.bases]
            found.setdefault(node.name, []).append((members, bases))
    return found


def has_member(cls: str, member: str, seen: frozenset[str] = frozenset()) -> bool:
    """Some class named `cls` in bot/ or games/ has `member`, itself or through a base of ours."""
    if cls in seen:
        return False
    for members, bases in _classes().get(cls, []):
        if member in members or any(has_member(b, member, seen | {cls}) for b in bases):
            return True
    return False


@functools.cache
def _defined() -> frozenset[str]:
    """Every name defined anywhere in bot/ and games/: modules, classes, functions and their parameters,
    assignments (attributes included), keywords of calls."""
    names: set[str] = set()
    for path, tree in _trees().items():
        names |= {path.stem, path.parent.name}
        for node in ast.walk(tree):
            if isinstance(node, ast.ClassDef | ast.FunctionDef | ast.AsyncFunctionDef):
                names.add(node.name)
            elif isinstance(node, ast.arg):
                names.add(node.arg)
            elif isinstance(node, ast.keyword) and node.arg:
                names.add(node.arg)
            for target in _targets(node):
                for n in ast.walk(target):
                    if isinstance(n, ast.Name):
                        names.add(n.id)
                    elif isinstance(n, ast.Attribute):
                        names.add(n.attr)
    return frozenset(names)


def _module_has(dotted: str) -> bool:
    """`bot.x.y` is a module, or `bot.x`'s top defines `y`."""
    if _module_path(dotted) is not None:
        return True
    head, _, name = dotted.rpartition(".")
    module = _module_path(head)
    if module is None:
        return False
    tree = _trees().get(module / "__init__.py" if module.is_dir() else module)
    return tree is not None and name in _top_names(tree)


def names_in(text: str) -> Iterator[str]:
    """Every name-like token in backticks, with a call's arguments left off (`JobQueue.register(kind, handler)`
    is `JobQueue.register`)."""
    for block in blocks(text):
        for token in quoted(block):
            for word in words(token):
                name = word.split("(")[0]
                if re.fullmatch(r"[A-Za-z_]\w*(\.[A-Za-z_]\w*)*", name) and not is_path(name) and name not in NOT_OURS:
                    yield name


ALIASES = {"bus": "Bus", "rules": "bot.host.rules", "host": "Host", "store": "MatchStore"}
"""What the text calls by a variable's name: the root's bus, the rules package, a face's host, the store."""


def _unknown(name: str) -> bool:
    head, _, rest = name.partition(".")
    if head in ALIASES:
        head = ALIASES[head]
    if head in ("bot", "games") or head.startswith("bot."):
        full = f"{head}.{rest}" if rest else head
        # `bot.parts`, `bot.app`: the Discord bot's own attributes (the text calls it `bot` there)
        return not (_module_has(full) or (full.count(".") == 1 and has_member("DMHost", rest)))
    if rest:
        return not (head in _classes() and has_member(head, rest.split(".")[0]))
    if head[0].isupper() and (not head.isupper() or len(head) > 3):
        return head not in _defined()  # a class, or a constant (`COMMANDS`, `EXTENSIONS`, `RECORD`)
    return "_" in head.strip("_") and head not in _defined()  # `build_app`, `rule_overdue`, `cancel_prefix`, …


def test_every_module_class_member_and_name_it_gives_is_defined() -> None:
    assert sorted({n for n in names_in(TEXT) if _unknown(n)}) == []


def test_the_checks_find_what_is_not_there(tmp_path: Path) -> None:
    text = (
        "- In `bot/host/`: `nowhere.py`, `clocks.py`; `MatchService.fly`, `Bus.subscribe`, `bot.host.nothing`,"
        " `bot.parts`, `build_nothing`, `build_app`, `NoSuchClass`, `bus.tell`, `rules.no_such`."
    )
    (block,) = blocks(text)
    near = [ROOT / "bot" / "host"]
    assert [w for w in quoted(block) if is_path(w) and _where(w, near) is None] == ["nowhere.py"]
    unknown = [n for n in names_in(text) if _unknown(n)]
    assert unknown == ["MatchService.fly", "bot.host.nothing", "build_nothing", "NoSuchClass", "rules.no_such"]


# The table of layers is the contract.


def _table_layers() -> list[set[str]]:
    rows = [b for b in blocks(TEXT) if b.startswith("|") and "`bot." in b.split("|")[2]]
    return [{p for p in quoted(row.split("|")[2]) if p.startswith("bot.")} for row in rows]


def test_the_table_of_layers_is_the_contract_in_pyproject() -> None:
    config = tomllib.loads((ROOT / "pyproject.toml").read_text(encoding="utf-8"))
    (layered,) = [c for c in config["tool"]["importlinter"]["contracts"] if c["type"] == "layers"]
    contract = [set(re.split(r"\s*[:|]\s*", layer.strip())) for layer in layered["layers"]]
    assert _table_layers() == contract


def test_every_package_of_bot_is_in_a_layer() -> None:
    packages = {
        f"bot.{p.stem}"
        for p in (ROOT / "bot").iterdir()
        if p.name != "__init__.py" and (p.suffix == ".py" or (p / "__init__.py").exists())
    }
    assert packages == set().union(*_table_layers())


def test_the_modules_of_words_it_names_are_there() -> None:
    """The row of `bot.wording` names its modules (`basics`, `events`, …): each is a module of the package."""
    (row,) = [b for b in blocks(TEXT) if b.startswith("| words |")]
    named = [n for n in quoted(row) if re.fullmatch(r"[a-z][a-z_]*", n) and n != "str"]  # not `bot/text.py`, `Text`
    assert named and [n for n in named if not (ROOT / "bot" / "wording" / f"{n}.py").is_file()] == []


# What it states in numbers and orders.


def test_its_numbers_and_orders_hold() -> None:
    from bot.adapters.discord.commands._help import MAX_ENTRIES
    from bot.compose import Stage
    from bot.jobs.queue import DEAD_AFTER_S, LEASE_S

    assert "every group stays at most 18 entries" in FLAT and MAX_ENTRIES == 18
    assert "heartbeat 5 s old" in FLAT and DEAD_AFTER_S == 5
    assert "the 15 s lease" in FLAT and LEASE_S == 15
    assert "first the ratings (`RECORD`" in FLAT and "then the faces (`TELL`" in FLAT
    assert "then the cores that move things on (`FOLLOW`" in FLAT
    assert Stage.RECORD < Stage.TELL < Stage.FOLLOW


@pytest.mark.parametrize("name", ["get_cog("])
def test_no_feature_reaches_another_by_name(name: str) -> None:
    """ "never `get_cog("…")` by name": no module of bot/ calls it."""
    calls = [str(p.relative_to(ROOT)) for p in (ROOT / "bot").rglob("*.py") if name in p.read_text(encoding="utf-8")]
    assert calls == []


def test_the_seed_data_is_read_through_importlib_resources_by_games_resources() -> None:
    """ "The seed data … is the top-level package `seeds/`, read through `importlib.resources` by
    `games/resources.py`": that module reads the package so, and `seeds` is a package."""
    source = (ROOT / "games" / "resources.py").read_text(encoding="utf-8")
    assert "importlib.resources" in source or "from importlib import resources" in source
    assert (ROOT / "seeds" / "__init__.py").exists()
