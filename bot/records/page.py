"""A match's review page: one self-contained HTML document (boards inline, no request leaves it).

Hooks fixed by CONTRACT.md ("Match review pages"): `#result`, `#ply`, `#board`, `#moves [data-ply]`,
`#analysis [data-ply][data-verdict]` (the points of `#chart`, the shown one `aria-current="true"`), `#info`
in words, `#accuracy`, ←/→ and Home/End, opens on the last ply; `#moves` beside `#board` from 980 px on
(`docs/review-pages.md`). Every string a player
gave (names, move texts, reasons) goes through `html.escape`; the data block is JSON with `<` escaped.
"""

from __future__ import annotations

import datetime as dt
import html
import json
from collections.abc import Mapping, Sequence
from typing import Any

from bot.host.rules import log_rewind
from bot.records.analysis import ANALYSED_GAMES, engines_text
from bot.records.matchlog import build_log, final_score, result_of
from bot.records.pageframes import encode_frames, render_frames
from bot.records.replay import clock_shown
from bot.store.matches import EntryKind, StoredMatch
from bot.types import OVER_STATUSES, MatchStatus
from bot.wording import _SHOWN_KINDS, display, result_sentence, rule_words
from bot.wording.basics import seconds
from bot.wording.log import entry_time, fill_entry, rules_words, spans_days, used_text
from bot.wording.review import (
    accuracy_words,
    analysis_pending,
    chart_caption,
    in_progress,
    option_words,
    page_clock_words,
    value_words,
)
from games.analysis import value_scale, win_chance
from games.base import TITLES

VERDICTS = ("best", "good", "inaccuracy", "mistake", "blunder")

e = html.escape


def with_verdicts(entries: Sequence[Mapping[str, Any]]) -> list[dict[str, Any]]:
    """The marks a page shows from a stored analysis (`bot.records.analysis_store`): every analysed entry
    with a verdict on the scale (`analyse_match` gives each its `verdict`, `value_p1` and `engine`); an
    entry of an older row without `value_p1` has it from `value`, the mover's, turned to seat 1's side."""
    out = []
    for entry in entries:
        item = dict(entry)
        if item.get("analysed") is False or item.get("verdict") not in VERDICTS:
            continue
        if "value_p1" not in item and isinstance(item.get("value"), int | float):
            item["value_p1"] = item["value"] if item.get("seat") == 1 else -item["value"]
        item.setdefault("engine", "")
        out.append(item)
    return out


def _utc(at: dt.datetime) -> str:
    """A stored time (naive ones are UTC) as an ISO string in UTC."""
    return (at if at.tzinfo is not None else at.replace(tzinfo=dt.UTC)).astimezone(dt.UTC).isoformat()


def _when(at: dt.datetime) -> str:
    aware = at if at.tzinfo is not None else at.replace(tzinfo=dt.UTC)
    local = aware.astimezone()
    return f"{aware.astimezone(dt.UTC):%Y-%m-%d %H:%M} UTC (server time {local:%Y-%m-%d %H:%M %Z})"


def _event_text(ev: Mapping[str, Any], names: Mapping[int, str]) -> str:
    kind = ev["kind"]
    label = _SHOWN_KINDS.get(kind) or rule_words().get(f"log:{kind}") or kind
    who = names.get(ev.get("seat") or 0, "")
    bits = [label, who]
    if kind in _TRIED and ev.get("text"):
        bits.append(f"{ev['text']!r}: {ev.get('reason', '')}")
    elif (detail := rule_words().get(f"logline:{kind}")) is not None:  # a house rule's own detail
        bits.append(fill_entry(detail, ev))
    elif kind == EntryKind.CLOCK:
        bits.append(str(ev.get("notice", "")))
    elif kind == EntryKind.TIME:
        bits.append(f"{ev.get('seconds', 0):+g} s")
    return " ".join(b for b in bits if b).strip()


_TRIED = (EntryKind.ILLEGAL, EntryKind.SYNTAX, EntryKind.TURN, EntryKind.FINISHED)
"""Entries that carry a refused (or final) text and its reason."""
_SKIP = {EntryKind.CREATED, EntryKind.MOVE, EntryKind.COMMIT, EntryKind.FINISHED, EntryKind.CONFIRM}
RESTARTED = "resumed"
"""The host's own restart entry: said in `#info` (how many, after which plies), never in the move list."""
GLYPHS = {"inaccuracy": "?!", "mistake": "?", "blunder": "??"}
"""The marks lichess readers know, after a move the analysis faults."""


