"""How the Bot and Board APIs read a request's fields (`lidraughts/wire.fields`): urlencoded and
multipart forms, JSON whatever the case of its media type, and a refusal, never a silent default, for a
body of another type or one that does not parse; and a Board API seek refused with a 4xx before its
stream starts (found by a hostile-client audit: a multipart challenge was made of the defaults, and a
seek's refusal came as a 200 stream)."""

from __future__ import annotations

import json

from .test_bot_api import ApiClient


def _pending_out(client: ApiClient) -> list[dict]:
    return client.http.get("/api/challenge").json()["out"]


def test_a_multipart_challenge_is_read_field_by_field(players):
    person, other = ApiClient(players(), "board:play"), players()
    fields = {"variant": "russian", "clock.limit": "300", "clock.increment": "2", "color": "white"}
    r = person.http.post(f"/api/challenge/{other.name}", files={k: (None, v) for k, v in fields.items()})
    assert r.status_code == 200, r.text
    made = r.json()
    assert made["variant"]["key"] == "russian" and made["color"] == "white"
    assert made["timeControl"]["limit"] == 300 and made["timeControl"]["increment"] == 2


def test_a_json_body_is_read_whatever_the_case_of_its_media_type(players):
    person, other = ApiClient(players(), "board:play"), players()
    body = json.dumps({"variant": "brazilian", "clock.limit": 180, "clock.increment": 0})
    mixed_case = {"Content-Type": "Application/JSON; charset=UTF-8"}
    r = person.http.post(f"/api/challenge/{other.name}", content=body, headers=mixed_case)
    assert r.status_code == 200, r.text
    assert r.json()["variant"]["key"] == "brazilian" and r.json()["timeControl"]["limit"] == 180


def test_a_json_body_sent_without_its_type_is_read_as_json_not_as_an_empty_form(players):
    """`requests.post(url, data=json.dumps(...))` sends no Content-Type (or text/plain from other
    clients): the challenge is the one asked for, never one of the defaults (found by an audit)."""
    person, other = ApiClient(players(), "board:play"), players()
    body = json.dumps({"variant": "russian", "clock.limit": 180, "clock.increment": 2, "color": "black"})
    for headers in ({"Content-Type": ""}, {"Content-Type": "text/plain"}):
        r = person.http.post(f"/api/challenge/{other.name}", content=body, headers=headers)
        assert r.status_code == 200, r.text
        made = r.json()
        assert (made["variant"]["key"], made["color"]) == ("russian", "black"), made
        assert (made["timeControl"]["limit"], made["timeControl"]["increment"]) == (180, 2)
    # Text that is neither a form nor JSON is refused, not read as no fields.
    plain = {"Content-Type": ""}
    r = person.http.post(f"/api/challenge/{other.name}", content=b"russian please", headers=plain)
    assert (r.status_code, r.json()["error"]["code"]) == (400, "bad_request"), r.text
    assert len(_pending_out(person)) == 2


def test_a_body_of_another_type_or_a_broken_form_is_refused_and_makes_nothing(players):
    person, other = ApiClient(players(), "board:play"), players()
    refused = [
        person.http.post(
            f"/api/challenge/{other.name}", content=b"<x/>", headers={"Content-Type": "text/xml"}
        ),
        person.http.post(
            f"/api/challenge/{other.name}",
            content=b"--nope\r\ngarbage",
            headers={"Content-Type": "multipart/form-data; boundary=XYZ"},
        ),
        person.http.post(
            f"/api/challenge/{other.name}", content=b"a=b", headers={"Content-Type": "multipart/form-data"}
        ),
        person.http.post(
            f"/api/challenge/{other.name}", files={"variant": ("v.txt", b"russian", "text/plain")}
        ),  # a file, not a field
    ]
    for r in refused:
        assert r.status_code == 400, r.text
        assert r.json()["error"]["code"] in ("unsupported_body", "bad_request"), r.text
    assert refused[0].json()["error"]["code"] == "unsupported_body"
    assert _pending_out(person) == []


def test_a_multipart_chat_line_is_written(players):
    bot, person = ApiClient(players(bot=True), "bot:play"), players()
    made = person.post("/api/challenges", {"username": bot.name, "color": "white"})
    assert made.status_code == 201, made.text
    accepted = bot.post(f"/api/challenge/{made.json()['challenge']['id']}/accept")
    assert accepted.status_code == 200, accepted.text
    game_id = bot.http.get("/api/account/playing").json()["nowPlaying"][0]["gameId"]
    r = bot.http.post(f"/api/bot/game/{game_id}/chat", files={"room": (None, "player"), "text": (None, "hi")})
    assert r.status_code == 200, r.text
    assert any(line["text"] == "hi" for line in bot.http.get(f"/api/bot/game/{game_id}/chat").json())


def test_a_board_seek_on_bad_terms_is_refused_before_its_stream(players):
    board = ApiClient(players(), "board:play")
    for form, code in (
        ({"days": "4"}, "bad_days"),
        ({"time": "0.005", "increment": "0"}, "clock_too_short"),  # 0.3 s: under the tests' 0.5 s
        ({"time": "5", "increment": "0", "color": "purple"}, "bad_color"),
    ):
        with board.http.stream("POST", "/api/board/seek", data=form) as r:  # a 200 would stream on
            assert r.status_code == 400, (form, r.status_code)
            assert json.loads(r.read())["error"]["code"] == code
