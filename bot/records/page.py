"""A match's review page: one self-contained HTML document (boards inline, no request leaves it).

Hooks fixed by CONTRACT.md ("Match review pages"): `#result`, `#ply`, `#board`, `#moves [data-ply]`,
`#analysis [data-ply][data-verdict]`, ←/→ and Home/End, opens on the last ply. Every string a player
gave (names, move texts, reasons) goes through `html.escape`; the data block is JSON with `<` escaped.
"""

from __future__ import annotations

import datetime as dt
import html
import json
from collections.abc import Mapping, Sequence
from typing import Any

from bot.host.rules import log_rewind
from bot.records.analysis import ANALYSED_GAMES
from bot.records.matchlog import build_log, result_of
from bot.records.pageframes import encode_frames, render_frames
from bot.records.replay import clock_shown
from bot.store.matches import EntryKind, StoredMatch
from bot.types import OVER_STATUSES, MatchStatus
from bot.wording import _SHOWN_KINDS, clock_words, rule_words
from bot.wording.log import entry_time, fill_entry, rules_words, spans_days, used_text
from bot.wording.review import analysis_pending
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


def _moves_html(stored: StoredMatch, frames: Sequence[Any], marks: Mapping[int, Mapping[str, Any]]) -> str:
    """The move list: one `li[data-ply]` per ply of the final line, with the other events (illegal tries,
    rewinds, presence, pauses...) after the ply they happened at."""
    names = {s: n for s, (_pid, n) in stored.players.items()}
    dated = spans_days([_utc(ev.at) for ev in stored.events])
    notes: dict[int, list[str]] = {}
    line: list[int] = []  # the ply counter along the log, as the replay counts it
    ply = 0
    for ev in stored.events:
        data = {"kind": ev.kind, "seat": ev.seat, "text": ev.text, **ev.data}
        if ev.kind == EntryKind.MOVE:
            ply += 1
            line.append(ply)
            continue
        rewound = log_rewind(ev.kind, ev.data, ply)
        ply = ply if rewound is None else rewound
        if ev.kind in _SKIP:
            continue
        said = _event_text(data, names)
        if dated:
            said = f"{entry_time(_utc(ev.at), True)} UTC · {said}"
        notes.setdefault(ply, []).append(said)
    rows = []
    for f in frames:
        if f.ply == 0:
            body = '<span class="mv">start</span>'
        else:
            clocks = " · ".join(
                f"{e(names.get(s, '?'))} {clock_shown(v, stored.clock)}" for s, v in sorted(f.clocks.items())
            )
            used = used_text(f.used, stored.clock) if f.used is not None else ""
            if dated and f.at is not None:  # a match played over days: each move with its date
                used = f"{used} · {entry_time(_utc(f.at), True)} UTC".removeprefix(" · ")
            mark = marks.get(f.ply)
            verdict = ""
            if mark is not None:
                value = mark.get("value_p1")
                verdict = f' <span class="v {e(mark["verdict"])}">{e(mark["verdict"])}' + (
                    f" {value:+g}" if isinstance(value, int | float) else ""
                )
                verdict += "</span>"
            body = (
                f'<span class="n">{f.ply}.</span> <span class="who">{e(names.get(f.seat or 0, "?"))}</span> '
                f'<span class="mv">{e(str(f.move))}</span>{verdict} <span class="t">{e(used)}</span> '
                f'<span class="c">{clocks}</span>'
            )
        rows.append(f'<li data-ply="{f.ply}">{body}</li>')
        rows.extend(f'<li class="ev">{e(text)}</li>' for text in notes.get(f.ply, []))
    for extra in sorted(k for k in notes if k >= len(frames)):
        rows.extend(f'<li class="ev">{e(text)}</li>' for text in notes[extra])
    return "\n".join(rows)


