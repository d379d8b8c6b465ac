"""The frame every board picture shares (panel, title, seat lines, status) and the renderer contract."""

from __future__ import annotations

from abc import ABC, abstractmethod
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass
from typing import Any, ClassVar

from PIL import Image, ImageDraw, ImageFont

from games.base import AnyRuleset, Seat
from games.coords import col_to_letters
from games.pictures.style import RGB, Palette, Theme, disc, font, mix, paste_centered

MAX_WIDTH = 1000
"""No picture is wider than this (Discord shows wider images scaled down)."""
MARGIN = 14
BORDER = 2
MIN_WIDTH = 380

Clock = float | int | str


@dataclass
class Ctx:
    """Everything a board renderer draws with: the image, its origin, colours and the move context."""

    image: Image.Image
    draw: ImageDraw.ImageDraw
    x0: int
    y0: int
    theme: Theme
    palette: Palette
    ruleset: AnyRuleset
    last_move: Any
    """The last move as text or as the engine's move value, or None."""
    previous: Any
    """The state before the last move, when known."""
    history: Sequence[Any]
    """Every earlier state, oldest first (may be empty)."""
    highlight: bool = True
    """False: draw no last-move marks at all."""
    names: Mapping[Seat, str] | None = None
    """Players' names by seat, when known."""


class BoardRenderer(ABC):
    """Draws one game's board; the frame around it is shared."""

    game_id: ClassVar[str]
    score_word: ClassVar[tuple[str, str] | None] = None
    """Singular and plural of what the score counts; None hides the score."""

    @abstractmethod
    def board_size(self, state: Any) -> tuple[int, int]:
        """Pixel size of the board area (labels included); width at most MAX_WIDTH - 2 * MARGIN."""

    @abstractmethod
    def draw_board(self, ctx: Ctx, state: Any) -> None:
        """Draw the board with its top-left corner at (ctx.x0, ctx.y0)."""

    def colour_word(self, ruleset: AnyRuleset, state: Any, seat: Seat) -> str:
        """The colour a seat plays, as a word ('red', 'blue', 'white'); default seat 1 red, seat 2 blue."""
        return "red" if seat == 1 else "blue"

    def seat_colour(self, ruleset: AnyRuleset, state: Any, palette: Palette, seat: Seat) -> RGB:
        """The colour a seat plays (default: the palette's seat colour)."""
        return palette.seat(seat)

    def seat_note(self, ruleset: AnyRuleset, state: Any, seat: Seat) -> str:
        """Extra words after the seat's name and colour, e.g. its reserve."""
        return ""

    def status(self, ruleset: AnyRuleset, state: Any, name: Callable[[Seat], str]) -> str | None:
        """A game-specific status line replacing the default 'NAME to move', or None; `name(seat)` names a seat."""
        return None

    def last_words(self, ruleset: AnyRuleset, state: Any, previous: Any, text: str) -> str:
        """How the status line names the last move (`text`: its notation in the position before it)."""
        return text

    def seat_word(self, seat: Seat) -> str:
        """How a seat without a name and without a colour yet is called."""
        return "first player" if seat == 1 else "second player"

    def key(self, ruleset: AnyRuleset, state: Any, previous: Any) -> Sequence[tuple[str, str]]:
        """What the marks drawn on this board mean, as (mark, words) pairs for the key line under the status
        (`draw_mark` draws each mark's swatch); empty (the default): no key line."""
        return ()

    def draw_mark(self, draw: ImageDraw.ImageDraw, mark: str, box: tuple[int, int, int, int], theme: Theme) -> None:
        """Draw the swatch of one `key` mark inside `box` (left, top, right, bottom); by default a plain ink square."""
        draw.rectangle(box, outline=theme.ink)


def clock_text(value: Clock) -> str:
    """Seconds → 'm:ss' (negative shows as 0:00); text as given."""
    if isinstance(value, str):
        return value
    secs = max(0, int(value + 0.999))
    return f"{secs // 60}:{secs % 60:02d}"


def col_label(col: int) -> str:
    """Column letters of the move notation."""
    return col_to_letters(col)


def text_width(text: str, kind: str, size: int) -> int:
    """Rendered width of a text line."""
    return round(font(kind, size).getlength(text))


def fit(text: str, fnt: ImageFont.FreeTypeFont, room: float) -> str:
    """`text`, shortened with an ellipsis when it is wider than `room` pixels."""
    if fnt.getlength(text) <= room:
        return text
    lo, hi = 0, len(text)
    while lo < hi:  # the longest prefix that fits with the ellipsis
        mid = (lo + hi + 1) // 2
        if fnt.getlength(text[:mid].rstrip() + "…") <= room:
            lo = mid
        else:
            hi = mid - 1
    return text[:lo].rstrip() + "…"


