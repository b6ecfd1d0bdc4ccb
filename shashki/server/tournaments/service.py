"""The tournament service (issue 13): create, join, withdraw, pause, berserk (`berserk.py`), and the
reads (list, standings, pairings, results, PDN). The pairing itself is the director's (`director.py`);
the results come from the games store, whose listener this service is (`results.py`).

It owns the tournaments' tables (`models.py`) and asks the other domains only through their public
services: games are created by `GameService.create` with `GameTerms` (so rated tournament games are
rated games like any other: the ratings' end hook moves them), players' names from the accounts, ratings
from the ratings service. Every change is published on `tournament:<id>` (`live.py`).
"""

from __future__ import annotations

import contextlib
import secrets
import string
from datetime import datetime
from typing import Any

from sqlalchemy import desc, select, update
from sqlalchemy.exc import IntegrityError
from sqlalchemy.ext.asyncio import AsyncSession

from shashki.server.accounts import AccountService
from shashki.server.accounts.models import User
from shashki.server.accounts.names import refuse_the_servers_name
from shashki.server.errors import Conflict, Forbidden, Invalid, NotFound
from shashki.server.games.service import GameService
from shashki.server.history.export import pdn
from shashki.server.ratings import RatingService
from shashki.server.ratings.speed import speed_of
from shashki.server.storage import Database
from shashki.server.storage.base import utcnow
from shashki.server.tournaments.berserk import Berserk
from shashki.server.tournaments.conditions import check_conditions, take_room
from shashki.server.tournaments.live import TournamentFeed
from shashki.server.tournaments.models import Tournament, TournamentPairing, TournamentPlayer
from shashki.server.tournaments.state import (
    ARENA,
    CREATED,
    FINISHED,
    PLAYING,
    STARTED,
    SWISS,
    UNFINISHED,
    Snapshot,
    load,
)
from shashki.server.tournaments.swiss import late_join_bye
from shashki.server.tournaments.terms import TournamentTerms, password_digest, password_matches
from shashki.server.tournaments.views import (
    PAGE,
    T_ARENA_GAMES,
    me_json,
    pairing_json,
    shown_pairings,
    standing_json,
    tournament_json,
)

ID_ALPHABET = string.ascii_letters + string.digits
FINISHED_LISTED = 20  # the contract: the last 20 finished ones


