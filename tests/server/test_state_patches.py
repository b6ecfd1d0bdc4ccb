"""After a change, a game socket whose client holds the state before gets only what changed (issue 11):
`{"type": "patch", "seq": n, "from": n - 1, "set": {...}, "append": [...]}`, which applied to that state
makes exactly the state published — whoever built the state held and whatever changed (moves, clocks, a
draw offer, the end) — and whose size does not grow with the game. A client that does not hold the state
before gets the whole state."""

from __future__ import annotations

import asyncio
import json
import random

from shashki.server.events import Encoded
from shashki.server.games.terms import GameTerms
from shashki.server.games.view import ALWAYS_PATCHED, state_patch
from shashki.server.http.live import outgoing
from shashki.server.redisbus import _event, _payload

from .helpers import apply_patch
from .test_game_parts import _service


def _apply(state: dict, patch: dict) -> dict:
    return {**state, **patch["set"], "moves": state["moves"] + patch["append"]}


def _play(tmp_path, seed: int, terms: GameTerms | None = None):
    """A whole game of random legal moves with a draw offer declined on the way and, if it lasts, a
    resignation; every published event, and the states a socket fetched when it opened."""

    async def scenario():
        db, games = await _service(tmp_path)
        live = await games.create(white_id=1, black_id=2, terms=terms)
        opened = games.state(live)  # what a socket fetches when it opens: built apart from any publish
        rng = random.Random(seed)
        async with games.bus.subscribe(f"game:{live.id}") as events:
            for ply in range(80):
                if live.rules.outcome is not None:
                    break
                mover = 1 if ply % 2 == 0 else 2
                if ply == 6:
                    await games.offer_draw(mover, live.id)
                    await games.decline_draw(3 - mover, live.id)
                move = rng.choice(games.state(live)["legal_moves"])["move"]
                await games.move(mover, live.id, move, ply=ply)
            if live.rules.outcome is None:
                await games.resign(1, live.id)
            published = []
            while events.pending:
                published.append(await events.get())
        await games.close()
        await db.close()
        return opened, published

    return asyncio.run(scenario())


def test_every_patch_applied_to_the_state_held_makes_the_state_published(tmp_path):
    for seed in range(3):
        opened, published = _play(tmp_path / str(seed), seed, GameTerms(clock_initial_ms=600_000))
        held = opened
        assert published and all(isinstance(e, Encoded) for e in published)
        for event in published:
            assert event.patch is not None, event["seq"]  # every change followed the state before
            patch = json.loads(event.patch)
            assert patch["type"] == "patch" and patch["from"] == held["seq"] and patch["seq"] == event["seq"]
            held = apply_patch(held, held["seq"], patch)
            assert held == event["game"]  # exactly: the held state was built apart, at another time
        assert held["status"] != "started" and held["moves"] == published[-1]["game"]["moves"]


def test_a_patch_carries_what_changed_and_never_the_game_again(tmp_path):
    opened, published = _play(tmp_path, 7, GameTerms(clock_initial_ms=600_000))
    patches = [json.loads(e.patch) for e in published]
    moves = [p for p in patches if p["append"]]
    assert all(len(p["append"]) == 1 for p in moves)  # the move played, not the moves before it
    for patch in patches:
        assert set(patch["set"]) >= ALWAYS_PATCHED  # the clocks and the next legal moves, always
        assert not {"moves", "white", "black", "variant", "id", "initial_fen"} & set(patch["set"])
    # The draw offer and its refusal, and the end, are in the patches of those changes alone.
    offers = [p for p in patches if "draw_offer" in p["set"]]
    assert [p["set"]["draw_offer"] for p in offers] == ["white", None]
    ended = patches[-1]["set"]
    assert ended["status"] != "started" and {"result", "winner", "reason"} <= set(ended)
    # A patch's size does not grow with the game; the whole state's does.
    late, early = moves[-1], moves[1]
    assert len(json.dumps(late)) < 2 * len(json.dumps(early))
    sizes = [len(e.text) - len(e.patch) for e in published if json.loads(e.patch)["append"]]
    assert sizes[-1] > sizes[1]  # what a patch saves grows with the moves played


def test_a_state_that_does_not_follow_the_one_before_has_no_patch():
    before = {"seq": 4, "moves": ["c3-d4", "f6-g5"], "clocks": None}
    after = {"seq": 5, "moves": ["c3-d4", "f6-g5", "g3-f4"], "clocks": None}
    assert state_patch(before, after)["append"] == ["g3-f4"]
    assert state_patch(before, {**after, "seq": 6}) is None  # a state missed between them
    assert state_patch(before, {**after, "moves": ["c3-d4"]}) is None  # moves taken away
    assert state_patch(before, {**after, "moves": ["c3-b4", "f6-g5", "g3-f4"]}) is None  # another game


def test_a_socket_sends_the_patch_only_to_a_client_holding_the_state_before():
    state = {"type": "state", "seq": 5, "game": {"seq": 5, "moves": ["c3-d4"]}}
    event = Encoded(state, patch={"type": "patch", "seq": 5, "from": 4, "set": {}, "append": ["c3-d4"]})
    assert json.loads(outgoing(event, 4))["type"] == "patch"
    for held in (0, 2, 3):  # behind by more than one change (a state lost): the whole state
        assert json.loads(outgoing(event, held)) == state
    assert json.loads(outgoing(Encoded(state), 4)) == state  # no patch made: the whole state


def test_redis_carries_the_patch_and_the_servers_part_beside_the_state():
    state = {"type": "state", "seq": 3, "game": {"chat": "two\nlines"}}
    patch = {"type": "patch", "seq": 3, "from": 2, "set": {"note": "a\nb"}, "append": []}
    for servers in (None, {"version": 3}):
        back = _event(_payload(Encoded(state, servers=servers, patch=patch)))
        assert back == state and back.servers == servers and json.loads(back.patch) == patch
    back = _event(_payload(Encoded(state, servers={"version": 3})))
    assert back.patch is None and back.servers == {"version": 3}
    assert _event(_payload(Encoded(state))).text == Encoded(state).text


def test_over_the_socket_the_opponent_and_a_spectator_get_patches_after_the_first_state(players):
    white, black = players(), players()
    game = white.challenge(black, variant="russian-giveaway")
    sockets = [white.socket(game["id"]), black.socket(game["id"])]
    spectator = black.socket(game["id"])
    for ply in range(6):
        mover = sockets[ply % 2]
        move = mover.state["legal_moves"][0]["move"]
        assert mover.move(move, ply=ply)["type"] == "ack"
        for s in (*sockets, spectator):
            s.wait_state(lambda g, n=ply + 1: g["ply"] == n)
    for s in (*sockets, spectator):
        changes = [kind for kind in s.kinds if kind in ("state", "patch")]
        assert changes[0] == "state" and set(changes[1:]) == {"patch"}, s.kinds
        assert len(changes) >= 7  # the first state, then one patch per move (the start may add one)
    # The state a client made of the patches is the game: a resync's whole state says the same.
    patched = spectator.state
    spectator.send({"type": "resync"})
    fresh = spectator.wait(lambda m: m.get("type") == "state" and m.get("resync"))["game"]
    volatile = {"clocks", "mover_disconnected_ms", "correspondence"}
    assert {k: v for k, v in fresh.items() if k not in volatile} == {
        k: v for k, v in patched.items() if k not in volatile
    }
    assert len(patched["moves"]) == 6