def wrap(text: str, fnt: ImageFont.FreeTypeFont, room: float, max_lines: int) -> list[str]:
    """`text` broken at spaces into lines at most `room` pixels wide, at most `max_lines` of them (only the
    last one shortened with an ellipsis, and only when the text does not fit in that many lines)."""
    words = text.split(" ")
    lines: list[str] = []
    current = ""
    for i, word in enumerate(words):
        trial = f"{current} {word}" if current else word
        if fnt.getlength(trial) <= room or not current:
            current = trial
            continue
        if len(lines) == max_lines - 1:
            current = " ".join([current, *words[i:]])
            break
        lines.append(current)
        current = word
    lines.append(current)
    return [fit(text_line, fnt, room) for text_line in lines]


STATUS_LINES = 3
CAPTION_LINES = 3
MAX_LAST = 160
"""The longest move text named on the status line (a Dot Dash setup, a long Trax cell-and-sides move)."""

TITLE_SIZE = 17
LINE_SIZE = 14
LINE_GAP = 6
HEADER = MARGIN + TITLE_SIZE + LINE_GAP + 2 * (LINE_SIZE + LINE_GAP) + LINE_GAP
"""Height of the title and legend above the board: the board's top edge (it is centred across)."""


def render_frame(
    renderer: BoardRenderer,
    ruleset: AnyRuleset,
    state: Any,
    *,
    theme: Theme,
    palette: Palette,
    last_move: Any,
    previous: Any,
    history: Sequence[Any],
    clocks: Mapping[Seat, Clock] | None,
    title: str | None,
    names: Mapping[Seat, str] | None,
    caption: str | None,
    result: str | None = None,
    highlight: bool = True,
    winner: Seat | None = None,
    final: bool = True,
) -> Image.Image:
    """The whole picture: panel, title, one legend line per player, the board, the status line, the caption.

    `winner`: the seat that won however the match ended (time, resignation, award: the engine does not
    know); it gets the star. `final=False`: the engine's result is not the match's yet (a mulligan may
    still undo it, a take-back window is open): no star, and the status line says it is not final.
    """
    bw, bh = renderer.board_size(state)
    width = min(MAX_WIDTH, max(MIN_WIDTH, bw + 2 * MARGIN))
    title_h = TITLE_SIZE + LINE_GAP
    seat_h = LINE_SIZE + LINE_GAP
    header_h = HEADER
    line = width - 2 * MARGIN

    def name(seat: Seat) -> str:
        return seat_name(renderer, ruleset, state, names, seat)

    # Status line (and the caption under it), wrapped rather than cut.
    status = status_line(
        renderer, ruleset, state, names=names, last_move=last_move, previous=previous, result=result, final=final
    )
    status_font, caption_font = font("sans", LINE_SIZE), font("mono", LINE_SIZE - 1)
    status_lines = wrap(status, status_font, line, STATUS_LINES)
    caption_lines = wrap(caption, caption_font, line, CAPTION_LINES) if caption else []
    key_lines = key_layout(renderer.key(ruleset, state, previous) if highlight else (), status_font, line)
    footer_h = (len(status_lines) + len(key_lines) + len(caption_lines)) * (LINE_SIZE + LINE_GAP) + MARGIN
    height = header_h + bh + LINE_GAP + footer_h
    image = Image.new("RGB", (width, height), theme.background)
    draw = ImageDraw.Draw(image)
    draw.rectangle((0, 0, width - 1, height - 1), outline=theme.border, width=BORDER)

    # Title line.
    draw.text((MARGIN, MARGIN), title or ruleset.title, fill=theme.ink, font=font("bold", TITLE_SIZE))

    # Legend: one line per player: marker, colour swatch, name and colour, score, clock.
    outcome = ruleset.outcome(state)
    to_move = None if result or (outcome is not None and final) else ruleset.to_move(state)
    if winner is None and final and outcome is not None:
        winner = outcome.winner
    scores = ruleset.scores(state)
    y = MARGIN + title_h
    for seat in (1, 2):
        colour = renderer.seat_colour(ruleset, state, palette, seat)
        active = to_move == seat
        won = winner == seat
        fnt = font("bold" if active or won else "sans", LINE_SIZE)
        cy = y + LINE_SIZE / 2 + 1
        marker = "▶" if active else "★" if won else ""
        if marker:
            draw.text((MARGIN, y), marker, fill=theme.ink, font=font("sans", LINE_SIZE - 2))
        paste_centered(image, disc(LINE_SIZE, colour, mix(colour, theme.ink, 0.6), 1.2), MARGIN + 24, cy)
        right = width - MARGIN
        if clocks is not None and seat in clocks:
            ct = clock_text(clocks[seat])
            cw = text_width(ct, "mono", LINE_SIZE)
            draw.text((right - cw, y), ct, fill=theme.ink, font=font("mono", LINE_SIZE))
            right -= cw + 18
        if renderer.score_word:
            n = scores.get(seat, 0)
            st = f"{n} {renderer.score_word[0] if n == 1 else renderer.score_word[1]}"
            sw = round(fnt.getlength(st))
            draw.text((right - sw, y), st, fill=theme.ink, font=fnt)
            right -= sw + 14
        word = renderer.colour_word(ruleset, state, seat)
        note = renderer.seat_note(ruleset, state, seat)
        given = (names or {}).get(seat)
        room = right - (MARGIN + 36)
        if not word:  # no colour yet (Dot Dash before the choice): the name and the seat's part
            label = given or renderer.seat_word(seat).capitalize()
            if note and fnt.getlength(f"{label} · {note}") <= room:
                label = f"{label} · {note}"
        elif given:
            # A long name drops the reserve note, then is shortened; the colour word always stays.
            label = f"{given} · {word}" + (f", {note}" if note else "")
            if fnt.getlength(label) > room:
                label = fit(given, fnt, room - fnt.getlength(f" · {word}")) + f" · {word}"
        else:
            label = word.capitalize() + (f" · {note}" if note else "")
        label = fit(label, fnt, room)
        draw.text((MARGIN + 36, y), label, fill=theme.ink, font=fnt)
        y += seat_h

    # The board, centred.
    x0 = (width - bw) // 2
    y0 = header_h
    ctx = Ctx(image, draw, x0, y0, theme, palette, ruleset, last_move, previous, history, highlight, names)
    renderer.draw_board(ctx, state)

    y = header_h + bh + LINE_GAP
    for text in status_lines:
        draw.text((MARGIN, y), text, fill=theme.ink, font=status_font)
        y += LINE_SIZE + LINE_GAP
    for entries in key_lines:
        for dx, mark, words in entries:
            renderer.draw_mark(draw, mark, (MARGIN + dx, y + 1, MARGIN + dx + LINE_SIZE, y + 1 + LINE_SIZE), theme)
            draw.text((MARGIN + dx + LINE_SIZE + KEY_GAP, y), words, fill=theme.ink, font=status_font)
        y += LINE_SIZE + LINE_GAP
    for text in caption_lines:
        draw.text((MARGIN, y), text, fill=theme.ink, font=caption_font)
        y += LINE_SIZE + LINE_GAP
    return image


