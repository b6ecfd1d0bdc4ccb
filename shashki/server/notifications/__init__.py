"""Notifications inside the site: your turn in a correspondence game, a game's end, a challenge."""

from shashki.server.notifications.service import KINDS, NotificationService

__all__ = ["KINDS", "NotificationService"]
