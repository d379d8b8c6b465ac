"""The review pages that list: a tournament (standings with their tie-breaks, the winner and the prize, a
crosstable or a bracket, the rounds with a link to each game), a server (live matches, recent results, a
leaderboard per game with the ratings' deviations) and the landing page at `/`, which shows no data.

Hooks fixed by CONTRACT.md ("Match review pages"): `#standings` (a table; tie-break headers carry a
`title`), `#result`, `#crosstable` (round robins), `#bracket` (eliminations), `#leaderboard` (a table per
game with a deviation column). Every name goes through `html.escape`.
"""

from __future__ import annotations

import base64
import html
from collections.abc import Mapping, Sequence
from dataclasses import dataclass

from bot.ratings.views import Standing as Rated
from bot.records.page import _CSP, _STYLE
from bot.tournaments.model import FINISHED, Tournament
from bot.tournaments.rounds import Bye, Format, Game, Pairing, Result
from bot.tournaments.standings import BUCHHOLZ, HEAD_TO_HEAD, REACHED, SONNEBORN_BERGER, Standing
from bot.wording.tournament_told import round_title
from bot.wording.tournaments import TIEBREAK_LABELS, points_text
from games.base import TITLES

e = html.escape

TIEBREAK_TITLES = {
    BUCHHOLZ: "Buchholz: the sum of the points of every opponent played",
    SONNEBORN_BERGER: "Sonneborn–Berger: the points of the opponents beaten, plus half the points of those drawn",
    HEAD_TO_HEAD: "Head-to-head: the points scored in the games between the players level on points",
    REACHED: "The round reached in the bracket (the champion: one more than the rounds played)",
}
HEADERS = {**TIEBREAK_LABELS, REACHED: "Reached"}
"""The tie-break columns' headers (the channel's own short labels; the elimination's round reached spelled out)."""
FORMAT_WORDS = {
    Format.SWISS: "Swiss",
    Format.ROUND_ROBIN: "round robin",
    Format.DOUBLE_ROUND_ROBIN: "double round robin",
    Format.ELIMINATION: "single elimination",
}
STATUS_WORDS = {
    "signup": "open for sign-up",
    "running": "in play",
    "paused": "paused by the host",
    "finished": "finished",
    "cancelled": "cancelled",
}


def _doc(title: str, body: str) -> str:
    return (
        f'<!doctype html><html lang="en"><head><meta charset="utf-8">{_CSP}'
        '<meta name="viewport" content="width=device-width,initial-scale=1">'
        f'<title>{e(title)}</title><style>{_STYLE}</style></head><body><div class="page">{body}</div></body></html>'
    )


def _points(value: float) -> str:
    """Points and tie-breaks: halves as the channel says them (`2½`), quarters likewise (`2¼`, a
    Sonneborn–Berger of drawn games)."""
    whole, part = int(value), value - int(value)
    sign = {0.25: "¼", 0.75: "¾"}.get(round(part, 2))
    return points_text(value) if sign is None else f"{whole or ''}{sign}"


def _link(text: str, href: str | None) -> str:
    return f'<a href="{e(href)}">{e(text)}</a>' if href else e(text)


@dataclass(frozen=True)
class TournamentGame:
    """One pairing as the page shows it: its round and board, and its match page's address when it may be
    linked (None: no match yet, or a private room's)."""

    round: int
    board: int
    pairing: Pairing
    href: str | None


def _result_cell(p: Pairing) -> str:
    if isinstance(p, Bye):
        return f"bye ({points_text(p.points)})"
    if p.result is None:
        return "in play"
    text = {Result.WHITE: "1–0", Result.BLACK: "0–1", Result.DRAW: "½–½"}[p.result]
    return text + (" (forfeit)" if p.forfeit else "")


