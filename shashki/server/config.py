"""Server settings: defaults for `shashki serve`, overridable by environment variables (pydantic-settings).

`DATABASE_URL` (e.g. `postgresql+asyncpg://user:pw@host/db`) and `REDIS_URL` select the scaled-out parts;
without them the server keeps everything in a SQLite file under the data directory and events in process.
`SHASHKI_DATA` names the data directory. Every other field is read from `SHASHKI_` + its name in capitals
(`login_attempts` from `SHASHKI_LOGIN_ATTEMPTS`); they exist mainly so that tests can shorten the waits the
rules of play impose. An empty variable counts as unset. A value that does not parse stops the server with
the variable's name:

>>> import os
>>> os.environ["SHASHKI_LOGIN_ATTEMPTS"] = "many"
>>> Settings()
Traceback (most recent call last):
...
shashki.server.config.SettingsError: SHASHKI_LOGIN_ATTEMPTS='many': Input should be a valid integer, ...
>>> del os.environ["SHASHKI_LOGIN_ATTEMPTS"]
>>> Settings(data_dir="/srv/shashki").sqlalchemy_url
'sqlite+aiosqlite:////srv/shashki/shashki.sqlite3'
"""

from __future__ import annotations

from pathlib import Path
from typing import Any, Literal

from pydantic import Field, ValidationError
from pydantic_core import ErrorDetails
from pydantic_settings import BaseSettings, SettingsConfigDict

from shashki.server.public import PublicSettings

ENV_PREFIX = "SHASHKI_"


class SettingsError(ValueError):
    """An environment variable (or argument) the settings cannot use; the message names it."""


