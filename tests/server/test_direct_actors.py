"""Who acts is read on the direct path (storage/direct.py `Direct.row`, issue 11), on SQLite and on
PostgreSQL: a session's and a token's actor are the account as stored, with the credential's scopes and
CSRF token; a logged-out session, an expired one or a revoked token gives nobody; an account's identity
read for a game's players is the one stored."""

from __future__ import annotations

import asyncio
import secrets
from datetime import timedelta

import pytest
from sqlalchemy import update
from sqlalchemy.orm import object_session
from sqlalchemy.orm.base import instance_state

from shashki.server.accounts import AccountService
from shashki.server.accounts.models import Session
from shashki.server.accounts.service import API_TOKENS, Actor
from shashki.server.storage import Database
from shashki.server.storage.base import utcnow
from shashki.server.storage.direct import Row

from .helpers import database_url


@pytest.mark.parametrize("database", ["sqlite", "postgresql"])
def test_actors_are_read_on_the_direct_path_as_stored_and_ended_credentials_give_nobody(database, tmp_path):
    name = f"anna{secrets.token_hex(3)}"  # a shared PostgreSQL database holds others

    async def scenario():
        db = await Database(database_url(database, tmp_path)).open()
        accounts = AccountService(db, argon2_memory_kib=1024, argon2_time_cost=1)
        user = await accounts.register(name, "x" * 12)
        other = await accounts.register(f"b{name}", "y" * 12)
        _, session_token, csrf = await accounts.login(name, "x" * 12)
        by_session = await accounts.actor_for_session(session_token)
        assert by_session is not None
        secret, token = await accounts.create_token(by_session, ["board:play", "read"])
        by_token = await accounts.actor_for_token(secret)
        players = await accounts.users_by_id({user.id, other.id})
        by_name = await accounts.user_by_name(name.upper())
        anonymous, _, _ = await accounts.start_anonymous()
        no_row = await db.direct.row(Row(API_TOKENS, ("id",), {"token_hash": "nothing"}))
        await accounts.revoke_token(by_session, token.id)
        revoked = await accounts.actor_for_token(secret)
        async with db.session() as s:  # the session expires
            await s.execute(update(Session).where(Session.user_id == user.id).values(expires_at=utcnow()))
            await s.commit()
        expired = await accounts.actor_for_session(session_token)
        unknown = await accounts.actor_for_session("no-such-session")
        await db.close()
        anonymous_by_name = await accounts.user_by_name(anonymous.username)
        return user, other, csrf, by_session, by_token, players, no_row, revoked, expired, unknown, by_name, (
            anonymous, anonymous_by_name
        )

    user, other, csrf, by_session, by_token, players, no_row, revoked, expired, unknown, by_name, anon = (
        asyncio.run(scenario())
    )
    assert isinstance(by_session, Actor) and by_session.via == "session" and by_session.csrf_token == csrf
    for actor in (by_session, by_token):
        assert actor is not None
        got = actor.user
        assert (got.id, got.username, got.username_key, got.is_bot, got.anonymous) == (
            user.id, name, name, False, False
        )  # fmt: skip
        assert got.created_at == user.created_at and got.created_at.tzinfo is not None
        state = instance_state(got)
        assert state.detached and state.key is not None and object_session(got) is None  # as a closed session
    assert by_token is not None and by_token.via == "token"
    assert by_token.scopes == frozenset({"board:play", "read"})
    assert {i: u.username for i, u in players.items()} == {user.id: name, other.id: f"b{name}"}
    assert no_row is None and revoked is None and expired is None and unknown is None
    assert by_name is not None and by_name.id == user.id  # any case
    assert anon[0].anonymous and anon[1] is None  # an anonymous identity is never found by name
    assert timedelta(0) <= utcnow() - user.created_at < timedelta(minutes=5)
