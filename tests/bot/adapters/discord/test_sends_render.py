"""Every message the Discord adapter sends is words its renderer made (`render.markdown`, the one guard that keeps
names and typed text from mentioning anyone): read from the code, the content of each `send`, `reply`,
`send_message`, `edit(content=…)` and `edit_message(content=…)` in `bot/adapters/discord/` is rendered words
(`Said`, what `markdown` returns) or a `Text` (which the helper it is handed to renders).

How the code is read: the content, without a slice (`text[:1990]`), is a call of a function typed to return `Said`
(in the adapter) or `Text`, or `Said(…)` around an f-string or `+` of such words and links, or a name whose every
assignment in its function is such words, or a parameter typed `Said` (`Said | Text`, `… | None`). Whatever else
is sent is listed by file and line; the few sends of words with no name or typed text in them are allowed below,
each with why. The helpers themselves (`respond`, `answer_table`, `board_linked`) take `Said | Text`, which mypy
holds every caller to."""

from __future__ import annotations

import ast
from collections.abc import Iterator
from pathlib import Path

ROOT = Path(__file__).resolve().parents[4]
DISCORD = ROOT / "bot" / "adapters" / "discord"
SENDS = {"send", "reply", "send_message"}
EDITS = {"edit", "edit_message"}
RENDERED = {"Said", "Text"}


def _typed_rendered(annotation: ast.expr | None) -> bool:
    """An annotation that says rendered words or words to render (`Said`, `Text`, a union of them, `None`)."""
    if annotation is None:
        return False
    names = {n.id for n in ast.walk(annotation) if isinstance(n, ast.Name)} | {
        n.value for n in ast.walk(annotation) if isinstance(n, ast.Constant) and isinstance(n.value, str)
    }
    words = {w.strip() for name in names for w in name.split("|")}
    return bool(words) and words <= RENDERED | {"None"}


def _renderers() -> tuple[set[str], dict[str, list[bool]]]:
    """The functions of `bot/` (and methods) typed to return rendered words or words to render; and those typed
    to return a tuple, with which of its items are (`text, picture = standings_message(…)`)."""
    out, pairs = {"markdown", "Said"}, {}
    for path in (ROOT / "bot").rglob("*.py"):
        for node in ast.walk(ast.parse(path.read_text())):
            if not isinstance(node, ast.FunctionDef | ast.AsyncFunctionDef):
                continue
            if _typed_rendered(node.returns):
                out.add(node.name)
            elif isinstance(node.returns, ast.Subscript) and isinstance(node.returns.slice, ast.Tuple):
                pairs[node.name] = [_typed_rendered(item) for item in node.returns.slice.elts]
    return out, pairs


RENDERERS, TUPLES = _renderers()


def _called(node: ast.expr) -> str | None:
    """The name of the function a call calls (`f(...)`, `obj.f(...)`, `await f(...)`)."""
    if isinstance(node, ast.Await):
        node = node.value
    if not isinstance(node, ast.Call):
        return None
    func = node.func
    return func.id if isinstance(func, ast.Name) else func.attr if isinstance(func, ast.Attribute) else None


def _rendered(node: ast.expr, scope: ast.AST, seen: frozenset[str] = frozenset()) -> bool:
    """Whether an expression is rendered words (see the module's docstring)."""
    while isinstance(node, ast.Subscript):  # a slice of rendered words is rendered words
        node = node.value
    if isinstance(node, ast.IfExp):
        return _rendered(node.body, scope, seen) and _rendered(node.orelse, scope, seen)
    if isinstance(node, ast.Constant) and node.value is None:
        return True
    called = _called(node)
    if called is not None:
        return called in RENDERERS
    if isinstance(node, ast.Name):
        if node.id in seen:
            return True
        args = getattr(scope, "args", None)
        if args is not None:
            for arg in [*args.posonlyargs, *args.args, *args.kwonlyargs]:
                if arg.arg == node.id:
                    return _typed_rendered(arg.annotation)
        values = list(_assigned(scope, node.id))
        return bool(values) and all(value is not None and _rendered(value, scope, seen | {node.id}) for value in values)
    return False