def _standings_table(t: Tournament, table: Sequence[Standing], names: Mapping[int, str]) -> str:
    breaks = list(table[0].tiebreaks) if table else []
    head = "".join(
        f'<th class="num" title="{e(TIEBREAK_TITLES.get(b, b))}">{e(HEADERS.get(b, b))}</th>' for b in breaks
    )
    rows = "".join(
        f'<tr><td class="num">{s.rank}</td><td>{e(names.get(s.player, "?"))}</td>'
        f'<td class="num">{e(_points(s.points))}</td>'
        + "".join(f'<td class="num">{e(_points(s.tiebreaks.get(b, 0.0)))}</td>' for b in breaks)
        + "</tr>"
        for s in table
    )
    return (
        '<div class="tablebox"><table id="standings"><thead><tr><th class="num">#</th><th>Player</th>'
        f'<th class="num" title="Points: a win 1, a draw ½, a bye as the host set it">Points</th>{head}</tr></thead>'
        f"<tbody>{rows or '<tr><td colspan=3>no players yet</td></tr>'}</tbody></table></div>"
    )


def _crosstable(table: Sequence[Standing], games: Sequence[TournamentGame], names: Mapping[int, str]) -> str:
    order = [s.player for s in table]
    cells: dict[tuple[int, int], list[str]] = {}
    for g in games:
        p = g.pairing
        if not isinstance(p, Game):
            continue
        for me in (p.white, p.black):
            mark = "·" if p.result is None else points_text(p.points(me)) if p.points(me) else "0"
            cells.setdefault((me, p.opponent(me)), []).append(_link(mark, g.href))
    head = "".join(f'<th class="num" title="{e(names.get(q, "?"))}">{i}</th>' for i, q in enumerate(order, 1))
    rows = []
    for i, me in enumerate(order, 1):
        tds = "".join(
            '<td class="num muted">—</td>' if me == q else f'<td class="num">{" ".join(cells.get((me, q), []))}</td>'
            for q in order
        )
        rows.append(f'<tr><td class="num">{i}</td><td>{e(names.get(me, "?"))}</td>{tds}</tr>')
    return (
        '<section><h2>Crosstable</h2><div class="tablebox"><table id="crosstable"><thead><tr><th class="num">#</th>'
        f"<th>Player</th>{head}</tr></thead><tbody>{''.join(rows)}</tbody></table></div>"
        '<p class="muted">Each cell: the row player\'s points against the column player (a link to the game).</p>'
        "</section>"
    )


def _rounds(t: Tournament, games: Sequence[TournamentGame], names: Mapping[int, str], total: int | None) -> str:
    by_round: dict[int, list[TournamentGame]] = {}
    for g in games:
        by_round.setdefault(g.round, []).append(g)
    out = []
    elimination = t.format is Format.ELIMINATION
    for number, rows in sorted(by_round.items()):
        body = []
        for g in sorted(rows, key=lambda g: g.board):
            p = g.pairing
            if isinstance(p, Bye):
                body.append(
                    f'<tr><td class="num">{g.board}</td><td>{e(names.get(p.player, "?"))}</td><td></td>'
                    f"<td>{e(_result_cell(p))}</td><td></td></tr>"
                )
                continue
            game = _link("game", g.href) if g.href else '<span class="muted">—</span>'
            body.append(
                f'<tr><td class="num">{g.board}</td><td>{e(names.get(p.white, "?"))}</td>'
                f"<td>{e(names.get(p.black, '?'))}</td><td>{e(_result_cell(p))}</td><td>{game}</td></tr>"
            )
        out.append(
            f'<section><h2>{e(round_title(number, total, elimination))}</h2><div class="tablebox"><table>'
            '<thead><tr><th class="num">Board</th><th>First</th><th>Second</th><th>Result</th><th>Page</th></tr>'
            f"</thead><tbody>{''.join(body)}</tbody></table></div></section>"
        )
    return "".join(out)


