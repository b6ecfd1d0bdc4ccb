"""Ratings: Glicko-2 per variant and speed category, updated when a rated game ends."""

from shashki.server.ratings.glicko2 import Rating, rate
from shashki.server.ratings.service import PROVISIONAL_GAMES, RatingService
from shashki.server.ratings.speed import SPEEDS, speed_of

__all__ = ["PROVISIONAL_GAMES", "SPEEDS", "Rating", "RatingService", "rate", "speed_of"]