def _assigned(scope: ast.AST, name: str) -> Iterator[ast.expr | None]:
    """Every value `name` is given in a function (None: one this reading does not follow, e.g. `+=`, a loop)."""
    for node in ast.walk(scope):
        if isinstance(node, ast.Assign) and any(isinstance(t, ast.Name) and t.id == name for t in node.targets):
            yield node.value
        elif isinstance(node, ast.AnnAssign) and isinstance(node.target, ast.Name) and node.target.id == name:
            if node.value is not None:
                yield node.value
            elif not _typed_rendered(node.annotation):
                yield None
        elif isinstance(node, ast.AugAssign) and isinstance(node.target, ast.Name) and node.target.id == name:
            yield None
        elif isinstance(node, ast.Assign):
            for target in node.targets:
                if isinstance(target, ast.Tuple) and any(isinstance(e, ast.Name) and e.id == name for e in target.elts):
                    at = next(i for i, e in enumerate(target.elts) if isinstance(e, ast.Name) and e.id == name)
                    items = TUPLES.get(_called(node.value) or "", [])
                    yield ast.Constant(None) if at < len(items) and items[at] else None
        elif isinstance(node, ast.For | ast.comprehension) and any(
            isinstance(n, ast.Name) and n.id == name for n in ast.walk(node.target)
        ):
            yield None


def _content(call: ast.Call, method: str) -> ast.expr | None:
    """The content a send or edit is given (None: none, e.g. an edit of the view only)."""
    for keyword in call.keywords:
        if keyword.arg == "content":
            return keyword.value
    if method in SENDS and call.args:
        return call.args[0]
    return None


def unrendered_sends() -> list[str]:
    """`file:line method` of every send whose content this reading cannot show to be rendered words."""
    found = []
    for path in sorted(DISCORD.rglob("*.py")):
        tree = ast.parse(path.read_text())
        for scope in ast.walk(tree):
            if not isinstance(scope, ast.FunctionDef | ast.AsyncFunctionDef):
                continue
            for call in ast.walk(scope):
                if not (isinstance(call, ast.Call) and isinstance(call.func, ast.Attribute)):
                    continue
                method = call.func.attr
                if method not in SENDS | EDITS:
                    continue
                content = _content(call, method)
                if content is None or _rendered(content, scope):
                    continue
                found.append(f"{path.relative_to(ROOT)}:{call.lineno} {method}")
    return found


ALLOWED = {
    "bot/adapters/discord/public.py:37 send": "the private answer's words (`PostPublicly.text`, typed `Said`), "
    "posted as they were shown when a host presses the button",
}
"""`file:line method` → why a send's words need no renderer."""


def test_every_send_of_the_discord_adapter_is_rendered_words() -> None:
    left = [site for site in unrendered_sends() if site not in ALLOWED]
    assert left == [], "sent without the renderer (markdown): " + ", ".join(left)


def test_the_reading_finds_words_that_skipped_the_renderer() -> None:
    """The reading itself: a send of a bare sentence, of a name, of words `+=`-ed after rendering are found;
    rendered ones are not."""
    code = """
async def f(channel, said: Said, name: str, table: str | None):
    await channel.send(markdown(name))
    await channel.send(said[:10])
    text = markdown(name)
    await channel.send(text)
    await channel.send("Hello " + name)
    await channel.send(name)
    await channel.send(table)
    grown = markdown(name)
    grown += name
    await channel.send(grown)
    await message.edit(content=markdown(name), view=None)
    await message.edit(view=None)
"""
    scope = ast.parse(code).body[0]
    verdicts = []
    for call in ast.walk(scope):
        if isinstance(call, ast.Call) and isinstance(call.func, ast.Attribute) and call.func.attr in SENDS | EDITS:
            content = _content(call, call.func.attr)
            verdicts.append(None if content is None else _rendered(content, scope))
    assert verdicts == [True, True, True, False, False, False, False, True, None]