def _notes(stored: StoredMatch) -> tuple[dict[int, list[str]], list[int]]:
    """The log's other entries by the ply they happened after (illegal tries, rewinds, presence, pauses...)
    and the plies after which the host restarted."""
    names = {s: n for s, (_pid, n) in stored.players.items()}
    dated = spans_days([_utc(ev.at) for ev in stored.events])
    notes: dict[int, list[str]] = {}
    restarts: list[int] = []
    ply = 0
    for ev in stored.events:
        if ev.kind == EntryKind.MOVE:
            ply += 1
            continue
        rewound = log_rewind(ev.kind, ev.data, ply)
        ply = ply if rewound is None else rewound
        if ev.kind == RESTARTED:
            restarts.append(ply)
            continue
        if ev.kind in _SKIP:
            continue
        data = {"kind": ev.kind, "seat": ev.seat, "text": ev.text, **ev.data}
        said = _event_text(data, names)
        if dated:
            said = f"{entry_time(_utc(ev.at), True)} UTC · {said}"
        notes.setdefault(ply, []).append(said)
    return notes, restarts


def _moves_html(
    stored: StoredMatch, frames: Sequence[Any], marks: Mapping[int, Mapping[str, Any]], notes: Mapping[int, list[str]]
) -> str:
    """The move list: one `li[data-ply]` per ply of the final line (the time a move took when it took a
    second or more, in days and hours in a correspondence match; the mover's clock only when the move changed
    it; the analysis' mark when it faults the move; the date of each move when the match spans days), with the
    log's other entries after the ply they happened at."""
    names = {s: n for s, (_pid, n) in stored.players.items()}
    dated = spans_days([_utc(ev.at) for ev in stored.events])
    rows = []
    for i, f in enumerate(frames):
        if f.ply == 0:
            body = '<span class="n"></span><span class="mv">start</span>'
        else:
            seat = f.seat or 0
            before = frames[i - 1].clocks.get(seat)
            clock = ""
            if seat in f.clocks and before is not None and abs(f.clocks[seat] - before) >= 0.05:
                clock = (
                    f'<span class="c" title="{e(names.get(seat, "?"))}\'s clock after the move">'
                    + e(clock_shown(f.clocks[seat], stored.clock))
                    + "</span>"
                )
            took = used_text(f.used, stored.clock) if f.used is not None and f.used >= 1 else ""
            if dated and f.at is not None:  # a match played over days: each move with its date
                took = f"{took} · {entry_time(_utc(f.at), True)} UTC".removeprefix(" · ")
            used = f'<span class="t">{e(took)}</span>' if took else ""
            mark = marks.get(f.ply)
            glyph = ""
            if mark is not None:
                verdict = str(mark["verdict"])
                glyph = f'<span class="g {e(verdict)}" title="{e(verdict)}">{GLYPHS.get(verdict, "")}</span>'
            body = (
                f'<span class="n">{f.ply}.</span><span class="who">{e(names.get(seat, "?"))}</span>'
                f'<span class="mv">{e(str(f.move))}{glyph}</span>{used}{clock}'
            )
        rows.append(f'<li data-ply="{f.ply}">{body}</li>')
        rows.extend(f'<li class="ev">{e(text)}</li>' for text in notes.get(f.ply, []))
    for extra in sorted(k for k in notes if k >= len(frames)):
        rows.extend(f'<li class="ev">{e(text)}</li>' for text in notes[extra])
    return "\n".join(rows)


CHART_W, CHART_H = 640, 200
_LEFT, _RIGHT, _TOP, _BOTTOM = 40, 10, 10, 26


def _x(ply: float, plies: int) -> float:
    return _LEFT + (CHART_W - _LEFT - _RIGHT) * ply / max(1, plies)


def _y(chance: float) -> float:
    return _TOP + (CHART_H - _TOP - _BOTTOM) * (1 - chance / 100)


