"""The server's start resumes every game in play a batch at a time (issue 11: a few reads for a batch of
games, not a session per game): the games loaded together are the games loaded one by one, each game's
turn restarts, a finished game is left alone, and a game's tournament comes with it."""

from __future__ import annotations

import asyncio
from datetime import timedelta

from sqlalchemy import update

from shashki.server.games import lifecycle
from shashki.server.games.models import GameRecord
from shashki.server.games.terms import GameTerms

from .test_faults import _database, _games


def test_games_loaded_together_are_the_games_loaded_one_by_one(tmp_path):
    async def scenario():
        db = await _database(tmp_path)
        games = _games(db)
        made = [await games.create(white_id=1, black_id=2) for _ in range(3)]
        await games.move(1, made[0].id, "c3-d4", ply=0)
        await games.move(2, made[0].id, "f6-g5", ply=1)
        await games.move(1, made[2].id, "a3-b4", ply=0)
        ids = [live.id for live in made]
        tournaments_asked = []

        async def tournaments_of(session, game_ids):
            tournaments_asked.append(sorted(game_ids))
            return {ids[2]: "t1"}

        loader = games.store.loader
        loader.tournaments_of = tournaments_of
        together = await loader.load_many([*ids, "no-such-game"])
        one_by_one = {game_id: await loader.load(game_id) for game_id in ids}
        await games.close()
        await db.close()
        return ids, together, one_by_one, tournaments_asked

    ids, together, one_by_one, tournaments_asked = asyncio.run(scenario())
    assert set(together) == set(ids)  # an unknown id is left out
    assert tournaments_asked[0] == sorted(ids)  # one question for the batch
    for game_id in ids:
        a, b = together[game_id], one_by_one[game_id]
        assert a.notations == b.notations and a.rules.position == b.rules.position
        assert a.record.version == b.record.version and a.players == b.players
        assert a.tournament == b.tournament == ("t1" if game_id == ids[2] else None)
    assert together[ids[0]].notations == ["c3-d4", "f6-g5"]


def test_every_game_in_play_resumes_in_batches_with_its_turn_restarted(tmp_path, monkeypatch):
    monkeypatch.setattr(lifecycle, "RESUME_BATCH", 3)  # 8 games: three batches, the last one short

    async def scenario():
        db = await _database(tmp_path)
        games = _games(db)
        terms = GameTerms(clock_initial_ms=60_000)
        clocked = [await games.create(white_id=1, black_id=2, terms=terms) for _ in range(6)]
        for live in clocked:
            await games.move(1, live.id, "c3-d4", ply=0)
            await games.move(2, live.id, "f6-g5", ply=1)
        untimed = await games.create(white_id=1, black_id=2)
        finished = await games.create(white_id=1, black_id=2, terms=terms)
        await games.move(1, finished.id, "c3-d4", ply=0)
        await games.move(2, finished.id, "f6-g5", ply=1)
        await games.resign(1, finished.id)
        also = await games.create(white_id=1, black_id=2)
        stored = {live.id: await games.record(live.id) for live in [*clocked, untimed, finished, also]}
        await games.close()
        async with db.session() as s:  # the server was down for 40 s
            for live in clocked:
                before = stored[live.id].turn_started_at
                await s.execute(
                    update(GameRecord)
                    .where(GameRecord.id == live.id)
                    .values(turn_started_at=before - timedelta(seconds=40))
                )
            await s.commit()
        again = _games(db)
        resumed = await again.resume()
        cached = again.store.cached
        states = {game_id: again.state(await again.live(game_id)) for game_id in stored}
        await again.close()
        await db.close()
        return resumed, cached, states, stored, [g.id for g in clocked], finished.id

    resumed, cached, states, stored, clocked, finished = asyncio.run(scenario())
    assert resumed == 8 and cached == 8  # every game in play, not the finished one
    assert states[finished]["status"] != "started"
    for game_id in clocked:
        clocks = states[game_id]["clocks"]
        assert states[game_id]["status"] == "started" and clocks["running"] == "white"
        # The 40 s of downtime are charged to nobody: the clock restarts from its stored time.
        assert stored[game_id].white_ms - 500 <= clocks["white_ms"] <= stored[game_id].white_ms
        assert states[game_id]["moves"] == ["c3-d4", "f6-g5"]
