"""Best-of-N series beside the host core (`bot.series.core`), worded in `bot.wording`."""

from bot.series.core import DRAW, LENGTHS, Series, SeriesNews, SeriesService

__all__ = ["DRAW", "LENGTHS", "Series", "SeriesNews", "SeriesService"]