def _ticks(plies: int) -> list[int]:
    """Round ply numbers for the x axis (about six)."""
    step = 1
    for s in (1, 2, 5, 10, 20, 25, 50, 100, 200, 250, 500, 1000):
        step = s
        if plies / s <= 7:
            break
    return list(range(0, plies + 1, step))


def chart_svg(stored: StoredMatch, marks: Sequence[Mapping[str, Any]], plies: int, shown: int) -> str:
    """The analysis as an inline SVG (`#chart`): seat 1's chance to win over the game (a sigmoid of the
    engine's value, bounded by 0 and 100 %, `games.analysis.win_chance`), axes, a line at the ply shown,
    and one point per analysed ply (`#analysis > [data-ply][data-verdict]`; the shown one `aria-current`)."""
    names = {s: n for s, (_pid, n) in stored.players.items()}
    points = [m for m in marks if isinstance(m.get("value_p1"), int | float)]
    if not points:
        return ""
    scale = _scale(stored)
    xy = [(int(m["ply"]), win_chance(float(m["value_p1"]), scale)) for m in points]
    line = [(0, 50.0), *xy]
    area = (
        f"{_x(0, plies):.1f},{_y(50):.1f} "
        + " ".join(f"{_x(p, plies):.1f},{_y(c):.1f}" for p, c in line)
        + f" {_x(line[-1][0], plies):.1f},{_y(50):.1f}"
    )
    path = " ".join(f"{_x(p, plies):.1f},{_y(c):.1f}" for p, c in line)
    small = len(points) > 80
    dots = []
    for m, (p, c) in zip(points, xy, strict=True):
        verdict = str(m["verdict"])
        r = (2.2 if verdict in ("best", "good") else 3.6) if small else (3.6 if verdict in ("best", "good") else 5.2)
        who = names.get(int(m.get("seat") or 0), "?")
        tip = (
            f"{p}. {who} {m.get('move', '')}: {verdict}, {value_words(stored.game, float(m['value_p1']))} "
            f"({names.get(1, '?')} {c:.0f} %)"
        )
        current = ' aria-current="true"' if p == shown else ""
        dots.append(
            f'<circle class="pt {e(verdict)}" data-ply="{p}" data-verdict="{e(verdict)}" data-tip="{e(tip)}"'
            f'{current} cx="{_x(p, plies):.1f}" cy="{_y(c):.1f}" r="{r}"><title>{e(tip)}</title></circle>'
        )
    axes = [
        f'<line class="axis" x1="{_LEFT}" x2="{_LEFT}" y1="{_TOP}" y2="{CHART_H - _BOTTOM}"/>',
        f'<line class="axis" x1="{_LEFT}" x2="{CHART_W - _RIGHT}" y1="{CHART_H - _BOTTOM}" y2="{CHART_H - _BOTTOM}"/>',
    ]
    for chance in (0, 25, 50, 75, 100):
        y = _y(chance)
        axes.append(
            f'<line class="grid{" mid" if chance == 50 else ""}" x1="{_LEFT}" x2="{CHART_W - _RIGHT}" '
            f'y1="{y:.1f}" y2="{y:.1f}"/>'
        )
        axes.append(f'<text class="lab" x="{_LEFT - 4}" y="{y + 4:.1f}" text-anchor="end">{chance}%</text>')
    for t in _ticks(plies):
        x = _x(t, plies)
        axes.append(
            f'<line class="tick" x1="{x:.1f}" x2="{x:.1f}" y1="{CHART_H - _BOTTOM}" y2="{CHART_H - _BOTTOM + 4}"/>'
        )
        axes.append(f'<text class="lab" x="{x:.1f}" y="{CHART_H - 8}" text-anchor="middle">{t}</text>')
    cursor = _x(shown, plies)
    return (
        f'<svg id="chart" viewBox="0 0 {CHART_W} {CHART_H}" role="img" '
        f'data-plies="{plies}" data-left="{_LEFT}" data-right="{_RIGHT}" data-width="{CHART_W}" '
        f'aria-label="{e(names.get(1, "?"))}\'s chance to win over the game">'
        f'<rect class="bg" x="{_LEFT}" y="{_TOP}" width="{CHART_W - _LEFT - _RIGHT}" '
        f'height="{CHART_H - _TOP - _BOTTOM}"/>{"".join(axes)}'
        f'<polygon class="area" points="{area}"/><polyline class="line" points="{path}"/>'
        f'<line id="cursor" x1="{cursor:.1f}" x2="{cursor:.1f}" y1="{_TOP}" y2="{CHART_H - _BOTTOM}"/>'
        f'<g id="analysis">{"".join(dots)}</g></svg>'
    )


