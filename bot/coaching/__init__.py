"""Coaching: certified puzzles from a server's own finished matches, a player's insights counted from the
stored analyses, and the fair-play report (`service.CoachingService`)."""

from bot.coaching.service import AnalysisSource, Answered, CoachingService, Puzzle, PuzzleMoveError

__all__ = ["AnalysisSource", "Answered", "CoachingService", "Puzzle", "PuzzleMoveError"]