def tournament_page(
    t: Tournament,
    names: Mapping[int, str],
    table: Sequence[Standing],
    games: Sequence[TournamentGame],
    bracket_png: bytes | None = None,
    total_rounds: int | None = None,
) -> str:
    """A tournament's page (`names`: entry → name; `bracket_png`: the elimination's picture)."""
    fmt = FORMAT_WORDS.get(t.format, str(t.format))
    sub = f"{TITLES.get(t.game, t.game)} · {fmt} · {STATUS_WORDS.get(t.status, t.status)}"
    if t.status == FINISHED and table:
        winner = names.get(table[0].player, "?")
        result = f"Winner: {winner}" + (f" · prize: {t.prize}" if t.prize else "")
    else:
        shown = f"round {t.round}" + (f" of {total_rounds}" if total_rounds else "") if t.round else "not started"
        result = f"{STATUS_WORDS.get(t.status, t.status).capitalize()}, {shown}" + (
            f" · prize: {t.prize}" if t.prize else ""
        )
    body = [
        f'<h1>{e(t.name)}</h1><p>{e(sub)}</p><p id="result">{e(result)}</p>',
        f"<section><h2>Standings</h2>{_standings_table(t, table, names)}</section>",
    ]
    if t.format in (Format.ROUND_ROBIN, Format.DOUBLE_ROUND_ROBIN):
        body.append(_crosstable(table, games, names))
    if t.format is Format.ELIMINATION and bracket_png is not None:
        data = base64.b64encode(bracket_png).decode("ascii")
        body.append(
            f'<section><h2>Bracket</h2><img id="bracket" alt="the bracket of {e(t.name)}" '
            f'src="data:image/png;base64,{data}"></section>'
        )
    body.append(_rounds(t, games, names, total_rounds))
    return _doc(f"{t.name} — {TITLES.get(t.game, t.game)} tournament", "".join(body))


@dataclass(frozen=True)
class MatchRow:
    """One match on a server page: what it was and its page's address."""

    text: str
    href: str


def server_page(
    title: str, live: Sequence[MatchRow], recent: Sequence[MatchRow], boards: Mapping[str, Sequence[Rated]]
) -> str:
    """A server's page: its live matches, recent results and a leaderboard table per game."""

    def matches(heading: str, rows: Sequence[MatchRow]) -> str:
        items = "".join(f"<li>{_link(r.text, r.href)}</li>" for r in rows) or '<li class="muted">none</li>'
        return f"<section><h2>{e(heading)}</h2><ul>{items}</ul></section>"

    tables = []
    for game, rows in boards.items():
        trs = "".join(
            f'<tr><td class="num">{s.rank}</td><td>{e(s.name)}</td>'
            f'<td class="num">{s.rating:.0f}{"<span class=prov title=provisional>?</span>" if s.provisional else ""}'
            f'</td><td class="num">±{s.deviation:.0f}</td><td class="num">{s.games}</td>'
            f'<td class="num">{s.wins}–{s.draws}–{s.losses}</td></tr>'
            for s in rows
        )
        tables.append(
            f'<h3>{e(TITLES.get(game, game))}</h3><div class="tablebox"><table data-game="{e(game)}">'
            '<thead><tr><th class="num">#</th><th>Player</th><th class="num" title="Glicko-2 rating; '
            'a ? marks a provisional one (few games, or a large deviation)">Rating</th><th class="num" '
            'title="Rating deviation: how uncertain the rating is (it grows while a player does not play)">'
            'Deviation</th><th class="num">Games</th><th class="num" title="Wins, draws, losses">W–D–L</th></tr>'
            f"</thead><tbody>{trs}</tbody></table></div>"
        )
    leaderboard = "".join(tables) or '<p class="muted">No rated match yet.</p>'
    body = (
        f"<h1>{e(title)}</h1>"
        f'<section><h2>Leaderboards</h2><div id="leaderboard">{leaderboard}</div></section>'
        + matches("Live matches", live)
        + matches("Recent results", recent)
    )
    return _doc(title, body)


def landing_page() -> str:
    """`/`: what this server is, and no data (every page needs its signed address)."""
    body = (
        "<h1>Death Match review pages</h1><p>This server shows the review pages of Death Match games: a match, "
        "a tournament or a server's leaderboards. Each page has its own signed address; ask the host for it "
        "(<code>dmhost log MATCH_ID --url</code>, <code>dmhost tournament status ID --url</code>, "
        "<code>dmhost ratings --url</code>, or <code>/dm log</code> on Discord).</p>"
    )
    return _doc("Death Match review pages", body)