def _scale(stored: StoredMatch) -> float:
    opts = stored.options or {}
    return value_scale(stored.game, int(opts.get("width") or 39), int(opts.get("height") or 32))


def accuracy(marks: Sequence[Mapping[str, Any]], seat: int) -> tuple[int, int]:
    """(best or good moves, moves judged) of one seat."""
    own = [m for m in marks if m.get("seat") == seat]
    return sum(1 for m in own if m["verdict"] in ("best", "good")), len(own)


def _result_text(stored: StoredMatch) -> str:
    """The result as every room says it; when the score is not what decided the game (a Pathing line won by
    the player with fewer boxes), the sentence without it and the score by name after it."""
    if stored.status not in OVER_STATUSES:
        return in_progress(result_of(stored))
    said = result_of(stored)
    score = final_score(stored)
    winner = stored.winner_seat
    if score is not None and winner in (1, 2) and score[winner - 1] < score[2 - winner]:
        names = {seat: display(name) for seat, (_pid, name) in stored.players.items()}
        said = result_sentence(stored.result_reason, winner, names)
        said += f" (score: {names.get(1, '?')} {score[0]}, {names.get(2, '?')} {score[1]})"
    return said


def match_page(
    stored: StoredMatch,
    *,
    analysis: Sequence[Mapping[str, Any]] | None = None,
    context: Sequence[str] = (),
    links: Mapping[str, str] | None = None,
    pending: bool = False,
) -> str:
    """The review page of `stored` (loaded with its events). `analysis`: `analyse_match`'s entries, if
    any; `context`: lines such as the tournament and round; `links`: {text: href} shown in the header;
    `pending`: say that the analysis is still to come."""
    frames, images = render_frames(stored)
    boards = encode_frames(images)
    marks = with_verdicts(analysis or [])
    by_ply = {int(m["ply"]): m for m in marks}
    log = build_log(stored)
    names = {s: n for s, (_pid, n) in stored.players.items()}
    game = TITLES.get(stored.game, stored.game)
    title = f"{game} — {names.get(1, '?')} vs {names.get(2, '?')}"
    notes, restarts = _notes(stored)
    last = len(frames) - 1
    facts = [
        ("Game", game),
        ("Players", f"{names.get(1, '?')} vs {names.get(2, '?')}"),
        ("Options", option_words(stored.game, stored.options)),
        ("Clock", page_clock_words(stored.clock, with_window=log.get("rules") is None)),
        ("House rules", rules_words(log.get("rules"))),
        ("Played", _when(stored.created_at)),
        *[("Context", line) for line in context],
    ]
    if restarts:
        after = ", ".join(str(p) for p in restarts)
        facts.append(("Host restarts", f"{len(restarts)} (after ply {after}); no clock ran while it was down"))
    facts_html = "".join(f"<dt>{e(k)}</dt><dd>{e(str(v))}</dd>" for k, v in facts)
    link_html = " · ".join(f'<a href="{e(href)}">{e(text)}</a>' for text, href in (links or {}).items())
    analysis_html = ""
    accuracy_html = ""
    if pending:
        analysis_html = f'<section class="chartbox"><p id="analysis-pending">{e(analysis_pending())}</p></section>'
    elif marks:
        counts = ", ".join(
            f"{sum(1 for m in marks if m['verdict'] == v)} {v}"
            for v in VERDICTS
            if any(m["verdict"] == v for m in marks)
        )
        accuracy_html = (
            '<p id="accuracy">'
            + " · ".join(e(accuracy_words(names.get(seat, "?"), *accuracy(marks, seat))) for seat in (1, 2))
            + "</p>"
        )
        analysis_html = (
            f'<section class="chartbox"><figure>{chart_svg(stored, marks, last, last)}'
            f'<figcaption><span id="tip"></span> {e(chart_caption(stored.game, names.get(1, "?"), names.get(2, "?")))}'
            f" {e(engines_text(marks))}: {e(counts)}.</figcaption></figure></section>"
        )
    captions = ["start"] + [
        f"{f.ply}. {names.get(f.seat or 0, '?')} {f.move}" + (f" ({seconds(f.used)})" if f.used and f.used >= 1 else "")
        for f in frames[1:]
    ]
    data = {"boards": boards, "plies": last, "captions": captions}
    blob = json.dumps(data, separators=(",", ":")).replace("<", "\\u003c")
    return _TEMPLATE.format(
        title=e(title),
        result=e(_result_text(stored)),
        accuracy=accuracy_html,
        links=link_html,
        facts=facts_html,
        last=last,
        ratio=f"{images[-1].width / max(1, images[-1].height):.3f}",
        board=boards["last"],
        moves=_moves_html(stored, frames, by_ply, notes),
        analysis=analysis_html,
        data=blob,
        script=_SCRIPT,
        style=_STYLE,
    )


