"""A Discord-like picture of a channel, drawn with Pillow from the real `discord.Message` objects a member reads.

SimCord's own preview draws in a browser (Playwright and Chromium), which `pip install` cannot bring; this
draws what the preview would show and a member reads: author, bot badge, reply line, content (bold, quotes,
mentions, channel links, timestamps as Discord shows them), embeds and their fields, pictures as sent, buttons
and menus. The same pass writes a text transcript."""

from __future__ import annotations

import io
import re
from collections.abc import Sequence
from dataclasses import dataclass
from datetime import datetime

import discord
from PIL import Image, ImageDraw, ImageFont

from games.pictures.style import font

WIDTH = 860
PAD = 16
AVATAR = 40
TEXT_X = PAD + AVATAR + 16
TEXT_W = WIDTH - TEXT_X - PAD
IMAGE_MAX = (520, 420)
SIZE = 15
LINE = 22

BG = (49, 51, 56)
TEXT = (219, 222, 225)
MUTED = (148, 155, 164)
NAME = (242, 243, 245)
QUOTE_BAR = (78, 80, 88)
MENTION_BG = (60, 66, 112)
MENTION_FG = (201, 205, 251)
LINK = (0, 168, 252)
CODE_BG = (43, 45, 49)
EMBED_BG = (43, 45, 49)
BADGE = (88, 101, 242)
BUTTON = {
    discord.ButtonStyle.primary: (88, 101, 242),
    discord.ButtonStyle.secondary: (78, 80, 88),
    discord.ButtonStyle.success: (36, 128, 70),
    discord.ButtonStyle.danger: (218, 55, 60),
    discord.ButtonStyle.link: (78, 80, 88),
}
AVATARS = [(88, 101, 242), (87, 242, 135), (254, 231, 92), (235, 69, 158), (237, 66, 69), (59, 165, 93)]

TOKEN = re.compile(
    r"(\\[^0-9A-Za-z\s]|\*\*|__|`[^`]*`|<@!?\d+>|<@&\d+>|<#\d+>|<t:-?\d+(?::[tTdDfFR])?>|\[[^\]]+\]\([^)]+\)|https?://\S+|\s+|[^\s*_`<\[h\\]+|.)"
)


@dataclass
class Run:
    text: str
    bold: bool = False
    kind: str = "text"  # text, mention, link, code


class Words:
    """How Discord shows the markup of one message: names for mentions, channels, timestamps."""

    def __init__(self, message: discord.Message, now: datetime) -> None:
        self.message = message
        self.now = now

    def mention(self, token: str) -> Run:
        guild = self.message.guild
        number = int(re.sub(r"\D", "", token))
        if token.startswith("<#"):
            channel = guild.get_channel_or_thread(number) if guild is not None else None
            return Run(f"#{channel.name if channel is not None else 'unknown'}", kind="mention")
        if token.startswith("<@&"):
            role = guild.get_role(number) if guild is not None else None
            return Run(f"@{role.name if role is not None else 'role'}", kind="mention")
        member = guild.get_member(number) if guild is not None else None
        user = member or next((u for u in self.message.mentions if u.id == number), None)
        return Run(f"@{user.display_name if user is not None else 'unknown'}", kind="mention")

    def timestamp(self, token: str) -> Run:
        parts = token[3:-1].split(":")
        when = datetime.fromtimestamp(int(parts[0]), tz=self.now.tzinfo)
        style = parts[1] if len(parts) > 1 else "f"
        if style == "R":
            return Run(relative(when, self.now), kind="code")
        formats = {"t": "%H:%M", "T": "%H:%M:%S", "d": "%d/%m/%Y", "D": "%d %B %Y", "F": "%A, %d %B %Y %H:%M"}
        return Run(when.strftime(formats.get(style, "%d %B %Y %H:%M")), kind="code")

    def line(self, text: str) -> list[Run]:
        runs: list[Run] = []
        bold = False
        for token in TOKEN.findall(text):
            if token in ("**", "__"):
                bold = not bold
            elif len(token) == 2 and token.startswith("\\"):  # Discord shows an escaped mark as the mark alone
                runs.append(Run(token[1], bold))
            elif token.startswith("`") and token.endswith("`") and len(token) >= 2:
                runs.append(Run(token[1:-1], bold, "code"))
            elif token.startswith("<@") or token.startswith("<#"):
                runs.append(self.mention(token))
            elif token.startswith("<t:"):
                runs.append(self.timestamp(token))
            elif token.startswith("[") and "](" in token:
                runs.append(Run(token[1 : token.index("](")], bold, "link"))
            elif token.startswith("http"):
                runs.append(Run(token, bold, "link"))
            else:
                runs.append(Run(token, bold))
        return runs

    def plain(self, text: str) -> str:
        """The text a member reads, markup resolved (for the transcript)."""
        lines = []
        for raw in text.split("\n"):
            runs = self.line(raw[2:] if raw.startswith("> ") else raw)
            said, bold = "", False
            for run in runs:
                if run.bold != bold and (run.text.strip() or not run.bold):
                    said, bold = said + "**", run.bold
                said += run.text
            said += "**" if bold else ""
            lines.append(("> " if raw.startswith("> ") else "") + said)
        return "\n".join(lines)