def _chart(marks: Sequence[Mapping[str, Any]], plies: int) -> str:
    """Values (seat 1's side) over the game as an inline SVG; each point has `data-ply`."""
    points = [(m["ply"], float(m["value_p1"])) for m in marks if isinstance(m.get("value_p1"), int | float)]
    if not points:
        return ""
    width, height = 600, 160
    top = max(1.0, max(abs(v) for _p, v in points))

    def xy(p: int, v: float) -> tuple[float, float]:
        return (10 + (width - 20) * p / max(1, plies), height / 2 - (height / 2 - 10) * v / top)

    path = " ".join(f"{x:.1f},{y:.1f}" for x, y in (xy(p, v) for p, v in points))
    dots = "".join(
        f'<circle class="pt {e(m["verdict"])}" data-ply="{m["ply"]}" cx="{xy(m["ply"], float(m["value_p1"]))[0]:.1f}" '
        f'cy="{xy(m["ply"], float(m["value_p1"]))[1]:.1f}" r="5"><title>{m["ply"]}: {e(m["verdict"])}</title></circle>'
        for m in marks
        if isinstance(m.get("value_p1"), int | float)
    )
    return (
        f'<svg id="chart" viewBox="0 0 {width} {height}" width="{width}" height="{height}" role="img" '
        f'aria-label="values over the game"><line x1="0" x2="{width}" y1="{height / 2}" y2="{height / 2}" '
        f'class="axis"/><polyline points="{path}" class="line"/>{dots}</svg>'
    )


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
    title = f"{TITLES.get(stored.game, stored.game)} — {names.get(1, '?')} vs {names.get(2, '?')}"
    over = stored.status in OVER_STATUSES
    result = result_of(stored) if over else f"In progress ({result_of(stored)})."
    facts = [
        ("Game", TITLES.get(stored.game, stored.game)),
        ("Players", f"{names.get(1, '?')} (1) vs {names.get(2, '?')} (2)"),
        ("Options", ", ".join(f"{k}={v}" for k, v in stored.options.items()) or "defaults"),
        ("Clock", clock_words(stored.clock, with_window=log.get("rules") is None)),
        ("House rules", rules_words(log.get("rules"))),
        ("Played", _when(stored.created_at)),
        *[("Context", line) for line in context],
    ]
    facts_html = "".join(f"<dt>{e(k)}</dt><dd>{e(str(v))}</dd>" for k, v in facts)
    link_html = " · ".join(f'<a href="{e(href)}">{e(text)}</a>' for text, href in (links or {}).items())
    analysis_html = ""
    if pending:
        analysis_html = f'<section><h2>Analysis</h2><p id="analysis-pending">{e(analysis_pending())}</p></section>'
    elif marks:
        engines = sorted({str(m.get("engine", "")) for m in marks} - {""})
        items = "".join(
            f'<li data-ply="{m["ply"]}" data-verdict="{e(m["verdict"])}" class="v {e(m["verdict"])}">'
            f"{m['ply']}. {e(str(m.get('move', '')))} — {e(m['verdict'])}"
            + (f" ({float(m['value_p1']):+g})" if isinstance(m.get("value_p1"), int | float) else "")
            + "</li>"
            for m in marks
        )
        counts = ", ".join(
            f"{sum(1 for m in marks if m['verdict'] == v)} {v}"
            for v in VERDICTS
            if any(m["verdict"] == v for m in marks)
        )
        analysis_html = (
            f"<section><h2>Analysis</h2><p>{e(', '.join(engines))}: {e(counts)}. Values: seat 1's margin "
            f"(up is good for {e(names.get(1, '?'))}).</p>{_chart(marks, len(frames) - 1)}"
            f'<ol id="analysis">{items}</ol></section>'
        )
    data = {"boards": boards, "plies": len(frames) - 1, "captions": [f.caption for f in frames]}
    blob = json.dumps(data, separators=(",", ":")).replace("<", "\\u003c")
    last = len(frames) - 1
    return _TEMPLATE.format(
        title=e(title),
        result=e(result),
        links=link_html,
        facts=facts_html,
        last=last,
        board=boards["last"],
        moves=_moves_html(stored, frames, by_ply),
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


def index_page(title: str, sections: Sequence[tuple[str, Sequence[tuple[str, str | None]]]]) -> str:
    """A plain list page (server, tournament): each section a heading and (text, link or None) rows."""
    body = []
    for heading, rows in sections:
        items = "".join(
            f'<li><a href="{e(href)}">{e(text)}</a></li>' if href else f"<li>{e(text)}</li>" for text, href in rows
        )
        body.append(f"<section><h2>{e(heading)}</h2><ul>{items or '<li>none</li>'}</ul></section>")
    return (
        f'<!doctype html><html lang="en"><head><meta charset="utf-8">{_CSP}<title>{e(title)}</title>'
        f"<style>{_STYLE}</style></head><body><h1>{e(title)}</h1>{''.join(body)}</body></html>"
    )


_CSP = (
    '<meta http-equiv="Content-Security-Policy" content="default-src \'none\'; img-src data: blob:; '
    "style-src 'unsafe-inline'; script-src 'unsafe-inline'\">"
)

_STYLE = """
body{font:15px/1.4 system-ui,sans-serif;margin:0 auto;max-width:1400px;padding:12px;color:#222;background:#fafafa}
h1{font-size:20px;margin:4px 0}h2{font-size:16px;margin:12px 0 4px}
#result{font-weight:600}.wrap{display:flex;gap:16px;flex-wrap:wrap;align-items:flex-start}
.boardbox{flex:1 1 560px;max-width:980px}#board{max-width:100%;height:auto;border:1px solid #ccc;background:#fff}
.side{flex:0 1 420px;min-width:300px}
#moves{position:relative;max-height:70vh;overflow:auto;margin:0;padding:0;list-style:none;
border:1px solid #ccc;background:#fff}#moves li{padding:2px 6px;border-bottom:1px solid #eee;cursor:pointer}
#moves li.ev{cursor:default;color:#666;font-size:13px;padding-left:22px}#moves li.on{background:#ffe9a8}
.t,.c{color:#666;font-size:12px}.v{border-radius:3px;padding:0 4px;font-size:12px}.best{background:#cfe8cf}
.good{background:#e3f1d9}.inaccuracy{background:#fff2b3}.mistake{background:#ffd3a3}.blunder{background:#f6a6a6}
dl{display:grid;grid-template-columns:max-content 1fr;gap:2px 10px;margin:6px 0}dt{color:#666}dd{margin:0}
#chart{max-width:100%;background:#fff;border:1px solid #ccc}#chart .axis{stroke:#bbb}
#chart .line{fill:none;stroke:#555;stroke-width:1.5}#chart circle{cursor:pointer;stroke:#333;fill:#cfe8cf}
#chart circle.inaccuracy{fill:#f3d34a}#chart circle.mistake{fill:#f39c34}#chart circle.blunder{fill:#d9302c}
#analysis{list-style:none;padding:0;display:flex;flex-wrap:wrap;gap:4px}#analysis li{cursor:pointer}
.nav button{font-size:16px;min-width:40px}
"""

_SCRIPT = r"""
(function(){
const D=JSON.parse(document.getElementById('data').textContent);
const B=D.boards, img=document.getElementById('board'), plyEl=document.getElementById('ply');
const cap=document.getElementById('caption');
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
function mark(n){
  document.querySelectorAll('#moves li.on').forEach(li=>li.classList.remove('on'));
  const li=document.querySelector('#moves li[data-ply="'+n+'"]');
  if(li){ li.classList.add('on'); const box=document.getElementById('moves');
    box.scrollTop=Math.max(0, li.offsetTop-box.clientHeight/2); }
}
async function show(n){
  n=Math.max(0,Math.min(D.plies,n)); if(n===cur) return; cur=n; const my=++token;
  plyEl.textContent=String(n); cap.textContent=D.captions[n]; mark(n);
  const url = n===D.plies ? 'data:image/png;base64,'+B.last : await paint(n);
  if(my===token){ img.src=url; img.dataset.ply=String(n); }
}
document.addEventListener('keydown',ev=>{
  const k={ArrowRight:cur+1,ArrowLeft:cur-1,Home:0,End:D.plies}[ev.key];
  if(k!==undefined){ ev.preventDefault(); show(k); }
});
document.addEventListener('click',ev=>{
  const el=ev.target.closest('[data-ply]'); if(el && el!==img) show(parseInt(el.dataset.ply,10));
});
const nav={first:0,prev:-1,next:1,last:D.plies};
Object.keys(nav).forEach(id=>document.getElementById(id).addEventListener('click',()=>{
  show(id==='prev'||id==='next'?cur+nav[id]:nav[id]); }));
mark(cur);
})();
"""

_TEMPLATE = (
    '<!doctype html><html lang="en"><head><meta charset="utf-8">'
    + _CSP.replace("{", "{{").replace("}", "}}")
    + """
<meta name="viewport" content="width=device-width,initial-scale=1"><title>{title}</title><style>{style}</style>
</head><body><h1>{title}</h1><p id="result">{result}</p><p class="links">{links}</p>
<div class="wrap"><div class="boardbox"><div class="nav"><button id="first" title="Home">«</button>
<button id="prev" title="←">◀</button> ply <span id="ply">{last}</span> / {last}
<button id="next" title="→">▶</button><button id="last" title="End">»</button>
<span id="caption"></span></div>
<img id="board" alt="the board" data-ply="{last}" src="data:image/png;base64,{board}">{analysis}</div>
<div class="side"><dl>{facts}</dl><h2>Moves</h2><ol id="moves">{moves}</ol></div></div>
<script type="application/json" id="data">{data}</script><script>{script}</script></body></html>
"""
)
