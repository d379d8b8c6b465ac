"""Tests of the tournament service, its pairing core and its terminal commands."""

from __future__ import annotations

import contextlib
from collections.abc import Iterator

import pytest

from bot.tournaments.refusals import RefusalCode, TournamentRefused
from bot.wording import error_text


@contextlib.contextmanager
def refused(code: RefusalCode, words: str) -> Iterator[None]:
    """The block is refused with `code`, and the sentence a user reads says `words`."""
    with pytest.raises(TournamentRefused) as info:
        yield
    assert info.value.code == code, error_text(info.value)
    assert words in error_text(info.value)
