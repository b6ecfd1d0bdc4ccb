"""TEMPORARY: reads of other domains' tables that their services do not offer yet.

Each function here belongs in the owning domain's service as a public method (named in its docstring);
the adapter calls them only through this module, so that moving them is one import per caller. Nothing in
this module writes. The rows' classes (`Challenge`, `User`) are named from here too, so that the tables'
move to their domains' models changes this module's imports alone.
"""

from __future__ import annotations

from sqlalchemy import or_, select

from shashki.server.storage import Database
from shashki.server.storage.models import Challenge, GameRecord, Seek, User


async def challenge_by_id(db: Database, challenge_id: int) -> Challenge | None:
    """-> LobbyService.challenge_by_id(id): one challenge, whatever its status."""
    async with db.session() as s:
        return await s.get(Challenge, challenge_id)


async def pending_challenges(db: Database, user_id: int, *, incoming_only: bool) -> list[Challenge]:
    """-> LobbyService.pending_challenges(user_id, incoming_only): rows, oldest first (the lobby's
    `challenges()` answers its own JSON, without the decline reason and game id lidraughts shows)."""
    mine = Challenge.dest_user_id == user_id
    if not incoming_only:
        mine = or_(mine, Challenge.challenger_id == user_id)
    query = select(Challenge).where(Challenge.status == "pending", mine).order_by(Challenge.id)
    async with db.session() as s:
        return list(await s.scalars(query))


async def seek_is_open(db: Database, seek_id: int) -> bool:
    """-> LobbyService.seek_is_open(id)."""
    async with db.session() as s:
        return await s.scalar(select(Seek.status).where(Seek.id == seek_id)) == "open"


async def users_by_keys(db: Database, keys: list[str]) -> list[User]:
    """-> AccountService.users_by_name(keys): the existing accounts among lower-cased names, in order."""
    if not keys:
        return []
    async with db.session() as s:
        found = {u.username_key: u for u in await s.scalars(select(User).where(User.username_key.in_(keys)))}
    return [found[key] for key in dict.fromkeys(keys) if key in found]


async def playing_user_ids(db: Database, user_ids: list[int]) -> set[int]:
    """-> GameService.playing(user_ids): which of these accounts have a game in progress."""
    if not user_ids:
        return set()
    async with db.session() as s:
        rows = await s.execute(
            select(GameRecord.white_id, GameRecord.black_id).where(
                GameRecord.status == "started",
                or_(GameRecord.white_id.in_(user_ids), GameRecord.black_id.in_(user_ids)),
            )
        )
        seated = {i for row in rows for i in row if i is not None}
    return seated & set(user_ids)
