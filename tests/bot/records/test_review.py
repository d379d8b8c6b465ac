"""Review files fitted to an upload limit: frames are dropped first, then whole files, with a note."""

from __future__ import annotations

import io

from PIL import Image

from bot.host.service import PlayerRef
from bot.records.review import build_review
from tests.bot.conftest import make_service


async def _finished_boxes(migrated_sqlite_url: str) -> object:
    service = await make_service(migrated_sqlite_url)
    try:
        match_id = await service.create_match(
            "boxes", [PlayerRef("1", "ann"), PlayerRef("2", "ben")], options={"rows": 1, "cols": 2}
        )
        for player, move in [("1", "A1-B1"), ("2", "B1-C1"), ("1", "A2-B2"), ("2", "B2-C2"), ("1", "A1-A2")]:
            await service.submit(match_id, player, move)
        await service.submit(match_id, "2", "C1-C2")
        await service.submit(match_id, "1", "B1-B2")
        stored = await service.store.load(match_id, with_events=True)
    finally:
        await service.close()
        await service.store.close()
    return stored


async def test_everything_fits_a_large_limit(migrated_sqlite_url: str) -> None:
    stored = await _finished_boxes(migrated_sqlite_url)
    review = build_review(stored, 10_000_000)  # type: ignore[arg-type]
    names = [n for n, _ in review.files]
    assert names == ["match-1.gif", "match-1-analysis.txt"] and review.notes == []
    gif = Image.open(io.BytesIO(review.files[0][1]))
    assert gif.n_frames == 8  # the start and seven moves


async def test_frames_then_files_are_dropped_to_fit(migrated_sqlite_url: str) -> None:
    stored = await _finished_boxes(migrated_sqlite_url)
    full = build_review(stored, 10_000_000)  # type: ignore[arg-type]
    gif_size = len(full.files[0][1])
    analysis_size = len(full.files[1][1])
    tighter = build_review(stored, analysis_size + gif_size * 2 // 3)  # type: ignore[arg-type]
    (gif,) = [data for name, data in tighter.files if name.endswith(".gif")]
    frames = Image.open(io.BytesIO(gif)).n_frames
    assert 2 <= frames < 8 and any("every" in note for note in tighter.notes)
    assert sum(len(d) for _, d in tighter.files) <= analysis_size + gif_size * 2 // 3
    nothing = build_review(stored, 10)  # type: ignore[arg-type]
    assert nothing.files == [] and len(nothing.notes) == 2


async def test_the_replay_and_the_log_say_the_result_in_the_rooms_words(migrated_sqlite_url: str) -> None:
    from bot.records.matchlog import build_log, format_log, result_of

    stored = await _finished_boxes(migrated_sqlite_url)
    assert result_of(stored) == "ann wins on score, 2–0"  # type: ignore[arg-type]
    data = build_log(stored)  # type: ignore[arg-type]
    assert data["result"]["words"] == "ann wins on score, 2–0" and data["result"]["score"] == (2, 0)
    assert format_log(data).splitlines()[-1] == "Result: ann wins on score, 2–0"
