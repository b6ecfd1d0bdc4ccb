"""The accounts' tables: users, browser sessions and personal API tokens (bots use tokens too)."""

from __future__ import annotations

from datetime import datetime

from sqlalchemy import Boolean, ForeignKey, Integer, String, Text, false
from sqlalchemy.orm import Mapped, mapped_column

from shashki.server.storage.base import Base, UtcDateTime


class User(Base):
    """An account, or an anonymous visitor's identity (`anonymous`): a row like any account's, so that
    games, seeks and sessions reference it the same way, but with no password, shown as "Anonymous", and
    never found by name (accounts/anonymous.py).
    """

    __tablename__ = "users"

    id: Mapped[int] = mapped_column(Integer, primary_key=True)
    username: Mapped[str] = mapped_column(String(30))
    # Usernames are unique regardless of case; this is the lower-cased form.
    username_key: Mapped[str] = mapped_column(String(30), unique=True)
    password_hash: Mapped[str] = mapped_column(Text)
    is_bot: Mapped[bool] = mapped_column(Boolean, default=False)
    created_at: Mapped[datetime] = mapped_column(UtcDateTime())
    # An anonymous visitor (issue 16): plays casual games without registering (0003_anon).
    anonymous: Mapped[bool] = mapped_column(Boolean, default=False, server_default=false())
    # When its owner closed the account (accounts/security.py, 0009_account_close): it logs in no more, its
    # name stays taken, its profile and finished games stay, shown as closed.
    closed_at: Mapped[datetime | None] = mapped_column(UtcDateTime(), nullable=True)

    @property
    def closed(self) -> bool:
        return self.closed_at is not None


class Session(Base):
    """A browser session: the cookie holds the token, the table its SHA-256 (a stolen table opens nothing)."""

    __tablename__ = "sessions"

    id: Mapped[int] = mapped_column(Integer, primary_key=True)
    token_hash: Mapped[str] = mapped_column(String(64), unique=True)
    user_id: Mapped[int] = mapped_column(ForeignKey("users.id", ondelete="CASCADE"), index=True)
    csrf_token: Mapped[str] = mapped_column(String(64))
    created_at: Mapped[datetime] = mapped_column(UtcDateTime())
    expires_at: Mapped[datetime] = mapped_column(UtcDateTime())


class ApiToken(Base):
    """A personal API token (`Authorization: Bearer`), stored as its SHA-256, with space-separated scopes."""

    __tablename__ = "api_tokens"

    id: Mapped[int] = mapped_column(Integer, primary_key=True)
    token_hash: Mapped[str] = mapped_column(String(64), unique=True)
    user_id: Mapped[int] = mapped_column(ForeignKey("users.id", ondelete="CASCADE"), index=True)
    description: Mapped[str] = mapped_column(String(100), default="")
    scopes: Mapped[str] = mapped_column(String(200))
    created_at: Mapped[datetime] = mapped_column(UtcDateTime())
    revoked_at: Mapped[datetime | None] = mapped_column(UtcDateTime(), nullable=True)


class Preferences(Base):
    """How an account wants the pages to look (accounts/preferences.py): one row per account that chose.

    Columns rather than a JSON blob, so that the database itself refuses nothing but the values the
    service checked; an account without a row has the defaults.
    """

    __tablename__ = "account_preferences"

    user_id: Mapped[int] = mapped_column(ForeignKey("users.id", ondelete="CASCADE"), primary_key=True)
    theme: Mapped[str] = mapped_column(String(8))
    board: Mapped[str] = mapped_column(String(12))
    pieces: Mapped[str] = mapped_column(String(12))
    updated_at: Mapped[datetime] = mapped_column(UtcDateTime())
