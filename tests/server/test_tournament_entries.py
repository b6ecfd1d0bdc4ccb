"""Entries sent at the same time, and at the moment a tournament starts (found by an audit: eight joins
at once filled a three-player Swiss, a withdrawal and a return went past its size, and a player joining
as round 1 was stored got neither a game nor a bye: test_tournaments_director.py): each entry is checked
in its own transaction, after taking the tournament's row, which the director takes too to store a
round."""

from __future__ import annotations

from . import tournament_support as ts
from .helpers import at_once
from .tournament_support import create, join, show

people, tserver = ts.people, ts.tserver  # the fixtures


def test_joins_sent_at_once_never_fill_a_tournament_past_its_size(people):
    owner, *others = people(9)
    tid = create(owner, "swiss", starts_at=ts.now_iso(600), max_players=3)["id"]
    answers = at_once(*[lambda p=p: p.post(f"/api/tournaments/{tid}/join") for p in others])
    codes = sorted(r.status_code for r in answers)
    assert codes == [200] * 3 + [409] * 5, [r.text for r in answers]
    assert all(r.json()["error"]["code"] == "tournament_full" for r in answers if r.status_code == 409)
    assert show(owner, tid)["players"] == 3


def test_coming_back_after_a_withdrawal_needs_a_place_too(people):
    a, b, c = people(3)
    tid = create(a, "swiss", starts_at=ts.now_iso(600), max_players=2)["id"]
    join(a, tid)
    join(b, tid)
    assert c.post(f"/api/tournaments/{tid}/join").json()["error"]["code"] == "tournament_full"
    assert b.post(f"/api/tournaments/{tid}/withdraw").status_code == 200
    join(c, tid)  # b's place
    back = b.post(f"/api/tournaments/{tid}/join")
    assert back.status_code == 409 and back.json()["error"]["code"] == "tournament_full", back.text
    assert show(a, tid)["players"] == 2
