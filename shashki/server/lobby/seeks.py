"""Seeks and quick pairing: the lobby's open offers to anyone (`LobbyService` is one with its
challenges).

Creating a seek first looks for a compatible open seek of someone else and, if there is one, starts the
game at once (which is all quick pairing is: a seek with a preset clock); else it posts the seek, one open
seek a player. Two compatible seeks posted at the same moment make one game, in one process or several
(`create_seek`). Taking a seek marks it matched in the transaction that creates the game.
"""

from __future__ import annotations

import asyncio
import logging
from collections.abc import Awaitable, Callable
from dataclasses import replace
from typing import Any

from sqlalchemy import select, update

from shashki.rules import DEFAULT_VARIANT_KEY
from shashki.server.accounts import AccountService
from shashki.server.accounts.models import User
from shashki.server.errors import Conflict, Invalid, NotFound, log_failure
from shashki.server.events import EventBus
from shashki.server.games.models import GameRecord
from shashki.server.games.service import GameService
from shashki.server.games.statements import Claim
from shashki.server.games.terms import GameTerms
from shashki.server.lobby.links import refuse_bot, refuse_rated_anonymous
from shashki.server.lobby.models import Seek
from shashki.server.lobby.offers import (
    QUICK_PAIRING,
    Blocks,
    TimeControl,
    check_clock,
    check_color,
    colors_fit,
    hidden_seekers,
    seats,
)
from shashki.server.lobby.rows import SEEKS
from shashki.server.lobby.views import seek_json
from shashki.server.ratings.speed import speed_of
from shashki.server.storage import SEEKS_LOCK, Database, rows_changed
from shashki.server.storage.base import utcnow
from shashki.server.storage.direct import Update
from shashki.server.storage.ops import Rows

log = logging.getLogger("shashki.server")

MATCH_ATTEMPTS = 50  # looks for a compatible seek, each one's match taken by someone else first


