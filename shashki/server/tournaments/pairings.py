"""The director's pairings as stored: what each pairing writes, and when, so that a game exists exactly
when its pairing does (issue 13).

Which players meet is the pure rules' (`arena_pairing`, `swiss`, `roundrobin`) and when to pair is the
director's (`director.py`); this module is how the result is written to the tournament's tables:

- an arena game's pairing (`arena_pairing`) is written in its game's own transaction (`within` of
  `GameService.create`): the pairing row, the wave's number, the seats, and the players' game column;
- a Swiss or round-robin round (`store_round`) is stored whole, before any of its games, in one
  transaction with the round number (compare-and-set), so that a restart creates the games still missing
  instead of pairing again; each game is then attached to its stored pairing in the game's transaction
  (`round_game`).

The seats' primary key (tournament, round, player) and the guarded updates of the players' and the
pairings' game columns make a double pairing impossible even with two directors at once.
"""

from __future__ import annotations

from collections.abc import Iterable
from datetime import datetime

from sqlalchemy import select, update
from sqlalchemy.exc import IntegrityError
from sqlalchemy.ext.asyncio import AsyncSession

from shashki.server.errors import Conflict
from shashki.server.games.service import AlsoWrite
from shashki.server.storage import Database, rows_changed
from shashki.server.tournaments.models import Tournament, TournamentPairing, TournamentPlayer, TournamentSeat
from shashki.server.tournaments.state import DONE, DOUBLE_FORFEIT, PENDING, PLAYING, ROUNDROBIN, Snapshot
from shashki.server.tournaments.swiss import ByeKind


def _pairing(
    snap: Snapshot, number: int, white: int, black: int, status: str, now: datetime
) -> TournamentPairing:
    """A pairing row of round (or wave) `number`, with both players' ratings as the tournament saw them."""
    return TournamentPairing(
        tournament_id=snap.tournament.id,
        round=number,
        white_id=white,
        black_id=black,
        status=status,
        created_at=now,
        white_rating=snap.ratings.get(white, 1500),
        black_rating=snap.ratings.get(black, 1500),
    )


def arena_pairing(snap: Snapshot, wave: int, white: int, black: int, now: datetime) -> AlsoWrite:
    """An arena game's pairing, for its game's transaction: the pairing row of wave `wave`, the
    tournament's wave number raised to it, the two seats, and each player's game column — set only while
    the player still waits (in no game, not paused, not withdrawn); otherwise Conflict, and no game."""
    t = snap.tournament

    async def within(s: AsyncSession, game_id: str) -> None:
        pairing = _pairing(snap, wave, white, black, PLAYING, now)
        pairing.game_id = game_id
        s.add(pairing)
        await s.flush()
        await s.execute(
            update(Tournament).where(Tournament.id == t.id, Tournament.round < wave).values(round=wave)
        )
        s.add_all(
            [
                TournamentSeat(tournament_id=t.id, round=wave, user_id=u, pairing_id=pairing.id)
                for u in (white, black)
            ]
        )
        for user in (white, black):
            done = await s.execute(
                update(TournamentPlayer)
                .where(
                    TournamentPlayer.tournament_id == t.id,
                    TournamentPlayer.user_id == user,
                    TournamentPlayer.game_id.is_(None),
                    TournamentPlayer.paused.is_(False),
                    TournamentPlayer.withdrawn.is_(False),
                )
                .values(game_id=game_id, waiting_since=None)
            )
            if rows_changed(done) != 1:
                raise Conflict("not_waiting", "The player is no longer waiting.")

    return within


async def store_round(
    db: Database,
    snap: Snapshot,
    number: int,
    games: Iterable[tuple[int, int]],
    bye: int | None,
    now: datetime,
) -> bool:
    """Round `number` stored whole, in one transaction with the round number (compare-and-set on the
    snapshot's): its pairings pending (a round robin's game against a player who withdrew done, won by
    forfeit; between two who both withdrew, lost by both: `DOUBLE_FORFEIT`), the bye, and every seat.
    False, and nothing written, when another writer stored a round first, or when the players are no
    longer the snapshot's (one joined or withdrew since it was read: an entry takes the tournament's row
    first, as this does, `TournamentService.join`); the director pairs again from a fresh snapshot."""
    t = snap.tournament
    withdrawn = {p.user_id for p in snap.players if p.withdrawn}
    async with db.session() as s:
        done = await s.execute(
            update(Tournament)
            .where(Tournament.id == t.id, Tournament.round == t.round)
            .values(round=number)
        )
        entered = set(
            await s.scalars(
                select(TournamentPlayer.user_id).where(
                    TournamentPlayer.tournament_id == t.id, TournamentPlayer.withdrawn.is_(False)
                )
            )
        )
        if rows_changed(done) != 1 or entered != {p.user_id for p in snap.players if not p.withdrawn}:
            await s.rollback()
            return False
        rows = []
        for white, black in games:
            row = _pairing(snap, number, white, black, PENDING, now)
            if white in withdrawn or black in withdrawn:  # round robin: a forfeit
                row.status, row.finished_at = DONE, now
                row.winner = (
                    None
                    if white in withdrawn and black in withdrawn
                    else ("black" if white in withdrawn else "white")
                )
                # Both withdrew: no winner, and no draw either: a forfeit lost by both (DOUBLE_FORFEIT).
                row.result = {"white": "1-0", "black": "0-1", None: DOUBLE_FORFEIT}[row.winner]
            rows.append(row)
        if bye is not None:
            kind = ByeKind.PAIRING.value if t.system != ROUNDROBIN else "free"
            rows.append(
                TournamentPairing(
                    tournament_id=t.id,
                    round=number,
                    white_id=bye,
                    bye=kind,
                    status=DONE,
                    created_at=now,
                    finished_at=now,
                )
            )
        s.add_all(rows)
        await s.flush()
        for row in rows:
            s.add_all(
                [
                    TournamentSeat(tournament_id=t.id, round=number, user_id=u, pairing_id=row.id)
                    for u in (row.white_id, row.black_id)
                    if u is not None
                ]
            )
        try:
            await s.commit()
        except IntegrityError:
            await s.rollback()
            return False
    return True


def round_game(pairing: TournamentPairing) -> AlsoWrite:
    """A stored pairing's game, for the game's transaction: attached only while the pairing has none
    (otherwise Conflict, and no game)."""

    async def within(s: AsyncSession, game_id: str) -> None:
        done = await s.execute(
            update(TournamentPairing)
            .where(TournamentPairing.id == pairing.id, TournamentPairing.game_id.is_(None))
            .values(game_id=game_id, status=PLAYING)
        )
        if rows_changed(done) != 1:
            raise Conflict("already_created", "This pairing's game exists already.")

    return within
