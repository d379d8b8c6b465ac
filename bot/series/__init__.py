"""Best-of-N series beside the host core (`bot.series.core`), worded in `bot.wording`."""

from bot.series.core import DRAW, LENGTHS, NewsKind, Series, SeriesNews, SeriesService, SeriesStatus

__all__ = ["DRAW", "LENGTHS", "NewsKind", "Series", "SeriesNews", "SeriesService", "SeriesStatus"]
