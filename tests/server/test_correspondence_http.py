"""Correspondence games through a real server: the lobby's API takes days per move, the "your turn" list
and the notifications answer over HTTP, and the Bot API reports such games as lidraughts does
(`timeControl: {"type": "correspondence", "daysPerTurn": n}`, `speed: "correspondence"`).
"""

from __future__ import annotations

from .helpers import eventually
from .test_bot_api import ApiClient


def test_a_correspondence_challenge_makes_a_game_with_days_that_the_turn_list_and_notifications_follow(
    players,
):
    white, black = players(), players()
    r = white.post("/api/challenges", {"username": black.name, "days": 3, "color": "white"})
    assert r.status_code == 201, r.text
    challenge = r.json()["challenge"]
    assert challenge["days"] == 3 and challenge["time_control"] is None
    told = black.http.get("/api/notifications").json()
    assert told["unread"] == 1 and told["notifications"][0]["kind"] == "challenge"
    assert told["notifications"][0]["data"]["opponent"] == white.name

    game = black.post(f"/api/challenges/{challenge['id']}/accept").json()["game"]
    assert game["correspondence"]["days_per_move"] == 3 and game["clocks"] is None
    # Answered, the challenge waits no more: its notification is read (as lichess's counter drops).
    assert black.http.get("/api/notifications").json()["unread"] == 0
    assert 3 * 86_400_000 - 60_000 < game["correspondence"]["remaining_ms"] <= 3 * 86_400_000
    mine = white.http.get("/api/account/your-turn").json()["games"]
    assert [g["id"] for g in mine] == [game["id"]] and mine[0]["opponent"]["username"] == black.name
    assert black.http.get("/api/account/your-turn").json()["games"] == []

    assert white.post(f"/api/games/{game['id']}/move", {"move": "c3-d4"}).status_code == 200
    theirs = eventually(lambda: black.http.get("/api/notifications").json(), lambda n: n["unread"] == 1)
    assert theirs["notifications"][0]["kind"] == "yourTurn", theirs
    assert theirs["notifications"][0]["subject"] == game["id"]
    assert [g["id"] for g in black.http.get("/api/account/your-turn").json()["games"]] == [game["id"]]
    assert black.post("/api/notifications/read").json() == {"marked": 1, "unread": 0}


def test_a_challenge_cancelled_or_declined_leaves_no_unread_notification(players):
    """Found by an audit: the bell kept counting challenges that had been cancelled or answered."""
    white, black = players(), players()
    for settle in ("cancel", "decline"):
        made = white.post("/api/challenges", {"username": black.name, "color": "white"}).json()["challenge"]
        assert black.http.get("/api/notifications").json()["unread"] == 1
        who = white if settle == "cancel" else black
        assert who.post(f"/api/challenges/{made['id']}/{settle}").status_code == 200
        told = black.http.get("/api/notifications").json()
        assert told["unread"] == 0 and told["notifications"][0]["read"] is True, told


def test_bad_days_are_refused_with_a_reason(players):
    white, black = players(), players()
    r = white.post("/api/challenges", {"username": black.name, "days": 4})
    assert r.status_code == 400 and r.json()["error"]["code"] == "bad_days"
    both = {"username": black.name, "days": 3, "time_control": {"minutes": 5, "increment": 0}}
    r = white.post("/api/challenges", both)
    assert r.status_code == 400 and r.json()["error"]["code"] == "bad_time_control"


def test_the_bot_api_reports_a_correspondence_game_with_its_days_per_turn(players):
    bot = ApiClient(players(bot=True), "bot:play")
    board = ApiClient(players(), "board:play")
    made = board.post(f"/api/challenge/{bot.name}", {"days": "7", "color": "white"})
    assert made.status_code == 200, made.text
    challenge = made.json()
    # lidraughts' answer nests the challenge (its clients read challenge.id); lichess's has it at the top.
    assert challenge["challenge"]["id"] == challenge["id"] and challenge["socketVersion"] == 0
    assert challenge["challenge"]["direction"] == challenge["direction"] == "out"
    assert challenge["challenge"]["timeControl"] == challenge["timeControl"]
    assert challenge["timeControl"] == {"type": "correspondence", "daysPerTurn": 7}
    assert challenge["speed"] == "correspondence"
    assert bot.post(f"/api/challenge/{challenge['id']}/accept").json() == {"ok": True}
    games = eventually(
        lambda: board.http.get("/api/account/playing").json()["nowPlaying"], lambda g: len(g) == 1
    )
    stream = bot.stream(f"/api/bot/game/stream/{games[0]['gameId']}")
    full = stream.until("gameFull")
    stream.close()
    assert full["daysPerTurn"] == 7 and full["speed"] == "correspondence" and full["clock"] is None
    # lidraughts' secondsLeft: the player's time left of their days (all of them while not to move).
    board_view = games[0]
    bot_view = bot.http.get("/api/account/playing").json()["nowPlaying"][0]
    assert board_view["isMyTurn"] and 7 * 86_400 - 60 < board_view["secondsLeft"] <= 7 * 86_400
    assert bot_view["secondsLeft"] == 7 * 86_400


def test_has_moved_counts_from_the_side_that_moves_first(players):
    """lidraughts' hasMoved says whether this player has made a move: in English draughts Black moves
    first (found by an audit: it assumed White did)."""
    bot = ApiClient(players(bot=True), "bot:play")
    board = ApiClient(players(), "board:play")
    made = board.post(f"/api/challenge/{bot.name}", {"variant": "english", "color": "black"})
    assert made.status_code == 200, made.text
    assert bot.post(f"/api/challenge/{made.json()['id']}/accept").json() == {"ok": True}

    def has_moved() -> tuple[bool, bool]:
        mine, theirs = (c.http.get("/api/account/playing").json()["nowPlaying"][0] for c in (board, bot))
        return mine["hasMoved"], theirs["hasMoved"]

    game_id = eventually(
        lambda: board.http.get("/api/account/playing").json()["nowPlaying"], lambda g: len(g) == 1
    )[0]["gameId"]
    assert has_moved() == (False, False)
    assert board.post(f"/api/board/game/{game_id}/move/1115").json() == {"ok": True}  # Black, first
    assert has_moved() == (True, False)
    assert bot.post(f"/api/bot/game/{game_id}/move/2218").json() == {"ok": True}
    assert has_moved() == (True, True)


def test_a_board_api_correspondence_seek_answers_its_id_at_once_and_stays_open(players):
    """lichess: a correspondence seek is not streamed; the answer is its id and the seek stays open until
    joined (found by an audit: the stream never answered, and closing it withdrew the seek)."""
    seeker, joiner = ApiClient(players(), "board:play"), players()
    r = seeker.post("/api/board/seek", {"days": "2", "variant": "russian", "color": "white"})
    assert r.status_code == 200 and r.headers["content-type"].startswith("application/json"), r.text
    seek_id = r.json()["id"]
    seeks = joiner.http.get("/api/seeks").json()["seeks"]
    assert [s["days"] for s in seeks if s["id"] == seek_id] == [2]
    game = joiner.post(f"/api/seeks/{seek_id}/accept").json()["game"]
    assert game["correspondence"]["days_per_move"] == 2 and game["white"]["username"] == seeker.name
