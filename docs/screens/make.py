"""Plays short real matches on the simulated Discord (SimCord) with the real bot and saves what a member sees:
the board's picture as sent, and each room as a picture and a text transcript.

    python -m docs.screens.make [--out DIR] [--browser CHROMIUM]      (default: docs/screens)

Rooms are drawn with Pillow from the real messages (docs/screens/render.py), or, with `--browser` naming a
Chromium (Debian's `chromium`: /usr/bin/chromium) and `pip install -e '.[screens]'`, captured
by SimCord's own preview, which lays them out as Discord's client does. The README's pictures are the
latter; tests/docs/test_screens.py runs the former into a temporary folder."""

from __future__ import annotations

import argparse
import asyncio
import io
import random
import sys
import tempfile
from datetime import datetime
from pathlib import Path

import discord
import simcord
from PIL import Image

from bot.adapters.discord.app import create_bot
from bot.ops.apps import discord_app
from bot.settings import Settings
from docs.screens.render import WIDTH, channel_picture
from games import registry

HERE = Path(__file__).resolve().parent
CLOCK = "move=600 reserve=600 takeback=0"
MAX_BYTES = 200_000


def seeded_moves(game: str, options: dict[str, int], seed: int, plies: int | None = None) -> list[tuple[int, str]]:
    """(seat, move text) of a seeded random game: to its end, or its first `plies` moves."""
    ruleset = registry.get(game)
    rng = random.Random(seed)
    state = ruleset.new_game(ruleset.parse_options(options))
    moves: list[tuple[int, str]] = []
    while (seat := ruleset.to_move(state)) is not None and (plies is None or len(moves) < plies):
        move = rng.choice(list(ruleset.legal_moves(state)))
        moves.append((seat, ruleset.format(state, move)))
        state, _ = ruleset.apply(state, move)
    return moves


def save_png(img: Image.Image, path: Path) -> Path:
    """A picture as a small PNG: as is when small enough, else in 256 colours."""
    img.save(path, optimize=True)
    if path.stat().st_size > MAX_BYTES:
        img.convert("RGB").quantize(256, method=Image.Quantize.MEDIANCUT).save(path, optimize=True)
    return path


async def browser_capture(
    env: simcord.Env, channel: simcord.ChannelHandle, viewer: simcord.MemberActor, browser: Path, height: int
) -> bytes:
    """The bottom of a channel as `viewer` sees it, captured by SimCord's preview in the given Chromium."""
    from playwright.async_api import async_playwright

    async with env.preview(
        channel, viewers=[viewer], layout="channel", display="fixed", width=WIDTH, height=height
    ) as preview:
        # SimCord's capture launches Playwright's own browser build, which cannot be downloaded here; it takes
        # an already started one (a private hand-over, pinned with simcord <4 in pyproject)
        playwright = await async_playwright().start()
        manager = preview._capture_manager
        manager._playwright = playwright
        manager._browser = await playwright.chromium.launch(executable_path=str(browser))
        capture = await preview.screenshot(mode="viewport")
        assert capture.png is not None and capture.complete, capture.diagnostics
        return capture.png