class Settings(BaseSettings):
    model_config = SettingsConfigDict(
        env_prefix=ENV_PREFIX,
        env_ignore_empty=True,  # `SHASHKI_ENGINE=` means the default, as an unset variable
        extra="ignore",
    )

    data_dir: Path = Field(Path("data"), validation_alias="SHASHKI_DATA")
    database_url: str | None = Field(None, validation_alias="DATABASE_URL")
    redis_url: str | None = Field(None, validation_alias="REDIS_URL")
    # A player may claim victory once the opponent has been disconnected this long on their own turn.
    disconnect_claim_seconds: float = 30.0
    # A seek with a clock leaves with its player, as on lichess: withdrawn once they have had no page of the
    # site open this long (lobby/seeks.py `withdraw_when_gone`).
    seek_left_seconds: float = 10.0
    # A game with a clock whose side to move has not made its first move this long after its turn began
    # aborts itself (a crashed bot, a player gone); 0 turns it off. lichess waits 15-35 s.
    first_move_seconds: float = 60.0
    # The shortest clock a seek, a challenge (Bot API too) or a game against the computer may ask for:
    # lidraughts' shortest initial time is a quarter of a minute.
    min_clock_seconds: float = 15.0
    # Lag compensation: a client may report its network delay; at most this much is credited per move.
    max_lag_compensation_ms: int = 500
    # Attempts allowed per client address within `rate_limit_window_seconds`.
    login_attempts: int = 10
    registrations: int = 5
    rate_limit_window_seconds: float = 60.0
    session_days: int = 30
    # argon2id cost (argon2-cffi's defaults); the tests lower it to register many accounts quickly.
    argon2_memory_kib: int = 65536
    argon2_time_cost: int = 3
    # Seconds the computer opponent waits before it starts thinking (0 in tests); on a short clock at most
    # a hundredth of its time left (games/listeners.py DELAY_SHARE), since the wait runs on its clock.
    computer_delay_seconds: float = 0.3
    # The computer opponent: "engine" (shashki.engine in `engine_workers` processes; it thinks
    # `engine_untimed_seconds` a move in games without a clock) or "random" (tests only).
    engine: Literal["engine", "random"] = "engine"
    engine_workers: int = 2  # at least two, so that one long search never holds every computer game
    # With REDIS_URL, "auto" sends the engine's jobs to `shashki worker` processes through Redis (the
    # local pool stands in while no worker is alive); "local" keeps them in this process's pool.
    engine_queue: Literal["auto", "local"] = "auto"
    engine_untimed_seconds: float = 1.0
    # The analysis board (server/analysis): its own engine processes, the longest search one request may
    # ask for, and the most lines (moves) it may ask for.
    analysis_workers: int = 1
    analysis_max_seconds: float = 10.0
    analysis_max_lines: int = 5
    # Cookies marked Secure (behind HTTPS): SHASHKI_SECURE_COOKIES=1.
    secure_cookies: bool = False
    # Game chat: lines per player per game within the window (docs/bot-api.md states the limits).
    chat_lines: int = 5
    chat_window_seconds: float = 10.0
    # Bot and Board API: requests per account per minute, challenges per account per minute, and the open
    # NDJSON streams an account may hold; an empty line goes down each stream this often.
    api_requests_per_minute: int = 600
    challenges_per_minute: int = 20
    event_streams: int = 3
    game_streams: int = 20
    stream_keepalive_seconds: float = 6.0
    # Several processes (Redis): a live game's owner holds a lease this long; a lapsed one (its process
    # died) is taken over by another process within about a third more; a process stopping cleanly hands
    # its games over at once (games/owners.py).
    game_lease_seconds: float = 10.0
    # Computer analysis of games: engine seconds per position, and whether every rated game is analysed
    # by itself when it ends.
    review_seconds_per_move: float = 0.25
    review_rated_games: bool = False
    # Several processes (Redis): the process running a review holds it this long unrenewed; a review whose
    # process died is taken up by another within about a third more (reviews/service.py).
    review_claim_seconds: float = 15.0
    # Logs: "text" for a terminal, "json" (one object a line, for a log collector).
    log_format: Literal["text", "json"] = "text"
    # A line for every HTTP request and every WebSocket opened and closed (uvicorn's access lines). Off by
    # default: the proxy in front logs requests (docker-compose.yml), the metrics time every route, and
    # each line costs about 0.05 ms of CPU (a socket's two were 7% of the CPU of opening it).
    access_log: bool = False
    # On SIGTERM: stop taking connections, close the sockets (clients reconnect elsewhere), and give the
    # requests under way this long to finish before the process ends.
    shutdown_seconds: int = 10
    # Before that, on SIGTERM only (Ctrl+C and a second SIGTERM end at once): readiness fails at once and
    # the server goes on serving this long, so that a load balancer that checks readiness (Kubernetes,
    # HAProxy, NGINX Plus) takes it out of the rotation before its sockets close. 0, the default, ends at
    # once (docker-compose.yml's nginx checks passively: nothing to wait for).
    drain_seconds: float = 0.0
    # Tournaments (issue 13): the ones the server creates itself (tournaments/schedule.py: e.g.
    # "hourly arena russian-giveaway 3+2 45min; daily 18:00 swiss russian-giveaway 5+3 7rounds"), how often
    # each process's director looks at them, and how long its lease of a tournament lasts unrenewed.
    tournament_schedule: str = ""
    tournament_tick_seconds: float = 1.0
    tournament_lease_seconds: float = 10.0
    # Proxies, body sizes, sockets, computer games: shashki/server/public.py (SHASHKI_* variables).
    public: PublicSettings = Field(default_factory=PublicSettings.from_env)

    def __init__(self, **values: Any) -> None:
        # Arguments by field name (Settings(data_dir=...)); the three fields named by their own variable
        # take that name as alias, and pydantic's `populate_by_name` would also read SHASHKI_DATA_DIR & co.
        values = {_ALIASES.get(name, name): value for name, value in values.items()}
        try:
            super().__init__(**values)
        except ValidationError as error:
            raise SettingsError("; ".join(_describe(e, values) for e in error.errors())) from None

    @property
    def sqlalchemy_url(self) -> str:
        if self.database_url:
            url = self.database_url
            # Accept the plain `postgres://` / `postgresql://` forms hosting services hand out.
            for prefix in ("postgres://", "postgresql://"):
                if url.startswith(prefix):
                    url = "postgresql+asyncpg://" + url[len(prefix) :]
            return url
        return f"sqlite+aiosqlite:///{(self.data_dir / 'shashki.sqlite3').resolve()}"

    @classmethod
    def from_env(cls, data_dir: str | Path | None = None) -> Settings:
        """The settings of the environment; `data_dir` (the `--data` option) wins over `SHASHKI_DATA`."""
        return cls(data_dir=Path(data_dir)) if data_dir else cls()


_ALIASES = {
    name: field.validation_alias
    for name, field in Settings.model_fields.items()
    if isinstance(field.validation_alias, str)
}


def variable(field: str) -> str:
    """The environment variable a field is read from."""
    alias = Settings.model_fields[field].validation_alias
    return alias if isinstance(alias, str) else ENV_PREFIX + field.upper()


def _describe(error: ErrorDetails, values: dict[str, Any]) -> str:
    loc = str(error["loc"][0]) if error["loc"] else ""
    field = next((name for name in Settings.model_fields if loc in (name, variable(name))), None)
    if field is None:
        where = loc
    elif variable(field) in values if field in _ALIASES else field in values:
        where = f"{field} (argument)"
    else:
        where = variable(field)
    return f"{where}={error.get('input')!r}: {error['msg']}"
