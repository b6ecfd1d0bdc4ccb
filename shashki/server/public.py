"""Settings of a server on the public internet: which proxies to believe, how much a client may send.

A group of its own (`Settings.public`, on pydantic-settings as the rest), each field read from a
`SHASHKI_*` variable; the README's "Running it in public" explains them. The per-event rate limits are
in `shashki.server.limits`.

>>> import os
>>> os.environ["SHASHKI_LIMIT_SEEKS"] = "5/60"
>>> PublicSettings().limit_seeks
Limit(count=5, seconds=60.0)
>>> del os.environ["SHASHKI_LIMIT_SEEKS"]
"""

from __future__ import annotations

from typing import Annotated, Any

from pydantic import BeforeValidator, Field, ValidationError
from pydantic_settings import BaseSettings, NoDecode, SettingsConfigDict

from shashki.server.limits import Limit


def _limit(value: Any) -> Any:
    """A limit as the environment writes it, `count/seconds` (`"40/10"`)."""
    return Limit.parse(value) if isinstance(value, str) else value


# NoDecode: the environment's text goes to `_limit`, not to a JSON decoder.
LimitSetting = Annotated[Limit, NoDecode, BeforeValidator(_limit)]


class PublicSettings(BaseSettings):
    model_config = SettingsConfigDict(env_prefix="SHASHKI_", env_ignore_empty=True, extra="ignore")

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
    socket_messages: LimitSetting = Field(
        default=Limit(40, 10.0), validation_alias="SHASHKI_LIMIT_SOCKET_MESSAGES"
    )
    # Games against the computer that one account may have in progress at once: the engine's workers are
    # shared by every player.
    computer_games_at_once: int = 2
    # Rate limits of their own (`count/seconds`; the others follow older settings: limits.limit_table).
    limit_logins_per_account: LimitSetting = Limit(30, 600.0)
    limit_seeks: LimitSetting = Limit(30, 60.0)
    limit_computer_games: LimitSetting = Limit(20, 600.0)
    limit_explorer: LimitSetting = Limit(120, 60.0)  # opening explorer questions per address
    limit_reviews: LimitSetting = Limit(10, 3600.0)  # computer analyses asked per account
    # Per client address (issue 16): anonymous sessions are free to make, so their creation is limited,
    # and so are the games anonymous visitors start from one address (seeks, links, the computer).
    limit_anonymous_sessions: LimitSetting = Limit(30, 3600.0)
    limit_anonymous_games: LimitSetting = Limit(100, 3600.0)
    # The analysis board's engine searches, per client address and per account (anonymous players have
    # only the first), and its PDN imports per address. A search is one position (a socket runs one at a
    # time, the last asked for), so the figures allow stepping through a game with the engine on.
    limit_analyses: LimitSetting = Limit(120, 60.0)
    limit_analyses_per_account: LimitSetting = Limit(120, 60.0)
    limit_pdn_imports: LimitSetting = Limit(20, 60.0)
    # Tournaments created per account, and joins, withdrawals and pauses per account (issue 13).
    limit_tournaments: LimitSetting = Limit(10, 3600.0)
    limit_tournament_actions: LimitSetting = Limit(30, 60.0)
    limit_simuls: LimitSetting = Limit(10, 3600.0)  # simuls announced, per account
    limit_simul_actions: LimitSetting = Limit(60, 60.0)  # asking to play, accepting, starting, per account
    # Moves sent to the puzzle trainer, per client address (each is checked against the rules).
    limit_puzzle_moves: LimitSetting = Limit(120, 60.0)

    @classmethod
    def from_env(cls) -> PublicSettings:
        """The settings from the environment; ValueError naming the variable that is wrong."""
        try:
            return cls()
        except ValidationError as error:
            raise ValueError("; ".join(_describe(e) for e in error.errors())) from None

    def proxies(self) -> list[str]:
        return [p.strip() for p in self.trusted_proxies.split(",") if p.strip()]


def _describe(error: Any) -> str:
    name = str(error["loc"][0]) if error["loc"] else ""
    field = PublicSettings.model_fields.get(name)
    variable = field.validation_alias if field and isinstance(field.validation_alias, str) else None
    return f"{variable or 'SHASHKI_' + name.upper()}={error.get('input')!r}: {error['msg']}"