class Shots:
    """One guild on the simulated Discord with the real bot; each scene saves its files into `out`."""

    def __init__(self, env: simcord.Env, out: Path, browser: Path | None = None) -> None:
        self.env = env
        self.out = out
        self.browser = browser
        self.guild = env.create_guild(name="Death Match Club")
        self.lobby = self.guild.create_text_channel("lobby")
        host = self.guild.create_role("Host")
        self.alice = self.guild.add_member(env.create_user("alice"))
        self.bob = self.guild.add_member(env.create_user("bob"))
        self.carol = self.guild.add_member(env.create_user("carol"), roles=[host])
        self.files: list[Path] = []

    @property
    def seats(self) -> dict[int, simcord.MemberActor]:
        return {1: self.alice, 2: self.bob}

    def now(self) -> datetime:
        return datetime.fromisoformat(self.env.backend.now_iso())

    async def start(self, game: str, options: str) -> simcord.ChannelHandle:
        """`/dm start` by the host in the lobby, the room a public thread; the room."""
        before = {t.id for t in self.lobby.threads}
        await self.carol.slash(
            self.lobby,
            "dm start",
            game=game,
            player1=self.alice,
            player2=self.bob,
            room="public",
            options=options,
            clock=CLOCK,
        )
        (room,) = [t for t in self.lobby.threads if t.id not in before]
        return room

    def bot_messages(self, channel: simcord.ChannelHandle) -> list[discord.Message]:
        me = self.env.bot.user
        return [m for m in channel.history() if me is not None and m.author.id == me.id]

    async def save_channel(self, channel: simcord.ChannelHandle, name: str, height: int = 1300) -> None:
        """The channel's picture (`height` px high when a browser captures it) and its transcript."""
        img, transcript = await channel_picture(list(channel.history()), self.now(), channel.name or name)
        if self.browser is not None:
            png = await browser_capture(self.env, channel, self.alice, self.browser, height)
            img = Image.open(io.BytesIO(png))
        self.files.append(save_png(img, self.out / f"{name}.png"))
        path = self.out / f"{name}.txt"
        path.write_text(transcript, encoding="utf-8")
        self.files.append(path)

    async def save_board(self, channel: simcord.ChannelHandle, name: str) -> None:
        """The board's picture exactly as the bot sent it (the last bot message carrying a picture)."""
        board = [m for m in self.bot_messages(channel) if m.attachments][-1]
        path = self.out / f"{name}.png"
        path.write_bytes(await board.attachments[0].read())
        self.files.append(path)

    async def boxes(self) -> None:
        """Dots-and-Boxes 3×3 to the end: some chat, a move already played, then the result and the lobby."""
        room = await self.start("boxes", "rows=3 cols=3")
        moves = seeded_moves("boxes", {"rows": 3, "cols": 3}, seed=7)
        await self.bob.send(room, "good luck!")
        for i, (seat, text) in enumerate(moves):
            if i == len(moves) - 4:
                await self.seats[seat].send(room, moves[0][1])  # an edge already drawn: the host says why not
                await self.seats[3 - seat].send(room, "B2")  # out of turn, and not a move
            await self.seats[seat].send(room, text)
        await self.bob.send(room, "gg")
        await self.save_channel(room, "boxes-room")
        await self.save_board(room, "boxes-board")
        await self.save_channel(self.lobby, "lobby", height=420)

    async def trax(self) -> None:
        """Trax, eight moves in: the board of a game in progress; bob asks whether to resign (chat), then
        posts `resign`, which is answered with Confirm / Cancel (left unpressed)."""
        room = await self.start("trax", "")
        for seat, text in seeded_moves("trax", {}, seed=11, plies=8):
            await self.seats[seat].send(room, text)
        await self.bob.send(room, "resign?")
        await self.bob.send(room, "resign")
        await self.save_channel(room, "trax-room", height=1640)
        await self.save_board(room, "trax-board")


async def make(out: Path, browser: Path | None = None) -> list[Path]:
    """Plays the scenes and writes their files into `out` (rooms captured in `browser`, a Chromium, when
    given, else drawn); the files written."""
    from games.solver import ensure_compiled

    ensure_compiled()  # before the bot starts, which warms the solver up in a thread SimCord would wait for
    out.mkdir(parents=True, exist_ok=True)
    with tempfile.TemporaryDirectory() as folder:
        settings = Settings(
            _env_file=None,
            database_url=f"sqlite+aiosqlite:///{folder}/screens.db",
            heartbeat_seconds=3600.0,
            announce_batch_seconds=0.0,
        )
        env = simcord.Env(create_bot(settings, discord_app(settings), sync_commands=True), settle_timeout=5.0)
        await env.start()
        env.backend.edit_bot_profile("dmhost")  # the application's name, instead of SimCord's "TestBot"
        try:
            shots = Shots(env, out, browser)
            await shots.boxes()
            await shots.trax()
        finally:
            await env.shutdown()
    return shots.files


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m docs.screens.make", description=__doc__.split("\n")[0])
    parser.add_argument("--out", type=Path, default=HERE, help="folder for the pictures and transcripts")
    parser.add_argument("--browser", type=Path, help="a Chromium for SimCord's preview to capture the rooms in")
    args = parser.parse_args(argv)
    if args.browser is not None and not args.browser.is_file():
        parser.error(f"--browser: no such file {args.browser} (Debian: apt-get install chromium)")
    for path in asyncio.run(make(args.out, args.browser)):
        print(f"{path} ({path.stat().st_size:,} bytes)")
    return 0


if __name__ == "__main__":
    sys.exit(main())