def relative(when: datetime, now: datetime) -> str:
    seconds = round((when - now).total_seconds())
    amount = abs(seconds)
    for unit, size in (("day", 86400), ("hour", 3600), ("minute", 60), ("second", 1)):
        if amount >= size or unit == "second":
            count = round(amount / size)
            said = f"{count} {unit}{'s' if count != 1 else ''}"
            return f"in {said}" if seconds >= 0 else f"{said} ago"
    return "now"  # pragma: no cover - the loop always returns


def face(run: Run, size: int = SIZE) -> ImageFont.FreeTypeFont:
    if run.kind == "muted":
        return font("sans", size - 4)
    if run.kind == "code":
        return font("mono", size - 1)
    return font("bold" if run.bold else "sans", size)


def wrap(runs: Sequence[Run], width: int, size: int = SIZE) -> list[list[Run]]:
    """Runs laid into lines no wider than `width` pixels (breaking at spaces; a long word alone on its line)."""
    lines: list[list[Run]] = [[]]
    used = 0.0
    for run in runs:
        split = run.kind in ("text", "code")
        pieces = [Run(p, run.bold, run.kind) for p in re.findall(r"\s+|\S+", run.text)] if split else [run]
        for piece in pieces:
            w = face(piece, size).getlength(piece.text) + (0 if split else 8)
            if used + w > width and used > 0:
                if piece.text.isspace():
                    continue
                lines.append([])
                used = 0.0
            lines[-1].append(piece)
            used += w
    return lines


class Canvas:
    """A growing picture: parts are drawn into tall strips, then stacked."""

    def __init__(self) -> None:
        self.parts: list[Image.Image] = []

    def add(self, img: Image.Image) -> None:
        self.parts.append(img)

    def picture(self) -> Image.Image:
        height = sum(p.height for p in self.parts) + PAD
        out = Image.new("RGB", (WIDTH, height), BG)
        y = PAD // 2
        for part in self.parts:
            out.paste(part, (0, y))
            y += part.height
        return out


def draw_runs(
    draw: ImageDraw.ImageDraw,
    x: float,
    y: int,
    line: Sequence[Run],
    size: int = SIZE,
    colour: tuple[int, int, int] = TEXT,
) -> None:
    """One laid-out line: backgrounds first (a code span is cut into words to wrap; theirs join up), then text."""
    placed: list[tuple[float, Run, ImageFont.FreeTypeFont]] = []
    for run in line:
        f = face(run, size)
        w = f.getlength(run.text)
        if run.kind == "mention":
            draw.rounded_rectangle((x, y + 1, x + w + 6, y + LINE - 2), 3, fill=MENTION_BG)
            placed.append((x + 3, run, f))
            x += w + 8
        else:
            if run.kind == "code":
                draw.rectangle((x - 2, y + 1, x + w + 2, y + LINE - 2), fill=CODE_BG)
            placed.append((x, run, f))
            x += w
    for at, run, f in placed:
        fill = {"mention": MENTION_FG, "code": TEXT, "muted": MUTED, "link": LINK}.get(run.kind, colour)
        lift = {"mention": 2, "code": 3, "muted": 5}.get(run.kind, 2)
        draw.text((at, y + lift), run.text, font=f, fill=fill)