class Seeks:
    """The seeks' part of the lobby service, on the service's database, bus, games and accounts."""

    db: Database
    bus: EventBus
    games: GameService
    accounts: AccountService
    min_clock_ms: int
    blocks: Blocks | None
    _leaving: set[asyncio.Task]  # `withdraw_when_gone`'s waits
    # Whether a player has a page of the site open now, in any process (`social.Online.here`), set by the
    # app; and the players the last `sweep_left` found without one.
    here: Callable[[int], Awaitable[bool]] | None
    _absent: set[int]
    # The ratings of players in a variant and speed (RatingService.for_players), set by the app.
    ratings_of: Callable[[list[int], str, str], Awaitable[dict[int, dict]]] | None

    def new_seek(
        self,
        user: User,
        terms: GameTerms | None = None,
        *,
        color: str = "random",
        variant: str = DEFAULT_VARIANT_KEY,
        double_diagonal: bool = False,
        time_control: TimeControl | None = None,
        rated: bool = False,
        days_per_move: int | None = None,
    ) -> Seek:
        """The seek `create_seek` would post, not stored yet; Invalid or Forbidden saying what is wrong
        with it (a stream that answers a seek checks it before it starts: the Bot API's)."""
        if terms is None:
            terms = (time_control or TimeControl(None)).terms(variant, double_diagonal, rated)
            terms = replace(terms, days_per_move=days_per_move)
        terms = check_clock(replace(terms, initial_fen=None).checked(), self.min_clock_ms)
        refuse_bot(user)
        refuse_rated_anonymous(user, terms.rated)
        return Seek(
            user_id=user.id,
            **terms.columns(with_fen=False),
            color=check_color(color),
            status="open",
            created_at=utcnow(),
        )

    async def create_seek(self, user: User, terms: GameTerms | None = None, **options: Any) -> dict:
        """Post a seek on `terms` (or on the terms given one by one: `new_seek`'s options), or start a
        game at once with a compatible seek already waiting. A seek starts from the variant's start
        position."""
        seek = self.new_seek(user, terms, **options)
        await self.refuse_playing(user, seek)
        if self.here is not None and seek.clock_initial_ms is not None:
            seek.page_held = await self.here(user.id)  # a page's seek leaves with it; an API client's stays
        terms = GameTerms.of(seek)
        hidden = await hidden_seekers(self.blocks, user.id)

        def fits(w: Seek) -> bool:
            return (
                GameTerms.of(w) == terms
                and colors_fit(w.color, seek.color)
                and w.user_id not in hidden  # no pairing across a block (social)
            )

        # A compatible seek taken by someone else first: look again (each look either finds another or
        # stores this one), as often as it takes (found by an audit: after three, a burst of players
        # seeking at once was answered "someone else accepted that seek first", their seek not posted).
        for _attempt in range(MATCH_ATTEMPTS):
            match = await self._stored_unless_matched(seek, fits)
            if match is None:
                break
            try:
                return {"seek": None, "game": await self._accept(match, user, taker_color=seek.color)}
            except Conflict as refused:
                if refused.code != "seek_taken":
                    raise
        else:
            raise Conflict("lobby_busy", "Too many players are seeking at this moment: try again.")
        # Two compatible seeks made at the same moment each found none of the other before its own was
        # stored. SQLite numbers its rows in the order they are committed, so the later of the two sees
        # the earlier now, and it (only it: the earlier looks for none older than its own) takes it,
        # provided its own seek is still open (else someone took it meanwhile, and that is its game);
        # an older one taken meanwhile by someone else, the next older one (found by an audit: two
        # compatible seeks were left side by side). PostgreSQL matches seeks one at a time
        # (`_stored_unless_matched`), so this finds none there.
        async with self.db.session() as s:
            older = await s.scalars(
                select(Seek)
                .where(Seek.status == "open", Seek.user_id != user.id, Seek.id < seek.id)
                .order_by(Seek.id)
            )
            candidates = [w for w in older if fits(w)]
        for match in candidates:
            try:
                game = await self._accept(match, user, own_seek=seek.id, taker_color=seek.color)
                return {"seek": None, "game": game}
            except Conflict as refused:
                if refused.code == "own_seek_taken":
                    return {"seek": None, "game": await self._game_of_seek(seek.id)}
                if refused.code != "seek_taken":
                    raise
        await self.bus.publish("lobby", {"type": "seeks", "seeks": await self.list_seeks()})
        return {"seek": await self._seek_json(seek), "game": None}

    async def refuse_playing(self, user: User, seek: Seek) -> None:
        """A seek with a clock is no offer for a player whose game with a clock is in play: Conflict
        `playing`, naming the game (lichess refuses the same; found by an audit: a player in a timed game
        took seek after seek, seated in several timed games at once)."""
        if seek.clock_initial_ms is None:
            return
        playing = (await self.games.queries.in_play_of_players({user.id}, clocked=True)).get(user.id)
        if playing:
            message = "You are playing a game with a clock: finish it first."
            raise Conflict("playing", message, game_id=playing[0])

    async def withdraw_at_start(self, record: GameRecord) -> None:
        """A game with a clock has started (`GameService.start_hooks`): its players' open seeks with a
        clock are withdrawn, whatever started it — a challenge, a link, the computer, a rematch, a
        tournament's pairing (found by an audit: a seek outlived its player's game's start, and whoever
        took it seated them in a second timed game)."""
        if record.clock_initial_ms is None:
            return
        withdrawn = False
        for user_id in {record.white_id, record.black_id} - {None}:
            for row in await self.db.direct.rows(
                Rows(SEEKS, ("id", "clock_initial_ms"), {"status": "open", "user_id": user_id})
            ):
                if row["clock_initial_ms"] is not None:
                    where = {"id": row["id"], "status": "open"}
                    await self.db.direct.write(Update(SEEKS, {"status": "cancelled"}, where, expect=None))
                    withdrawn = True
        if withdrawn:
            await self.bus.publish("lobby", {"type": "seeks", "seeks": await self.list_seeks()})

    async def _stored_unless_matched(self, seek: Seek, fits: Callable[[Seek], bool]) -> Seek | None:
        """The oldest open seek of someone else that `fits`, or None once `seek` is stored (its player's
        other open seek withdrawn: one open seek a player)."""
        async with self.db.session() as s:
            await self.db.lock_for_transaction(s, SEEKS_LOCK)  # PostgreSQL: seeks matched one at a time
            waiting = await s.scalars(
                select(Seek).where(Seek.status == "open", Seek.user_id != seek.user_id).order_by(Seek.id)
            )
            match = next((w for w in waiting if fits(w)), None)
            if match is None:
                await s.execute(
                    update(Seek)
                    .where(Seek.status == "open", Seek.user_id == seek.user_id)
                    .values(status="cancelled")
                )
                s.add(seek)
                await s.commit()
        return match

    async def _game_of_seek(self, seek_id: int) -> dict | None:
        """The state of the game a matched seek started (None if it ended otherwise)."""
        async with self.db.session() as s:
            game_id = await s.scalar(select(Seek.game_id).where(Seek.id == seek_id))
        return None if game_id is None else await self.games.get_state(game_id)

    async def accept_seek(self, user: User, seek_id: int) -> dict:
        async with self.db.session() as s:
            seek = await s.get(Seek, seek_id)
        if seek is None or seek.status not in ("open", "matched"):
            raise NotFound("no_such_seek", "That seek is no longer open.")
        if seek.user_id in await hidden_seekers(self.blocks, user.id):
            raise NotFound("no_such_seek", "That seek is no longer open.")  # as if unseen: blocks are private
        if seek.status == "matched":  # taken by someone else before this was read
            raise Conflict("seek_taken", "Someone else accepted that seek first.")
        if seek.user_id == user.id:
            raise Conflict("own_seek", "You cannot accept your own seek.")
        refuse_bot(user)
        refuse_rated_anonymous(user, seek.rated)
        await self.refuse_playing(user, seek)
        try:
            return await self._accept(seek, user)
        except Conflict as refused:
            # Taken by someone else, or withdrawn by its player meanwhile: say which.
            async with self.db.session() as s:
                status = await s.scalar(select(Seek.status).where(Seek.id == seek_id))
            if refused.code == "seek_taken" and status == "cancelled":
                withdrawn = "That seek is no longer open: its player withdrew it."
                raise NotFound("no_such_seek", withdrawn) from None
            raise

    async def _accept(self, seek: Seek, user: User, *, own_seek: int | None = None,
                      taker_color: str = "random") -> dict:
        """Take a seek: it is marked matched (with the game's id), and the taker's own open seek
        withdrawn, in the transaction that creates the game: no seek is matched without a game. With
        `own_seek`, the taker's seek must still be open (Conflict `own_seek_taken` if it is not). A taker
        whose own seek asked for a colour the waiting one leaves open gets it (found by an audit: drawn
        at random, it was the other colour half the time)."""
        if seek.color == "random" and taker_color != "random":
            white_id, black_id = seats(user.id, taker_color, seek.user_id)
        else:
            white_id, black_id = seats(seek.user_id, seek.color, user.id)

        def take(game_id: str) -> list[Claim]:
            matched = Update(
                SEEKS, {"status": "matched", "game_id": game_id}, {"id": seek.id, "status": "open"}
            )
            taken = Conflict("seek_taken", "Someone else accepted that seek first.")
            if own_seek is not None:
                mine = Update(SEEKS, {"status": "cancelled"}, {"id": own_seek, "status": "open"})
                yours = Conflict("own_seek_taken", "Your own seek was taken meanwhile.")
                return [Claim(matched, taken), Claim(mine, yours)]
            # The taker's own open seek, if any, is withdrawn.
            mine = Update(SEEKS, {"status": "cancelled"}, {"status": "open", "user_id": user.id}, expect=None)
            return [Claim(matched, taken), Claim(mine)]

        live = await self.games.create(
            white_id=white_id, black_id=black_id, terms=GameTerms.of(seek), claims=take
        )
        await self.bus.publish("lobby", {"type": "seeks", "seeks": await self.list_seeks()})
        return self.games.state(live)

    async def quick_pairing(
        self, user: User, preset: str, *, variant: str = "russian-giveaway", rated: bool = False
    ) -> dict:
        if preset not in QUICK_PAIRING:
            raise Invalid("bad_preset", f"Quick pairing presets are {', '.join(QUICK_PAIRING)}.")
        return await self.create_seek(user, QUICK_PAIRING[preset].terms(variant, rated=rated))

    async def cancel_seek(self, user: User, seek_id: int) -> None:
        async with self.db.session() as s:
            done = await s.execute(
                update(Seek)
                .where(Seek.id == seek_id, Seek.user_id == user.id, Seek.status == "open")
                .values(status="cancelled")
            )
            await s.commit()
        if rows_changed(done) != 1:
            raise NotFound("no_such_seek", "You have no such open seek.")
        await self.bus.publish("lobby", {"type": "seeks", "seeks": await self.list_seeks()})

    async def withdraw_left(self, user_id: int) -> bool:
        """Withdraw the player's open seeks with a clock, and cancel their pending challenges with one
        (found by an audit: a challenge outlived its challenger's closed page, and whoever accepted it
        waited for the first-move abort); whether there were any. Correspondence and untimed offers stay:
        they wait for days, as on lichess."""
        async with self.db.session() as s:
            done = await s.execute(
                update(Seek)
                .where(Seek.user_id == user_id, Seek.status == "open", Seek.clock_initial_ms.is_not(None))
                .values(status="cancelled")
            )
            await s.commit()
        cancelled = await self.cancel_timed_challenges(user_id)
        if not rows_changed(done):
            return cancelled > 0
        await self.bus.publish("lobby", {"type": "seeks", "seeks": await self.list_seeks()})
        return True

    async def cancel_timed_challenges(self, user_id: int) -> int:  # the lobby service's
        raise NotImplementedError

    def withdraw_when_gone(
        self, user_id: int, here: Callable[[int], Awaitable[bool]], seconds: float
    ) -> None:
        """A real-time seek leaves with its player, as on lichess: called as the player's lobby socket
        closes (it is open on every page of the site); if `seconds` later they have no page open (`here`:
        in any process), their seeks with a clock are withdrawn. A page left for the next one opens its
        socket at once; the Board API's seek stream counts as a page (lidraughts/api.py)."""

        async def later() -> None:
            await asyncio.sleep(seconds)
            try:
                if not await here(user_id):
                    await self.withdraw_left(user_id)
            except Exception:  # a backing service away: the seek stays, as it would have
                log_failure(log, "withdrawing the seeks of a player who left")

        task = asyncio.create_task(later())
        self._leaving.add(task)
        task.add_done_callback(self._leaving.discard)

    async def sweep_left(self) -> int:
        """Withdraw the seeks with a clock of players who made them from a page of the site (`page_held`)
        and had none open at this sweep and the one before: the pages a process took with it when it
        died, or a restart, whose sockets never closed to say so (`withdraw_when_gone`; found by an audit:
        a seek outlived its player's process for minutes). Run every `seek_left_seconds` in each process
        (`sweep_left_forever`); how many players' seeks it withdrew."""
        if self.here is None:
            return 0
        async with self.db.session() as s:
            seekers = set(
                await s.scalars(
                    select(Seek.user_id).where(
                        Seek.status == "open", Seek.page_held, Seek.clock_initial_ms.is_not(None)
                    )
                )
            )
        gone = {user_id for user_id in seekers if not await self.here(user_id)}
        withdrawn = 0
        for user_id in sorted(gone & self._absent):
            withdrawn += await self.withdraw_left(user_id)
        self._absent = gone - self._absent
        return withdrawn

    async def sweep_left_forever(self, seconds: float) -> None:
        while True:
            await asyncio.sleep(seconds)
            try:
                await self.sweep_left()
            except Exception:
                log_failure(log, "the seeks of players who left could not be swept")

    async def list_seeks(self, viewer_id: int | None = None) -> list[dict]:
        """The open seeks, oldest first; those of players blocked either way hidden from `viewer_id`."""
        hidden = await hidden_seekers(self.blocks, viewer_id)
        async with self.db.session() as s:
            seeks = list(await s.scalars(select(Seek).where(Seek.status == "open").order_by(Seek.id)))
        users = await self.accounts.users_by_id({seek.user_id for seek in seeks})
        # A seek whose account is gone (deleted with it) is not listed.
        shown = [seek for seek in seeks if seek.user_id in users and seek.user_id not in hidden]
        ratings = await self._ratings(shown, users)
        return [seek_json(seek, users[seek.user_id], ratings.get(seek.id)) for seek in shown]

    async def _seek_json(self, seek: Seek) -> dict:
        users = await self.accounts.users_by_id({seek.user_id})
        return seek_json(seek, users[seek.user_id], (await self._ratings([seek], users)).get(seek.id))

    async def _ratings(self, seeks: list[Seek], users: dict[int, User]) -> dict[int, dict]:
        """Each seek's player's rating in its variant and speed (as lichess lists them; none for an
        anonymous player): one read per variant and speed listed."""
        if self.ratings_of is None:
            return {}
        groups: dict[tuple[str, str], list[Seek]] = {}
        for seek in seeks:
            if not users[seek.user_id].anonymous:
                speed = speed_of(seek.clock_initial_ms, seek.clock_increment_ms)
                groups.setdefault((seek.variant, speed), []).append(seek)
        out: dict[int, dict] = {}
        for (variant, speed), members in groups.items():
            found = await self.ratings_of([seek.user_id for seek in members], variant, speed)
            out.update({seek.id: found[seek.user_id] for seek in members})
        return out

    async def seek_is_open(self, seek_id: int) -> bool:
        async with self.db.session() as s:
            return await s.scalar(select(Seek.status).where(Seek.id == seek_id)) == "open"
