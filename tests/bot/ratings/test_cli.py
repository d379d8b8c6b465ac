"""`dmhost ratings` and `dmhost ratings rebuild` as users run them, after real terminal-room matches."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from tests import dmhost

DATA = Path(__file__).resolve().parents[2] / "data" / "ratings"
KEYS = ["player", "id", "game", "rating", "deviation", "provisional", "games", "wins", "losses", "draws"]


@pytest.fixture(scope="module")
def played(tmp_path_factory: pytest.TempPathFactory) -> tuple[Path, str]:
    """A rated match bob won by resignation, a casual one alice won, a practice one: the database and the
    room's human output of the rated one."""
    db = tmp_path_factory.mktemp("ratings") / "dm.db"
    rated = dmhost("room", "boxes", "--player", "alice", "--player", "bob", "--db", str(db), stdin="alice: resign\n")
    assert rated.returncode == 0, rated.stderr
    casual = dmhost(
        "room", "boxes", "--player", "alice", "--player", "bob", "--db", str(db), "--rule", "rated=off",
        stdin="bob: resign\n",
    )  # fmt: skip
    assert casual.returncode == 0, casual.stderr
    assert "Ratings:" not in casual.stdout
    practice = dmhost("room", "boxes", "--player", "alice", "--bot", "random", "--db", str(db), stdin="alice: resign\n")
    assert practice.returncode == 0, practice.stderr
    return db, rated.stdout


def test_the_room_shows_the_rating_changes(played: tuple[Path, str]) -> None:
    _db, out = played
    assert "Ratings: alice 1258? (-242) · bob 1742? (+242)" in out


def test_ratings_json_is_the_contracts_table_best_first(played: tuple[Path, str]) -> None:
    db, _out = played
    r = dmhost("ratings", "--db", str(db), "--json")
    assert r.returncode == 0, r.stderr
    rows = json.loads(r.stdout)
    assert [list(row) for row in rows] == [KEYS, KEYS]
    bob, alice = rows
    assert (bob["player"], bob["id"], bob["game"], bob["games"], bob["wins"], bob["losses"], bob["draws"]) == (
        "bob", "local:bob", "boxes", 1, 1, 0, 0,
    )  # fmt: skip
    assert (alice["player"], alice["games"], alice["losses"]) == ("alice", 1, 1)
    assert bob["rating"] == 1741.6 and alice["rating"] == 1258.4
    assert bob["provisional"] is True and 396 < bob["deviation"] < 400


def test_ratings_filters_and_text(played: tuple[Path, str]) -> None:
    db, _out = played
    assert json.loads(dmhost("ratings", "--db", str(db), "--json", "--game", "trax").stdout) == []
    assert json.loads(dmhost("ratings", "--db", str(db), "--json", "--guild", "42").stdout) == []
    text = dmhost("ratings", "--db", str(db), "--game", "boxes").stdout
    # a first game between new players, as Glickman's steps rate it (the winner is the data's `a`)
    first = json.loads((DATA / "fourteen_games.json").read_text())["expected"][0]
    (won, won_dev), (lost, lost_dev) = first["a"], first["b"]
    assert text.splitlines() == [
        "boxes:",
        f"  1. bob {won:.0f}? ±{won_dev:.0f} · 1 game, 1 won, 0 lost, 0 drawn",
        f"  2. alice {lost:.0f}? ±{lost_dev:.0f} · 1 game, 0 won, 1 lost, 0 drawn",
    ]


def test_rebuild_reports_exact_figures(played: tuple[Path, str]) -> None:
    db, _out = played
    r = dmhost("ratings", "rebuild", "--db", str(db))
    assert r.returncode == 0, r.stderr
    assert json.loads(r.stdout) == {"matches": 1, "changed": 0}


@pytest.mark.parametrize(
    ("args", "says"),
    [
        (["ratings", "--game", "chess"], "unknown game 'chess'"),
        (["ratings", "rebuild", "--game", "boxes"], "takes no --game"),
        (["ratings", "--guild", "x"], "takes a whole number"),
        (["ratings", "refresh"], "invalid choice"),
    ],
)
def test_usage_errors_are_one_line_and_exit_2(played: tuple[Path, str], args: list[str], says: str) -> None:
    db, _out = played
    r = dmhost(*args, "--db", str(db))
    assert r.returncode == 2 and says in r.stderr and "Traceback" not in r.stderr


def test_a_missing_database_is_named_and_not_created(tmp_path: Path) -> None:
    missing = tmp_path / "none.db"
    for args in (["ratings"], ["ratings", "rebuild"]):
        r = dmhost(*args, "--db", str(missing))
        assert r.returncode == 2 and "no database" in r.stderr and "Traceback" not in r.stderr
        assert len(r.stderr.strip().splitlines()) == 1
    assert not missing.exists()


def test_a_bad_rated_choice_is_a_usage_error(tmp_path: Path) -> None:
    r = dmhost(
        "room", "boxes", "--player", "a", "--player", "b", "--db", str(tmp_path / "x.db"), "--rule", "rated=maybe"
    )
    assert r.returncode == 2 and "rated is on or off" in r.stderr and "Traceback" not in r.stderr