def text_block(
    words: Words,
    text: str,
    width: int,
    size: int = SIZE,
    colour: tuple[int, int, int] = TEXT,
    bg: tuple[int, int, int] = BG,
    *,
    edited: bool = False,
) -> Image.Image:
    """Markdown-ish text: bold, `> ` quotes with their bar, `-# ` small grey lines."""
    rows: list[tuple[list[Run], bool, int, tuple[int, int, int]]] = []
    raws = text.split("\n")
    for number, raw in enumerate(raws, 1):
        quote = raw.startswith("> ")
        line = raw[2:] if quote else raw
        line_size, line_colour = size, colour
        if line.startswith("-# "):
            line, line_size, line_colour = line[3:], size - 3, MUTED
        indent = 14 if quote else 0
        runs = words.line(line) + ([Run(" (edited)", kind="muted")] if edited and number == len(raws) else [])
        for row in wrap(runs, width - indent, line_size):
            rows.append((row, quote, line_size, line_colour))
    img = Image.new("RGB", (width, max(1, LINE * len(rows))), bg)
    draw = ImageDraw.Draw(img)
    for i, (row, quote, line_size, line_colour) in enumerate(rows):
        if quote:
            draw.rectangle((0, i * LINE, 3, (i + 1) * LINE), fill=QUOTE_BAR)
        draw_runs(draw, 14 if quote else 0, i * LINE, row, line_size, line_colour)
    return img


def on_bg(img: Image.Image, bg: tuple[int, int, int]) -> Image.Image:
    flat = Image.new("RGB", img.size, bg)
    flat.paste(img, (0, 0), img.convert("RGBA"))
    return flat


def embed_block(words: Words, embed: discord.Embed) -> Image.Image:
    inner = TEXT_W - 30
    parts: list[Image.Image] = []
    if embed.title:
        parts.append(text_block(words, f"**{embed.title}**", inner, colour=NAME, bg=EMBED_BG))
    if embed.description:
        parts.append(text_block(words, embed.description, inner, SIZE - 1, bg=EMBED_BG))
    for field in embed.fields:
        parts.append(text_block(words, f"**{field.name}**", inner, SIZE - 1, NAME, EMBED_BG))
        parts.append(text_block(words, str(field.value), inner, SIZE - 1, bg=EMBED_BG))
    if embed.footer and embed.footer.text:
        parts.append(text_block(words, embed.footer.text, inner, SIZE - 3, MUTED, EMBED_BG))
    height = sum(p.height for p in parts) + 20
    img = Image.new("RGB", (TEXT_W, height), BG)
    draw = ImageDraw.Draw(img)
    draw.rounded_rectangle((0, 0, TEXT_W - 1, height - 1), 4, fill=EMBED_BG)
    colour = embed.colour.to_rgb() if embed.colour is not None else QUOTE_BAR
    draw.rectangle((0, 0, 3, height - 1), fill=colour)
    y = 10
    for part in parts:
        img.paste(part, (16, y))
        y += part.height
    return img


