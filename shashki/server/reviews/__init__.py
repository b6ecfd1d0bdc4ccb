"""Computer analysis of finished games: evaluation curve, inaccuracies, mistakes and blunders, accuracy."""

from shashki.server.reviews.service import ReviewService

__all__ = ["ReviewService"]