def build_match_page(
    stored: StoredMatch, context: Sequence[str] = (), analysis: Sequence[Mapping[str, Any]] | None = None
) -> str:
    """A match's page (what `dmhost log --html` writes and `dmhost web` serves) with its stored analysis
    (`load_analysis`), never computed here: with none stored yet, a finished match of an analysed game
    says that its analysis is pending."""
    pending = analysis is None and stored.game in ANALYSED_GAMES and stored.status == MatchStatus.FINISHED
    return match_page(stored, analysis=analysis, context=context, pending=pending)


_CSP = (
    '<meta http-equiv="Content-Security-Policy" content="default-src \'none\'; img-src data: blob:; '
    "style-src 'unsafe-inline'; script-src 'unsafe-inline'\">"
)

_STYLE = """
*{box-sizing:border-box}
html{-webkit-text-size-adjust:100%}
body{font:15px/1.45 system-ui,-apple-system,"Segoe UI",sans-serif;margin:0;color:#1f2328;background:#f3f1ed;
overflow-wrap:anywhere}
header.top,main,.below,.page{max-width:1500px;margin:0 auto;padding:10px 16px}
h1{font-size:21px;margin:6px 0 2px}h2{font-size:16px;margin:14px 0 6px}
#result{font-weight:600;margin:2px 0}#accuracy{margin:2px 0;color:#444}.links{margin:2px 0}
a{color:#1d5fa7}
main.review{display:grid;grid-template-columns:minmax(0,1fr);gap:14px;align-items:start}
.boardcol{min-width:0}
.nav{display:flex;flex-wrap:wrap;align-items:center;gap:6px;margin:0 0 6px}
.nav button{font-size:17px;min-width:44px;min-height:36px;border:1px solid #bbb;border-radius:6px;background:#fff;
cursor:pointer}.nav .at{font-variant-numeric:tabular-nums;padding:0 4px}#caption{color:#555;font-size:14px}
#board{display:block;width:100%;height:auto;max-height:calc(100vh - 175px);object-fit:contain;
object-position:left top}
.side{min-width:0;background:#fff;border:1px solid #c9c4bb;border-radius:4px}
.side h2{margin:0;padding:8px 10px;border-bottom:1px solid #e4e0d8;font-size:15px}
#moves{margin:0;padding:0;list-style:none;max-height:40vh;overflow:auto;font-variant-numeric:tabular-nums}
#moves li{display:flex;gap:8px;align-items:baseline;padding:3px 10px;border-bottom:1px solid #f0ede7;cursor:pointer}
#moves li:hover{background:#f4f8fd}#moves li.on{background:#ffe9a8}
#moves .n{color:#888;min-width:3.2em;text-align:right}#moves .who{color:#555;min-width:0;max-width:8em;
overflow:hidden;text-overflow:ellipsis;white-space:nowrap}#moves .mv{font-weight:600;flex:1}
#moves .t,#moves .c{color:#777;font-size:12px}#moves li.ev{cursor:default;color:#777;font-size:12.5px;
padding-left:4.6em;display:block}
.g{font-weight:700;margin-left:4px}.g.inaccuracy{color:#b68a00}.g.mistake{color:#d96c00}.g.blunder{color:#c62828}
.chartbox{margin:10px 0 0;max-width:980px}.chartbox figure{margin:0}
#chart{display:block;width:100%;height:auto;background:#fff;border:1px solid #c9c4bb;border-radius:4px;cursor:crosshair}
#chart .bg{fill:#fff}#chart .axis{stroke:#888}#chart .grid{stroke:#eee}#chart .grid.mid{stroke:#bbb;
stroke-dasharray:4 3}#chart .tick{stroke:#888}#chart .lab{font-size:11px;fill:#666}
#chart .area{fill:#dfe8f3}#chart .line{fill:none;stroke:#3b5f8a;stroke-width:1.6;vector-effect:non-scaling-stroke}
#chart #cursor{stroke:#d33;stroke-width:1.5;vector-effect:non-scaling-stroke}
#chart circle{cursor:pointer;stroke:#333;stroke-width:.8;fill:#9bc59d;vector-effect:non-scaling-stroke}
#chart circle.best{fill:#6aa86d}#chart circle.good{fill:#b9d99a}#chart circle.inaccuracy{fill:#f3d34a}
#chart circle.mistake{fill:#f39c34}#chart circle.blunder{fill:#d9302c}
#chart circle[aria-current="true"]{stroke:#d33;stroke-width:3}
figcaption{font-size:13px;color:#555;margin-top:4px}#tip{display:block;min-height:1.3em;color:#222;font-weight:600}
dl#info{display:grid;grid-template-columns:max-content minmax(0,1fr);gap:3px 12px;margin:6px 0;
background:#fff;border:1px solid #c9c4bb;border-radius:4px;padding:8px 10px}dt{color:#666}dd{margin:0}
table{border-collapse:collapse;background:#fff;font-variant-numeric:tabular-nums;margin:4px 0 10px}
th,td{border:1px solid #ddd8cf;padding:4px 8px;text-align:left}th{background:#ece8e1}td.num,th.num{text-align:right}
th[title]{text-decoration:underline dotted;cursor:help}.tablebox{max-width:100%;overflow-x:auto}
.muted{color:#777}.prov{color:#a15c00}
#bracket{max-width:100%;height:auto;border:1px solid #c9c4bb;background:#fff}
@media (min-width:980px){
main.review{grid-template-columns:minmax(0,calc((100vh - 175px) * var(--ratio,1))) minmax(260px,340px)}
.review .boardcol{min-width:min(520px,100%)}
#moves{max-height:calc(100vh - 170px)}
.side{position:sticky;top:8px}
}
@media print{
body{background:#fff;font-size:11pt}.nav,.links,#tip{display:none}
main.review{display:block}#board{max-height:none;width:70%;margin:0 auto;border:0}
.side{border:0;position:static}#moves{max-height:none;overflow:visible;columns:3;column-gap:18px}
#moves li{break-inside:avoid;padding:1px 4px}#moves li.on{background:none}.chartbox{max-width:16cm}
}
"""