KEY_GAP = 6
"""Pixels between a key swatch and its words; three times that between two entries."""


def key_layout(
    entries: Sequence[tuple[str, str]], fnt: ImageFont.FreeTypeFont, room: float
) -> list[list[tuple[int, str, str]]]:
    """The key's entries laid out in lines `room` pixels wide: (x offset, mark, words) per entry."""
    lines: list[list[tuple[int, str, str]]] = []
    x = 0
    for mark, words in entries:
        width = LINE_SIZE + KEY_GAP + round(fnt.getlength(words))
        if not lines or (x and x + width > room):
            lines.append([])
            x = 0
        lines[-1].append((x, mark, words))
        x += width + 3 * KEY_GAP
    return lines


def seat_name(
    renderer: BoardRenderer, ruleset: AnyRuleset, state: Any, names: Mapping[Seat, str] | None, seat: Seat
) -> str:
    """A seat's name, else its colour, else its part ("First player")."""
    given = (names or {}).get(seat)
    return given or (renderer.colour_word(ruleset, state, seat) or renderer.seat_word(seat)).capitalize()


def status_line(
    renderer: BoardRenderer,
    ruleset: AnyRuleset,
    state: Any,
    *,
    names: Mapping[Seat, str] | None = None,
    last_move: Any = None,
    previous: Any = None,
    result: str | None = None,
    final: bool = True,
) -> str:
    """The text under the board, before it is wrapped: the result or whose turn, and the last move."""
    status = result or _status(renderer, ruleset, state, lambda s: seat_name(renderer, ruleset, state, names, s), final)
    last = _last_text(ruleset, last_move, previous)
    if last:
        status += f" · last: {renderer.last_words(ruleset, state, previous, last)}"
    return status


def _status(
    renderer: BoardRenderer, ruleset: AnyRuleset, state: Any, name: Callable[[Seat], str], final: bool = True
) -> str:
    outcome = ruleset.outcome(state)
    if outcome is not None and not final:
        if outcome.winner is None:
            return f"A draw ({outcome.reason}) · not final yet"
        return f"{name(outcome.winner)} would win ({outcome.reason}) · not final yet"
    special = renderer.status(ruleset, state, name)
    if special is not None:
        return special
    if outcome is not None:
        if outcome.winner is None:
            return f"Draw ({outcome.reason})"
        return f"{name(outcome.winner)} wins ({outcome.reason})"
    seat = ruleset.to_move(state)
    return f"{name(seat or 1)} to move"


def _last_text(ruleset: AnyRuleset, last_move: Any, previous: Any) -> str | None:
    if last_move is None:
        return None
    if isinstance(last_move, str):
        return last_move.strip()[:MAX_LAST]
    if previous is not None:
        try:
            return ruleset.format(previous, last_move)
        except Exception:  # a move that does not fit the state: show nothing rather than fail
            return None
    return None