class TournamentService(Berserk):
    def __init__(
        self,
        db: Database,
        games: GameService,
        accounts: AccountService,
        ratings: RatingService,
        feed: TournamentFeed,
        *,
        min_clock_ms: int = 15_000,
    ) -> None:
        self.db = db
        self.games = games
        self.accounts = accounts
        self.ratings = ratings
        self.feed = feed
        self.min_clock_ms = min_clock_ms
        # The games know their tournament through this lookup (the table is ours).
        games.store.tournaments_of = self.tournaments_of
        feed.build = self.published

    # -- reading ---------------------------------------------------------------------------------------

    async def tournaments_of(self, s: AsyncSession, game_ids: list[str]) -> dict[str, str]:
        """The tournament of each of these games that belongs to one."""
        rows = await s.execute(
            select(TournamentPairing.game_id, TournamentPairing.tournament_id).where(
                TournamentPairing.game_id.in_(game_ids)
            )
        )
        return {game_id: tournament_id for game_id, tournament_id in rows if game_id is not None}

    async def snapshot(self, tournament_id: str) -> Snapshot:
        async with self.db.session() as s:
            snap = await load(s, tournament_id)
        if snap is None:
            raise NotFound("no_such_tournament", f"There is no tournament {tournament_id!r}.")
        t = snap.tournament
        if snap.players:
            speed = speed_of(t.clock_initial_ms, t.clock_increment_ms)
            found = await self.ratings.for_players([p.user_id for p in snap.players], t.variant, speed)
            snap.ratings = {i: r["rating"] for i, r in found.items()}
        return snap

    async def _users(self, snap: Snapshot) -> dict[int, User]:
        ids = {p.user_id for p in snap.players} | {
            i for p in snap.pairings for i in (p.white_id, p.black_id) if i is not None
        }
        if snap.tournament.created_by is not None:
            ids.add(snap.tournament.created_by)
        return await self.accounts.users_by_id(ids)

    async def _fens(self, pairings: list[TournamentPairing]) -> dict[str, str]:
        """The positions of the games in play (a mini board each): from the live games' cache."""
        fens = {}
        for p in pairings:
            if p.status == PLAYING and p.game_id:
                try:
                    fens[p.game_id] = (await self.games.live(p.game_id)).rules.position.fen()
                except NotFound:
                    continue
        return fens

    async def view(self, snap: Snapshot, viewer: int | None = None, *, full: bool = True) -> dict[str, Any]:
        users = await self._users(snap)
        standings = snap.standings() if full else []
        fens = await self._fens(shown_pairings(snap, limit=T_ARENA_GAMES)) if full else {}
        out = tournament_json(snap, users, standings, fens, full=full)
        if viewer is not None:
            out["me"] = me_json(snap.player(viewer), snap)
        return out

    async def get(self, tournament_id: str, viewer: int | None = None) -> dict[str, Any]:
        return await self.view(await self.snapshot(tournament_id), viewer)

    async def entries(self, snap: Snapshot) -> dict[str, dict[str, Any]]:
        """Every entrant's "me", keyed by user id (the socket of each picks its own)."""
        return {str(p.user_id): me_json(p, snap) for p in snap.players}

    async def published(self, tournament_id: str) -> dict[str, Any]:
        """What the tournament's channel carries after a change (`live.py`)."""
        snap = await self.snapshot(tournament_id)
        return {
            "type": "tournament",
            "tournament": await self.view(snap),
            "entries": await self.entries(snap),
        }

    async def list(self, viewer: int | None = None) -> dict[str, list[dict[str, Any]]]:
        out: dict[str, list[dict[str, Any]]] = {CREATED: [], STARTED: [], FINISHED: []}
        async with self.db.session() as s:
            ids = list(
                await s.scalars(
                    select(Tournament.id).where(Tournament.status.in_(UNFINISHED)).order_by(Tournament.starts_at)
                )
            )
            ids += list(
                await s.scalars(
                    select(Tournament.id)
                    .where(Tournament.status == FINISHED)
                    .order_by(desc(Tournament.finished_at))
                    .limit(FINISHED_LISTED)
                )
            )
        for tournament_id in ids:
            t = await self.view(await self.snapshot(tournament_id), viewer, full=False)
            out[t["status"]].append(t)
        return out

    async def standings(self, tournament_id: str, page: int = 1) -> dict[str, Any]:
        snap = await self.snapshot(tournament_id)
        rows = snap.standings()
        users = await self._users(snap)
        pages = max(1, -(-len(rows) // PAGE))
        page = min(max(page, 1), pages)
        shown = rows[(page - 1) * PAGE : page * PAGE]
        return {"page": page, "pages": pages, "players": [standing_json(s, users) for s in shown]}

    async def results(self, tournament_id: str) -> dict[str, Any]:
        snap = await self.snapshot(tournament_id)
        users = await self._users(snap)
        return {
            "status": snap.tournament.status,
            "players": [standing_json(s, users) for s in snap.standings()],
        }

    async def pairings(self, tournament_id: str, round_number: int | None = None) -> dict[str, Any]:
        snap = await self.snapshot(tournament_id)
        users = await self._users(snap)
        shown = shown_pairings(snap, round_number)
        fens = await self._fens(shown)
        number = None if snap.tournament.system == ARENA else (round_number or snap.tournament.round)
        return {"round": number, "pairings": [pairing_json(p, users, fens) for p in shown]}

    async def pdn(self, tournament_id: str, *, site: str) -> str:
        """Every game of the tournament in one PDN file, in the order they were paired (the export of
        `history.export.pdn`, one game after another)."""
        snap = await self.snapshot(tournament_id)
        ids = [p.game_id for p in snap.games() if p.game_id]
        moves = await self.games.queries.moves_of(ids)
        users = await self._users(snap)
        texts = []
        for game_id in ids:
            record = await self.games.queries.stored(game_id)
            if record is not None:
                texts.append(pdn(record, moves.get(game_id, []), users, site=f"{site}/game/{game_id}"))
        return "\n".join(texts)

    # -- creating and entering -------------------------------------------------------------------------

    async def create(
        self,
        user: User | None,
        terms: TournamentTerms,
        *,
        schedule_key: str | None = None,
        now: datetime | None = None,
    ) -> dict[str, Any]:
        """A new tournament by `user` (None: the server's schedule)."""
        now = now or utcnow()
        terms = terms.checked(now, self.min_clock_ms)
        if user is not None:
            refuse_the_servers_name(terms.name, "tournaments")
        assert terms.starts_at is not None
        tournament_id = "".join(secrets.choice(ID_ALPHABET) for _ in range(8))
        from datetime import timedelta

        t = Tournament(
            id=tournament_id,
            name=terms.name,
            system=terms.system,
            variant=terms.variant,
            clock_initial_ms=round(terms.initial_seconds * 1000),
            clock_increment_ms=round(terms.increment_seconds * 1000),
            rated=terms.rated,
            status=CREATED,
            starts_at=terms.starts_at,
            ends_at=terms.starts_at + timedelta(minutes=terms.minutes) if terms.minutes else None,
            minutes=terms.minutes,
            rounds=terms.rounds,
            double=terms.double,
            round=0,
            created_by=user.id if user else None,
            password_hash=password_digest(tournament_id, terms.password) if terms.password else None,
            min_rating=terms.min_rating,
            min_games=terms.min_games,
            max_players=terms.max_players,
            schedule_key=schedule_key,
            created_at=now,
        )
        async with self.db.session() as s:
            s.add(t)
            try:
                await s.commit()
            except IntegrityError:
                raise Conflict("already_scheduled", "That scheduled tournament exists already.") from None
        await self.feed.lobby()
        return await self.get(tournament_id, user.id if user else None)

    async def join(self, user: User, tournament_id: str, password: str | None = None) -> dict[str, Any]:
        """Enter (or come back to) a tournament. Entering an arena pauses the player in every other arena
        they are playing, as lila's `withdrawOtherTournaments`: one arena at a time pairs them."""
        joined = await self._join(user, tournament_id, password)
        if joined.get("system") == ARENA:
            await self._pause_other_arenas(user, tournament_id)
        return joined

    async def _pause_other_arenas(self, user: User, tournament_id: str) -> None:
        async with self.db.session() as s:
            ids = list(await s.scalars(select(TournamentPlayer.tournament_id).join(Tournament).where(
                TournamentPlayer.user_id == user.id, TournamentPlayer.withdrawn.is_(False),
                TournamentPlayer.paused.is_(False), Tournament.system == ARENA,
                Tournament.status != FINISHED, Tournament.id != tournament_id)))  # fmt: skip
        for other in ids:
            with contextlib.suppress(Conflict):  # over, or left, meanwhile
                await self._leave(user, other, paused=True)

    async def _join(self, user: User, tournament_id: str, password: str | None) -> dict[str, Any]:
        snap = await self.snapshot(tournament_id)
        t = snap.tournament
        if t.status == FINISHED:
            raise Conflict("tournament_finished", "This tournament is over.")
        if user.is_bot and t.system == ARENA:
            raise Forbidden("bots_not_allowed", "Bots may join Swiss events and round robins, not arenas.")
        if t.password_hash is not None and not password_matches(t.id, t.password_hash, password):
            raise Forbidden("wrong_password", "This tournament is private: its password is needed.")
        entry = snap.player(user.id)
        now = utcnow()
        if entry is not None:  # coming back: after a pause (arena), or undoing a withdrawal before the start
            if entry.withdrawn and not (t.system == ARENA or t.status == CREATED):
                raise Conflict("withdrawn", "You withdrew from this tournament: you cannot come back.")
            async with self.db.session() as s:
                if entry.withdrawn:  # counted again: there must be room
                    await take_room(s, t)
                await s.execute(
                    update(TournamentPlayer)
                    .where(TournamentPlayer.id == entry.id)
                    .values(paused=False, withdrawn=False, waiting_since=entry.waiting_since or now)
                )
                await s.commit()
            return await self._changed(t.id, user.id)
        await check_conditions(snap, user, self.ratings)
        rating = snap.ratings.get(user.id)
        if rating is None:
            found = await self.ratings.for_players(
                [user.id], t.variant, speed_of(t.clock_initial_ms, t.clock_increment_ms)
            )
            rating = found[user.id]["rating"]
        entry = TournamentPlayer(
            tournament_id=t.id, user_id=user.id, rating=rating, joined_at=now, waiting_since=now
        )
        async with self.db.session() as s:
            status, round_now = await take_room(s, t)
            s.add(entry)
            try:
                await s.flush()
                if t.system == SWISS and status == STARTED:
                    bye = late_join_bye(user.id, round_now)
                    if bye is not None:
                        s.add(
                            TournamentPairing(
                                tournament_id=t.id,
                                round=bye.round,
                                white_id=user.id,
                                bye=bye.kind.value,
                                status="finished",
                                created_at=now,
                                finished_at=now,
                            )
                        )
                await s.commit()
            except IntegrityError:
                await s.rollback()
        return await self._changed(t.id, user.id)

    async def withdraw(self, user: User, tournament_id: str) -> dict[str, Any]:
        """Leave: Swiss and round robin, not paired in later rounds (the results stay); arena, not paired
        again (the points stay; joining again comes back)."""
        return await self._leave(user, tournament_id, paused=False)

    async def withdraw_everywhere(self, user: User) -> None:
        """Withdraw from every tournament not over yet, as the account closes (accounts/security.py)."""
        async with self.db.session() as s:
            ids = list(await s.scalars(select(TournamentPlayer.tournament_id).join(Tournament).where(
                TournamentPlayer.user_id == user.id, TournamentPlayer.withdrawn.is_(False),
                Tournament.status != FINISHED)))  # fmt: skip
        for tournament_id in ids:
            with contextlib.suppress(Conflict):  # over, or left, meanwhile
                await self._leave(user, tournament_id, paused=False)

    async def pause(self, user: User, tournament_id: str) -> dict[str, Any]:
        """Arena only: not paired again until the player joins again (lila `Pause`)."""
        t = (await self.snapshot(tournament_id)).tournament
        if t.system != ARENA:
            raise Invalid("arena_only", "Only an arena can be paused; withdraw from a Swiss or round robin.")
        return await self._leave(user, tournament_id, paused=True)

    async def _leave(self, user: User, tournament_id: str, *, paused: bool) -> dict[str, Any]:
        snap = await self.snapshot(tournament_id)
        entry = snap.player(user.id)
        if entry is None or entry.withdrawn:
            raise Conflict("not_joined", "You are not playing in this tournament.")
        if snap.tournament.status == FINISHED:
            raise Conflict("tournament_finished", "This tournament is over.")
        values: dict[str, Any] = {"paused": True} if paused else {"withdrawn": True, "paused": False}
        if paused:
            times = [*entry.pause_times.split(), f"{utcnow().timestamp():.3f}"]
            values["pause_times"] = " ".join(times[-20:])
        async with self.db.session() as s:
            await s.execute(update(TournamentPlayer).where(TournamentPlayer.id == entry.id).values(**values))
            await s.commit()
        return await self._changed(tournament_id, user.id)

    async def _changed(self, tournament_id: str, viewer: int | None) -> dict[str, Any]:
        """After a player joined, came back, withdrew or paused: its state and the lists' counts."""
        self.feed.entrants_changed(tournament_id)
        self.feed.poke()
        return await self.get(tournament_id, viewer)