def button_row(row: Sequence[discord.Component]) -> Image.Image:
    f = font("sans", SIZE - 1)
    img = Image.new("RGB", (TEXT_W, 40), BG)
    draw = ImageDraw.Draw(img)
    x = 0.0
    for item in row:
        if isinstance(item, discord.Button):
            label = f"{item.emoji} {item.label or ''}".strip() if item.emoji else (item.label or "")
            if item.style == discord.ButtonStyle.link:
                label += " ↗"
            w = f.getlength(label) + 32
            fill = BUTTON.get(item.style, BUTTON[discord.ButtonStyle.secondary])
            if item.disabled:
                fill = tuple(round(c * 0.6 + b * 0.4) for c, b in zip(fill, BG, strict=True))  # type: ignore[assignment]
            draw.rounded_rectangle((x, 4, x + w, 36), 4, fill=fill)
            draw.text((x + 16, 10), label, font=f, fill=(255, 255, 255) if not item.disabled else MUTED)
            x += w + 8
        elif isinstance(item, discord.SelectMenu):
            label = item.placeholder or "Make a selection"
            draw.rounded_rectangle((x, 2, TEXT_W - 1, 38), 4, fill=CODE_BG, outline=(30, 31, 34))
            draw.text((x + 12, 10), label, font=f, fill=MUTED)
            draw.text((TEXT_W - 26, 10), "⌄", font=f, fill=TEXT)
            x = TEXT_W
    return img


def picture(data: bytes) -> Image.Image:
    img = Image.open(io.BytesIO(data))
    img.thumbnail(IMAGE_MAX)
    return on_bg(img, BG)


def avatar(name: str, bot: bool) -> Image.Image:
    img = Image.new("RGB", (AVATAR, AVATAR), BG)
    draw = ImageDraw.Draw(img)
    colour = BADGE if bot else AVATARS[sum(map(ord, name)) % len(AVATARS)]
    draw.ellipse((0, 0, AVATAR - 1, AVATAR - 1), fill=colour)
    f = font("bold", 18)
    letter = name[:1].upper() or "?"
    draw.text((AVATAR / 2, AVATAR / 2), letter, font=f, fill=(255, 255, 255), anchor="mm")
    return img


async def message_block(message: discord.Message, now: datetime, follows: bool) -> tuple[Image.Image, str]:
    """One message as drawn, and its lines of transcript."""
    words = Words(message, now)
    parts: list[tuple[int, Image.Image]] = []
    said: list[str] = []
    name = message.author.display_name
    badge = " [APP]" if message.author.bot else ""
    if message.type == discord.MessageType.thread_created:
        line = f"→ {name} started a thread: **{message.content}**"
        img = Image.new("RGB", (WIDTH, LINE + 16), BG)
        img.paste(text_block(words, line, TEXT_W, SIZE - 1, MUTED), (TEXT_X, 8))
        return img, _shift(line)
    command = _command(message)
    head = f"{name}{badge}"
    if command:
        parts.append((TEXT_X, text_block(words, command, TEXT_W, SIZE - 2, MUTED)))
        head += f" ({command[2:]})"
    if message.reference is not None and message.reference.message_id is not None:
        ref = message.reference.resolved
        if isinstance(ref, discord.Message):
            snippet = words.plain(ref.content.split("\n")[0])[:60]
            replied = f"@{ref.author.display_name} {snippet}"
        else:
            replied = "a message"
        parts.append((TEXT_X, text_block(words, f"↱ {replied}", TEXT_W, SIZE - 2, MUTED)))
        head += f" (replying to {replied})"
    if not follows or message.reference is not None or command:
        head_img = Image.new("RGB", (TEXT_W, LINE + 2), BG)
        draw = ImageDraw.Draw(head_img)
        bold = font("bold", SIZE)
        draw.text((0, 2), name, font=bold, fill=NAME)
        x = bold.getlength(name) + 8
        if message.author.bot:
            small = font("bold", 10)
            draw.rounded_rectangle((x, 5, x + small.getlength("APP") + 8, 19), 3, fill=BADGE)
            draw.text((x + 4, 6), "APP", font=small, fill=(255, 255, 255))
            x += small.getlength("APP") + 16
        stamp = message.created_at.strftime(
            "Today at %H:%M" if message.created_at.date() == now.date() else "%d/%m/%Y %H:%M"
        )
        draw.text((x, 5), stamp, font=font("sans", SIZE - 3), fill=MUTED)
        parts.append((TEXT_X, head_img))
    said.append(f"{head}:")
    if message.content:
        edited = message.edited_at is not None
        parts.append((TEXT_X, text_block(words, message.content, TEXT_W, edited=edited)))
        said += [f"  {line}" for line in words.plain(message.content).split("\n")]
    for embed in message.embeds:
        parts.append((TEXT_X, embed_block(words, embed)))
        said += [f"  [embed] {embed.title or ''}"] + [f"    {f.name}: {f.value}" for f in embed.fields]
    for attachment in message.attachments:
        if (attachment.content_type or "").startswith("image/"):
            parts.append((TEXT_X, picture(await attachment.read())))
        else:
            parts.append((TEXT_X, text_block(words, f"📄 {attachment.filename}", TEXT_W, colour=LINK)))
        said.append(f"  [file] {attachment.filename}")
    for row in message.components:
        children = row.children if isinstance(row, discord.ActionRow) else [row]
        parts.append((TEXT_X, button_row(children)))
        said.append(
            "  "
            + " ".join(f"[{getattr(c, 'label', None) or getattr(c, 'placeholder', None) or '…'}]" for c in children)
        )
    if message.edited_at is not None:
        said[-1] += " (edited)"
    gap = 4
    height = sum(p.height + gap for _, p in parts) + (12 if not follows else 2)
    img = Image.new("RGB", (WIDTH, height), BG)
    y = 10 if not follows else 0
    if not follows or message.reference is not None or command:
        above = int(message.reference is not None) + int(bool(command))
        ref_h = sum(p.height + gap for _, p in parts[:above])
        img.paste(avatar(name, message.author.bot), (PAD, y + ref_h))
    for x, part in parts:
        img.paste(part, (x, y))
        y += part.height + gap
    return img, "\n".join(said)


