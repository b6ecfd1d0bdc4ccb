"""The opening explorer: for a position, the moves played from it on this server, with their results."""

from shashki.server.explorer.service import ExplorerService

__all__ = ["ExplorerService"]
