"""Social: following players (who is online, who plays, told when they start) and blocking them."""

from shashki.server.social.service import SocialService

__all__ = ["SocialService"]
