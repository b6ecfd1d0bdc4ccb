"""Seeks and offers under requests sent at the same moment, and what a refused or corrected offer says
(found by a hostile-client audit: two compatible seeks posted together were never paired; an accept that
lost to the seek's own withdrawal blamed someone else; a rated offer without a clock showed as rated)."""

from __future__ import annotations

from .helpers import at_once

# A clock of these tests alone: no other test's open seek has it, so only these seeks can pair.
ODD_CLOCK = {"minutes": 13, "increment": 7}


def test_two_compatible_seeks_posted_at_once_start_one_game(players):
    body = {"variant": "russian", "time_control": ODD_CLOCK}
    for _ in range(6):
        x, y = players(), players()
        answers = at_once(*[lambda p=p: p.post("/api/seeks", body) for p in (x, y)])
        assert all(r.status_code == 200 for r in answers), [r.text for r in answers]
        games = [r.json()["game"] for r in answers if r.json()["game"] is not None]
        assert len(games) == 1, [r.json() for r in answers]  # one of them started it, the other waited
        game = games[0]
        assert {game["white"]["username"], game["black"]["username"]} == {x.name, y.name}
        open_seeks = x.http.get("/api/seeks").json()["seeks"]
        assert not [s for s in open_seeks if s["user"]["username"] in (x.name, y.name)]


def test_a_burst_of_compatible_seeks_pairs_everyone_it_can_and_refuses_no_one(players, server):
    """Sixteen players seek the same terms at once: each is answered with a game or a posted seek, never
    "someone else accepted that seek first", and at most one seek of theirs is left waiting (found by an
    audit: half the requests refused `seek_taken`, and two compatible seeks left side by side)."""
    import httpx

    body = {"variant": "pool", "time_control": {"minutes": 11, "increment": 9}}
    for _ in range(3):
        seekers = [players() for _ in range(16)]
        answers = at_once(*[lambda p=p: p.post("/api/seeks", body) for p in seekers])
        assert all(r.status_code == 200 for r in answers), [r.text for r in answers if r.status_code != 200]
        names = {p.name for p in seekers}
        waiting = [s for s in httpx.get(f"{server.url}/api/seeks").json()["seeks"]
                   if s["user"]["username"] in names]  # fmt: skip
        assert len(waiting) <= 1, waiting
        seated = [p for p in seekers if p.http.get("/api/account/playing").json()["nowPlaying"]]
        assert len(seated) == 16 - len(waiting)
        for seek in waiting:  # the next round's seekers pair among themselves
            owner = next(p for p in seekers if p.name == seek["user"]["username"])
            owner.http.delete(f"/api/seeks/{seek['id']}")


def test_an_accept_that_loses_to_the_seeks_withdrawal_says_it_was_withdrawn(players):
    owner = players()
    for _ in range(8):
        takers = [players() for _ in range(3)]
        made = owner.post("/api/seeks", {"variant": "brazilian", "time_control": ODD_CLOCK}).json()
        assert made["game"] is None, made
        seek_id = made["seek"]["id"]
        withdrawal, *accepts = at_once(
            lambda n=seek_id: owner.http.delete(f"/api/seeks/{n}"),
            *[lambda t=t, n=seek_id: t.post(f"/api/seeks/{n}/accept") for t in takers],
        )
        won = [r for r in accepts if r.status_code == 200]
        assert len(won) <= 1 and (withdrawal.status_code == 200) == (not won)
        for lost in (r for r in accepts if r.status_code != 200):
            code = lost.json()["error"]["code"]
            # Nobody else took it when its owner withdrew it first.
            assert code == ("seek_taken" if won else "no_such_seek"), lost.text


def test_a_rated_offer_without_a_clock_is_made_and_shown_casual(players):
    a, b = players(), players()
    r = a.post("/api/challenges", {"username": b.name, "rated": True})
    assert r.status_code == 201, r.text
    challenge = r.json()["challenge"]
    assert challenge["rated"] is False  # untimed: casual, and the offer says so
    game = b.post(f"/api/challenges/{challenge['id']}/accept").json()["game"]
    assert game["rated"] is False
    seek = a.post("/api/seeks", {"variant": "pool", "rated": True}).json()
    assert seek["game"] is not None or seek["seek"]["rated"] is False
    timed = a.post("/api/challenges", {"username": b.name, "rated": True, "time_control": ODD_CLOCK})
    assert timed.json()["challenge"]["rated"] is True  # with a clock it stays rated


def test_a_missing_or_non_object_body_is_named_as_the_body(players):
    a = players()
    missing = a.http.post("/api/challenges")
    assert missing.status_code == 400
    assert missing.json()["error"]["message"] == "The request needs a body: send a JSON object."
    listed = a.http.post("/api/challenges", json=[1, 2])
    assert listed.status_code == 400 and listed.json()["error"]["message"].startswith("The request body: ")
