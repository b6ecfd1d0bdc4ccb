"""Server settings: defaults for `shashki serve`, overridable by environment variables.

`DATABASE_URL` (e.g. `postgresql+asyncpg://user:pw@host/db`) and `REDIS_URL` select the scaled-out parts;
without them the server keeps everything in a SQLite file under the data directory and events in process.
The `SHASHKI_*` variables exist mainly so that tests can shorten the waits the rules of play impose.
"""

from __future__ import annotations

import os
from dataclasses import dataclass, field
from pathlib import Path

from shashki.server.public import PublicSettings


def _env_float(name: str, default: float) -> float:
    value = os.environ.get(name)
    return float(value) if value else default


def _env_int(name: str, default: int) -> int:
    value = os.environ.get(name)
    return int(value) if value else default


@dataclass
class Settings:
    data_dir: Path = Path("data")
    database_url: str | None = None
    redis_url: str | None = None
    # A player may claim victory once the opponent has been disconnected this long on their own turn.
    disconnect_claim_seconds: float = 30.0
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
    # Seconds the computer opponent waits before it starts thinking (0 in tests).
    computer_delay_seconds: float = 0.3
    # The computer opponent: "engine" (shashki.engine in `engine_workers` processes; it thinks
    # `engine_untimed_seconds` a move in games without a clock) or "random" (tests only).
    engine: str = "engine"
    engine_workers: int = 1
    engine_untimed_seconds: float = 1.0
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
    # Proxies, body sizes, sockets, computer games: shashki/server/public.py (SHASHKI_* variables).
    public: PublicSettings = field(default_factory=PublicSettings.from_env)

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
        return cls(
            data_dir=Path(data_dir or os.environ.get("SHASHKI_DATA") or "data"),
            database_url=os.environ.get("DATABASE_URL") or None,
            redis_url=os.environ.get("REDIS_URL") or None,
            disconnect_claim_seconds=_env_float("SHASHKI_DISCONNECT_CLAIM_SECONDS", 30.0),
            max_lag_compensation_ms=_env_int("SHASHKI_MAX_LAG_COMPENSATION_MS", 500),
            login_attempts=_env_int("SHASHKI_LOGIN_ATTEMPTS", 10),
            registrations=_env_int("SHASHKI_REGISTRATIONS", 5),
            rate_limit_window_seconds=_env_float("SHASHKI_RATE_LIMIT_WINDOW_SECONDS", 60.0),
            argon2_memory_kib=_env_int("SHASHKI_ARGON2_MEMORY_KIB", 65536),
            argon2_time_cost=_env_int("SHASHKI_ARGON2_TIME_COST", 3),
            computer_delay_seconds=_env_float("SHASHKI_COMPUTER_DELAY_SECONDS", 0.3),
            engine=os.environ.get("SHASHKI_ENGINE", "engine"),
            engine_workers=_env_int("SHASHKI_ENGINE_WORKERS", 1),
            engine_untimed_seconds=_env_float("SHASHKI_ENGINE_UNTIMED_SECONDS", 1.0),
            secure_cookies=os.environ.get("SHASHKI_SECURE_COOKIES", "") == "1",
            chat_lines=_env_int("SHASHKI_CHAT_LINES", 5),
            chat_window_seconds=_env_float("SHASHKI_CHAT_WINDOW_SECONDS", 10.0),
            api_requests_per_minute=_env_int("SHASHKI_API_REQUESTS_PER_MINUTE", 600),
            challenges_per_minute=_env_int("SHASHKI_CHALLENGES_PER_MINUTE", 20),
            event_streams=_env_int("SHASHKI_EVENT_STREAMS", 3),
            game_streams=_env_int("SHASHKI_GAME_STREAMS", 20),
            stream_keepalive_seconds=_env_float("SHASHKI_STREAM_KEEPALIVE_SECONDS", 6.0),
        )
