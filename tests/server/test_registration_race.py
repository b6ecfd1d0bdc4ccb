"""The same name registered several times at the same moment: one account, the others refused with
`username_taken`, never a server error (found by an audit: the name's unique key failed as a 500)."""

from __future__ import annotations

import uuid

import httpx

from .helpers import PASSWORD, at_once


def test_a_name_registered_at_once_many_times_makes_one_account(server):
    name = "race" + uuid.uuid4().hex[:8]

    def register(spelling: str):
        return lambda: httpx.post(
            server.url + "/api/auth/register", json={"username": spelling, "password": PASSWORD}, timeout=10
        )

    answers = at_once(*[register(name if i % 2 else name.upper()) for i in range(8)])
    codes = sorted(r.status_code for r in answers)
    assert codes == [201] + [409] * 7, [r.text for r in answers]
    assert all(r.json()["error"]["code"] == "username_taken" for r in answers if r.status_code == 409)