def _command(message: discord.Message) -> str:
    """The line Discord shows above a slash command's answer (the command's own name is only on discord.py's
    deprecated `Message.interaction`, so it says "a command")."""
    used = message.interaction_metadata
    if used is None:
        return ""
    return f"↱ {used.user.display_name} used a command"


def _shift(line: str) -> str:
    return "  " + line.replace("**", "")


def divider(hidden: int) -> Image.Image:
    img = Image.new("RGB", (WIDTH, 34), BG)
    draw = ImageDraw.Draw(img)
    label = f"{hidden} messages not shown"
    f = font("sans", SIZE - 3)
    w = f.getlength(label)
    draw.line((PAD, 17, (WIDTH - w) / 2 - 10, 17), fill=QUOTE_BAR)
    draw.line(((WIDTH + w) / 2 + 10, 17, WIDTH - PAD, 17), fill=QUOTE_BAR)
    draw.text((WIDTH / 2, 17), label, font=f, fill=MUTED, anchor="mm")
    return img


async def channel_picture(
    history: Sequence[discord.Message], now: datetime, title: str, *, first: int = 1, last: int = 12
) -> tuple[Image.Image, str]:
    """The channel as a member sees it under the channel's name, oldest message first, and its transcript:
    the `first` messages and the `last` ones, with a divider counting those left out between."""
    hidden = max(0, len(history) - first - last)
    messages: list[discord.Message | None] = list(history)
    if hidden:
        messages = [*history[:first], None, *history[-last:]]
    canvas = Canvas()
    header = Image.new("RGB", (WIDTH, 44), (43, 45, 49))
    draw = ImageDraw.Draw(header)
    draw.text((PAD, 12), f"# {title}", font=font("bold", SIZE + 1), fill=NAME)
    canvas.add(header)
    transcript = [f"# {title}", ""]
    previous: discord.Message | None = None
    for message in messages:
        if message is None:  # the messages left out between the first one and the last ones
            canvas.add(divider(hidden))
            transcript.append(f"— {hidden} messages not shown —")
            previous = None
            continue
        follows = (
            previous is not None
            and previous.type in (discord.MessageType.default, discord.MessageType.reply)
            and previous.author.id == message.author.id
            and (message.created_at - previous.created_at).total_seconds() < 420
        )
        img, said = await message_block(message, now, follows)
        canvas.add(img)
        transcript.append(said if not follows else "\n".join(said.split("\n")[1:]) or said)
        previous = message
    return canvas.picture(), "\n".join(transcript) + "\n"
