"""Shashki: an online draughts server built around Russian giveaway draughts (poddavki).

The package is layered (ARCHITECTURE.md): `shashki.rules` is the game logic, `shashki.engine` the
computer player, `shashki.server` the online service and `shashki.cli` the `shashki` command.
"""

__version__ = "0.1.0"
