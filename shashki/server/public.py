"""Settings of a server on the public internet: which proxies to believe, how much a client may send.

A group of its own (`Settings.public`), each field read from a `SHASHKI_*` variable; the README's
"Running it in public" explains them. The per-event rate limits are in `shashki.server.limits`.
"""

from __future__ import annotations

import os
from dataclasses import dataclass, field

from shashki.server.limits import Limit


def _int(name: str, default: int) -> int:
    value = os.environ.get(name)
    return int(value) if value else default


@dataclass
class PublicSettings:
    # Addresses (or networks, or "*") of the reverse proxies allowed to say, in X-Forwarded-For and
    # X-Forwarded-Proto, who the client is and whether it came over TLS. Empty: nobody; the TCP peer is
    # the client and the scheme is what the connection says.
    trusted_proxies: str = ""
    # Request bodies above this many bytes are refused with 413 before they are read (a move or a login is
    # a few hundred bytes); JSON nested deeper than `max_json_depth` is refused with 400.
    max_body_bytes: int = 64 * 1024
    max_json_depth: int = 32
    # WebSockets: at most this many open at once from one client address (in each server process), and
    # per socket at most `socket_messages` messages (more wait their turn: the socket is read no faster).
    sockets_per_address: int = 50
    socket_messages: Limit = field(default_factory=lambda: Limit(40, 10.0))
    # Games against the computer that one account may have in progress at once: the engine's workers are
    # shared by every player.
    computer_games_at_once: int = 2

    @classmethod
    def from_env(cls) -> PublicSettings:
        messages = os.environ.get("SHASHKI_LIMIT_SOCKET_MESSAGES")
        return cls(
            trusted_proxies=os.environ.get("SHASHKI_TRUSTED_PROXIES", ""),
            max_body_bytes=_int("SHASHKI_MAX_BODY_BYTES", 64 * 1024),
            max_json_depth=_int("SHASHKI_MAX_JSON_DEPTH", 32),
            sockets_per_address=_int("SHASHKI_SOCKETS_PER_ADDRESS", 50),
            socket_messages=Limit.parse(messages) if messages else Limit(40, 10.0),
            computer_games_at_once=_int("SHASHKI_COMPUTER_GAMES_AT_ONCE", 2),
        )

    def proxies(self) -> list[str]:
        return [p.strip() for p in self.trusted_proxies.split(",") if p.strip()]
