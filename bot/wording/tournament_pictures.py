"""Pictures of a tournament: the standings table and the elimination bracket, as PNG bytes (Pillow)."""

from __future__ import annotations

import io
from collections.abc import Mapping, Sequence

from PIL import Image, ImageDraw

from bot.text import Text, as_text, strong
from bot.tournaments.pairing import elimination_progress
from bot.tournaments.rounds import Bye, Round
from bot.tournaments.standings import Standing
from bot.wording.tournament_told import round_title
from bot.wording.tournaments import TIEBREAK_LABELS, points_text
from games.pictures.style import font

BACKGROUND = (250, 248, 242)
INK = (30, 30, 30)
FAINT = (120, 120, 120)
RULE = (210, 205, 195)
STRIPE = (240, 236, 226)
WINNER = (40, 120, 60)
ROW = 30
PAD = 16


def _png(image: Image.Image) -> bytes:
    out = io.BytesIO()
    image.save(out, "PNG", compress_level=1)
    return out.getvalue()


def standings_png(title: str, table: Sequence[Standing], names: Mapping[int, str]) -> bytes:
    """The table: rank, player, points and each tie-break, one striped row per player."""
    keys = list(table[0].tiebreaks) if table else []
    headers = ["#", "player", "pts", *(TIEBREAK_LABELS.get(k, k) for k in keys)]
    rows = [
        [
            str(s.rank),
            names.get(s.player, str(s.player)),
            points_text(s.points),
            *(points_text(s.tiebreaks[k]) for k in keys),
        ]
        for s in table
    ]
    body, bold = font("sans", 16), font("bold", 16)
    widths = [
        max([int(bold.getlength(h)), *(int(body.getlength(r[i])) for r in rows)]) + 24  # no rows yet: the heading
        for i, h in enumerate(headers)
    ]
    width = max(sum(widths) + 2 * PAD, int(font("bold", 20).getlength(title)) + 2 * PAD)
    height = PAD * 2 + 34 + ROW * (len(rows) + 1)
    image = Image.new("RGB", (width, height), BACKGROUND)
    draw = ImageDraw.Draw(image)
    draw.text((PAD, PAD), title, font=font("bold", 20), fill=INK)
    y = PAD + 34
    x = PAD
    for w, h in zip(widths, headers, strict=True):
        draw.text((x, y + 6), h, font=bold, fill=FAINT)
        x += w
    draw.line((PAD, y + ROW - 2, width - PAD, y + ROW - 2), fill=RULE, width=2)
    for n, row in enumerate(rows):
        top = y + ROW * (n + 1)
        if n % 2:
            draw.rectangle((PAD, top, width - PAD, top + ROW - 1), fill=STRIPE)
        x = PAD
        for w, cell in zip(widths, row, strict=True):
            draw.text((x, top + 6), cell, font=bold if n == 0 else body, fill=WINNER if n == 0 else INK)
            x += w
    return _png(image)


Slot = tuple[list[int | None], int | None]
"""One box of the bracket: its players (None: not known yet, a winner still to come; one player: a bye) and
the winner, once there is one."""


def bracket_columns(rounds: Sequence[Round], total_rounds: int) -> list[list[Slot]]:
    """The bracket, a column per round of all `total_rounds`: the rounds paired so far as played, then the path
    ahead, each box fed by two boxes of the column before (their winners where known, else empty)."""
    columns: list[list[Slot]] = []
    for rnd in rounds:
        column: list[Slot] = []
        winners = set(elimination_progress(rnd).winners)
        seen: set[frozenset[int]] = set()
        for p in rnd:
            who = [p.player] if isinstance(p, Bye) else [p.white, p.black]
            key = frozenset(who)
            if key in seen:
                continue
            seen.add(key)
            column.append((list(who), next((w for w in who if w in winners), None)))
        columns.append(column)
    while columns and len(columns) < total_rounds and len(columns[-1]) > 1:
        prev = columns[-1]
        columns.append(
            [([prev[i][1], prev[i + 1][1] if i + 1 < len(prev) else None], None) for i in range(0, len(prev), 2)]
        )
    return columns


def bracket_lines(rounds: Sequence[Round], names: Mapping[int, str], total_rounds: int) -> list[Text]:
    """The bracket in words, a line per round (`Final: alice vs TBD`, each winner strong), the path ahead included."""

    def name(player: int | None, winner: int | None) -> str | Text:
        if player is None:
            return TBD
        shown = names.get(player, str(player))
        return strong(shown) if player == winner else shown

    lines = []
    for number, column in enumerate(bracket_columns(rounds, total_rounds), start=1):
        boxes = [
            name(who[0], won) + " (bye)" if len(who) == 1 else name(who[0], won) + " vs " + name(who[1], won)
            for who, won in column
        ]
        lines.append(f"{round_title(number, total_rounds, True)}: " + as_text(" · ").join(boxes))
    return lines


TBD = "TBD"
"""A place in the bracket whose player is not known yet."""


def bracket_png(title: str, rounds: Sequence[Round], names: Mapping[int, str], total_rounds: int) -> bytes:
    """The elimination bracket: a column per round (every round, the path ahead as empty boxes), each pairing a
    box with both names, the winner in bold."""
    body, bold = font("sans", 14), font("bold", 14)
    columns = bracket_columns(rounds, total_rounds)
    first = max(len(columns[0]) if columns else 1, 1)
    box_w, box_h, gap_x, head = 190, 44, 40, 24
    slot = box_h + 16
    width = PAD * 2 + (box_w + gap_x) * max(total_rounds, len(columns), 1)
    height = PAD * 2 + 34 + head + slot * first
    image = Image.new("RGB", (width, height), BACKGROUND)
    draw = ImageDraw.Draw(image)
    draw.text((PAD, PAD), title, font=font("bold", 20), fill=INK)
    for c, column in enumerate(columns):
        span = slot * first / max(len(column), 1)
        x = PAD + c * (box_w + gap_x)
        draw.text((x, PAD + 34), round_title(c + 1, total_rounds, True), font=bold, fill=FAINT)
        for i, (who, winner) in enumerate(column):
            top = PAD + 34 + head + span * i + (span - box_h) / 2
            ahead = all(p is None for p in who)
            draw.rectangle(
                (x, top, x + box_w, top + box_h), outline=RULE, fill=STRIPE if ahead else (255, 255, 255), width=2
            )
            lines = [TBD if p is None else names.get(p, str(p)) for p in who] + (["(bye)"] if len(who) == 1 else [])
            for j, (name, player) in enumerate(zip(lines, [*who, None], strict=False)):
                won = player is not None and player == winner
                fill = WINNER if won else FAINT if player is None and name == TBD else INK
                draw.text((x + 8, top + 4 + 20 * j), name[:24], font=bold if won else body, fill=fill)
            if c + 1 < len(columns):
                mid = top + box_h / 2
                draw.line((x + box_w, mid, x + box_w + gap_x / 2, mid), fill=RULE, width=2)
    return _png(image)