_SCRIPT = r"""
(function(){
const D=JSON.parse(document.getElementById('data').textContent);
const B=D.boards, img=document.getElementById('board'), plyEl=document.getElementById('ply');
const cap=document.getElementById('caption'), chart=document.getElementById('chart');
const tip=document.getElementById('tip'), cursor=document.getElementById('cursor');
const cache=new Map(); let cur=D.plies, token=0;
function load(src){ if(!cache.has(src)){ const im=new Image(); im.src='data:image/png;base64,'+src;
  cache.set(src, im.decode().then(()=>im)); } return cache.get(src); }
const canvas=document.createElement('canvas'), ctx=canvas.getContext('2d');
async function paint(n){
  let k=n; while(!B.frames[k].key) k--;
  const key=await load(B.frames[k].key);
  canvas.width=key.naturalWidth; canvas.height=key.naturalHeight; ctx.drawImage(key,0,0);
  const t=B.tile;
  for(let i=k+1;i<=n;i++){ const f=B.frames[i]; if(!f.strip) continue; const s=await load(f.strip);
    f.tiles.forEach((p,j)=>ctx.drawImage(s,j*t,0,t,t,p[0],p[1],t,t)); }
  return canvas.toDataURL('image/png');
}
function xOf(n){ const l=+chart.dataset.left, r=+chart.dataset.right, w=+chart.dataset.width;
  return l+(w-l-r)*n/Math.max(1,+chart.dataset.plies); }
function mark(n){
  document.querySelectorAll('#moves li.on').forEach(li=>li.classList.remove('on'));
  const li=document.querySelector('#moves li[data-ply="'+n+'"]');
  if(li){ li.classList.add('on'); const box=document.getElementById('moves');
    if(box.scrollHeight>box.clientHeight) box.scrollTop=Math.max(0, li.offsetTop-box.clientHeight/2); }
  if(chart){
    chart.querySelectorAll('[aria-current]').forEach(p=>p.removeAttribute('aria-current'));
    const pt=chart.querySelector('[data-ply="'+n+'"]');
    if(pt){ pt.setAttribute('aria-current','true'); if(tip) tip.textContent=pt.dataset.tip; }
    else if(tip){ tip.textContent=''; }
    if(cursor){ const x=xOf(n).toFixed(1); cursor.setAttribute('x1',x); cursor.setAttribute('x2',x); }
  }
}
async function show(n){
  n=Math.max(0,Math.min(D.plies,n)); if(n===cur) return; cur=n; const my=++token;
  plyEl.textContent=String(n); cap.textContent=D.captions[n]; mark(n);
  const url = n===D.plies ? 'data:image/png;base64,'+B.last : await paint(n);
  if(my===token){ img.src=url; img.dataset.ply=String(n); }
}
document.addEventListener('keydown',ev=>{
  if(ev.altKey||ev.ctrlKey||ev.metaKey) return;
  const k={ArrowRight:cur+1,ArrowLeft:cur-1,Home:0,End:D.plies}[ev.key];
  if(k!==undefined){ ev.preventDefault(); show(k); }
});
document.addEventListener('click',ev=>{
  const el=ev.target.closest('[data-ply]');
  if(el && el!==img && el!==chart){ show(parseInt(el.dataset.ply,10)); return; }
  if(chart && chart.contains(ev.target)){
    const box=chart.getBoundingClientRect(), w=+chart.dataset.width, l=+chart.dataset.left, r=+chart.dataset.right;
    const x=(ev.clientX-box.left)*w/box.width;
    show(Math.round((x-l)/(w-l-r)*(+chart.dataset.plies)));
  }
});
if(chart){
  chart.addEventListener('mouseover',ev=>{
    const p=ev.target.closest('circle[data-tip]'); if(p&&tip) tip.textContent=p.dataset.tip; });
  chart.addEventListener('mouseleave',()=>mark(cur));
}
const nav={first:0,prev:-1,next:1,last:D.plies};
Object.keys(nav).forEach(id=>document.getElementById(id).addEventListener('click',()=>{
  show(id==='prev'||id==='next'?cur+nav[id]:nav[id]); }));
cap.textContent=D.captions[cur]; mark(cur);
})();
"""

_TEMPLATE = (
    '<!doctype html><html lang="en"><head><meta charset="utf-8">'
    + _CSP.replace("{", "{{").replace("}", "}}")
    + """
<meta name="viewport" content="width=device-width,initial-scale=1"><title>{title}</title><style>{style}</style>
</head><body><header class="top"><h1>{title}</h1><p id="result">{result}</p>{accuracy}<p class="links">{links}</p>
</header><main class="review" style="--ratio:{ratio}"><section class="boardcol"><div class="nav">
<button id="first" title="Start (Home)">«</button>
<button id="prev" title="Back (←)">‹</button><span class="at">ply <span id="ply">{last}</span> / {last}</span>
<button id="next" title="Forward (→)">›</button><button id="last" title="End (End)">»</button>
<span id="caption"></span></div>
<img id="board" alt="the board" data-ply="{last}" src="data:image/png;base64,{board}">{analysis}</section>
<aside class="side"><h2>Moves</h2><ol id="moves">{moves}</ol></aside></main>
<section class="below"><h2>Match</h2><dl id="info">{facts}</dl></section>
<script type="application/json" id="data">{data}</script><script>{script}</script></body></html>
"""
)
