"""Takebacks through a real server (games/takeback.py): asked, agreed, declined, withdrawn and lapsing, one
move or two, against the computer, over HTTP, the game socket and the Board API; refused where a game has
none; the moves taken back gone from what is stored."""

from __future__ import annotations

from .helpers import eventually
from .test_bot_api import ApiClient, Stream


def move(player, gid: str, notation: str) -> dict:
    game = player.http.get(f"/api/games/{gid}").json()["game"]
    r = player.post(f"/api/games/{gid}/move", {"move": notation, "ply": game["ply"]})
    assert r.status_code == 200, r.text
    return r.json()["game"]


def ask(player, gid: str, what: str = "offer"):
    return player.post(f"/api/games/{gid}/takeback/{what}")


def code(response) -> tuple[int, str]:
    return response.status_code, response.json()["error"]["code"]


def test_a_move_taken_back_by_agreement_is_gone_and_the_game_goes_on_from_before_it(players):
    white, black = players(), players()
    start = white.challenge(black)
    gid = start["id"]
    move(white, gid, "c3-d4")
    asked = ask(white, gid)
    assert asked.status_code == 200, asked.text
    assert asked.json()["game"]["takeback_offer"] == "white"
    assert black.http.get(f"/api/games/{gid}").json()["game"]["takeback_offer"] == "white"
    taken = ask(black, gid, "accept")
    assert taken.status_code == 200, taken.text
    game = taken.json()["game"]
    assert (game["ply"], game["moves"], game["side_to_move"]) == (0, [], "white")
    assert game["takeback_offer"] is None
    assert game["fen"] == start["fen"]
    # The game goes on from there with another move, and what is stored is that line alone.
    move(white, gid, "a3-b4")
    move(black, gid, "f6-g5")
    assert white.post(f"/api/games/{gid}/resign").status_code == 200
    pdn = white.http.get(f"/api/games/{gid}/pdn").text
    assert "1. a3-b4 f6-g5" in pdn and "c3-d4" not in pdn, pdn


def test_asked_on_ones_own_turn_it_takes_back_the_answer_too(players):
    white, black = players(), players()
    gid = white.challenge(black)["id"]
    move(white, gid, "c3-d4")
    move(black, gid, "f6-g5")
    move(white, gid, "g3-h4")
    # Black to move after White's third ply: Black asks, so Black's f6-g5 and White's answer go.
    assert ask(black, gid).json()["game"]["takeback_offer"] == "black"
    game = ask(white, gid, "accept").json()["game"]
    assert (game["ply"], game["moves"], game["side_to_move"]) == (1, ["c3-d4"], "black")
    # A socket opened now reads the same state, and the ply guard follows the game back.
    r = black.post(f"/api/games/{gid}/move", {"move": "b6-a5", "ply": 3})
    assert code(r) == (400, "bad_ply")
    assert black.post(f"/api/games/{gid}/move", {"move": "b6-a5", "ply": 1}).status_code == 200


def test_a_request_lapses_with_the_next_move_and_can_be_declined_or_withdrawn(players):
    white, black = players(), players()
    gid = white.challenge(black)["id"]
    move(white, gid, "c3-d4")
    ask(white, gid)
    # Black moves instead of answering: the request lapses.
    assert move(black, gid, "f6-g5")["takeback_offer"] is None
    assert code(ask(white, gid, "accept")) == (409, "no_takeback_offer")
    # Withdrawn by the one who asked, who may ask again.
    assert ask(black, gid).json()["game"]["takeback_offer"] == "black"
    assert code(ask(black, gid, "accept")) == (409, "no_takeback_offer")  # not one's own
    assert ask(black, gid, "decline").json()["game"]["takeback_offer"] is None
    assert code(ask(black, gid, "decline")) == (409, "no_takeback_offer")
    # Declined by the opponent: not asked again before the next move (no flashing of requests).
    assert ask(black, gid).json()["game"]["takeback_offer"] == "black"
    declined = ask(white, gid, "decline").json()["game"]
    assert (declined["takeback_offer"], declined["takeback_declined"], declined["ply"]) == (None, "black", 2)
    assert code(ask(black, gid)) == (409, "takeback_declined")
    assert move(white, gid, "g3-h4")["takeback_declined"] is None
    assert ask(black, gid).json()["game"]["takeback_offer"] == "black"  # after a move, again
    # Asking when the opponent has asked is agreeing, also when the one agreeing has nothing to take back.
    game = ask(white, gid).json()["game"]
    assert (game["ply"], game["moves"]) == (1, ["c3-d4"])  # Black's takeback, on Black's turn: two plies


def test_agreeing_by_asking_needs_no_move_of_ones_own(players):
    """Black, who has not moved, agrees to White's first move taken back by asking too (the Board API's
    only way to agree: takeback/yes) (found by an audit: refused as "no move to take back")."""
    white, black = players(), players()
    gid = white.challenge(black)["id"]
    move(white, gid, "c3-d4")
    ask(white, gid)
    board = ApiClient(black, "board:play")
    assert board.post(f"/api/board/game/{gid}/takeback/yes").json() == {"ok": True}
    game = black.http.get(f"/api/games/{gid}").json()["game"]
    assert (game["ply"], game["moves"], game["takeback_offer"]) == (0, [], None)


def test_takebacks_are_refused_where_a_game_has_none(players):
    white, black, stranger = players(), players(), players()
    rated = white.challenge(black, rated=True, time_control={"minutes": 5, "increment": 3})["id"]
    move(white, rated, "c3-d4")
    assert code(ask(white, rated)) == (409, "takeback_not_allowed")
    casual = white.challenge(black)["id"]
    assert code(ask(white, casual)) == (409, "no_move_to_take_back")  # nothing played
    move(white, casual, "c3-d4")
    assert code(ask(black, casual)) == (409, "no_move_to_take_back")  # Black has not moved
    assert code(ask(stranger, casual)) == (403, "not_your_game")
    assert white.post(f"/api/games/{casual}/resign").status_code == 200
    assert code(ask(white, casual)) == (409, "game_over")
    bot = players(bot=True)
    with_bot = white.challenge(bot)["id"]
    move(white, with_bot, "c3-d4")
    assert code(ask(white, with_bot)) == (409, "takeback_not_allowed")


def test_the_computer_agrees_at_once_and_plays_on_from_the_position_taken_back_to(players):
    human = players()
    r = human.post("/api/computer-games", {"level": 1, "color": "white"})
    assert r.status_code in (200, 201), r.text
    gid = r.json()["game"]["id"]
    move(human, gid, "c3-d4")

    def state():
        return human.http.get(f"/api/games/{gid}").json()["game"]

    assert eventually(state, lambda g: g["ply"] == 2)["ply"] == 2, "the computer answers"
    game = ask(human, gid).json()["game"]
    assert (game["ply"], game["moves"], game["side_to_move"]) == (0, [], "white")
    move(human, gid, "e3-f4")
    answered = eventually(state, lambda g: g["ply"] == 2)
    assert answered["moves"][0] == "e3-f4" and answered["ply"] == 2, answered


def test_the_game_socket_asks_and_answers_and_every_socket_gets_the_state_taken_back(players):
    white, black = players(), players()
    gid = white.challenge(black, time_control={"minutes": 5, "increment": 0})["id"]
    sockets = {"white": white.socket(gid), "black": black.socket(gid)}
    try:
        assert sockets["white"].move("c3-d4", ply=0)["type"] == "ack"
        assert sockets["black"].move("f6-g5", ply=1)["type"] == "ack"
        assert sockets["white"].move("g3-h4", ply=2)["type"] == "ack"
        for s in sockets.values():
            s.wait_state(lambda g: g["ply"] == 3)
        clocks_before = sockets["white"].state["clocks"]
        asked = sockets["white"].request({"type": "takeback-offer"})
        assert asked["type"] == "ack", asked
        sockets["black"].wait_state(lambda g: g["takeback_offer"] == "white")
        assert sockets["black"].request({"type": "takeback-accept"})["type"] == "ack"
        for s in sockets.values():
            game = s.wait_state(lambda g: g["ply"] == 2)
            assert game["moves"] == ["c3-d4", "f6-g5"] and game["takeback_offer"] is None
        # No time is given back; the clock runs for the side to move again.
        clocks = sockets["white"].state["clocks"]
        assert clocks["running"] == "white"
        assert clocks["white_ms"] <= clocks_before["white_ms"]
        assert clocks["black_ms"] <= clocks_before["black_ms"]
        assert sockets["white"].move("e3-f4", ply=2)["type"] == "ack"
        sockets["black"].wait_state(lambda g: g["moves"] == ["c3-d4", "f6-g5", "e3-f4"])
    finally:
        for s in sockets.values():
            s.close()


def test_the_board_api_asks_answers_and_streams_the_moves_taken_back(players):
    white, black = players(), players()
    gid = white.challenge(black)["id"]
    board_white, board_black = ApiClient(white, "board:play"), ApiClient(black, "board:play")
    stream: Stream = board_black.stream(f"/api/board/game/stream/{gid}")
    try:
        assert stream.next()["type"] == "gameFull"
        assert board_white.post(f"/api/board/game/{gid}/move/2218").json() == {"ok": True}
        assert board_black.post(f"/api/board/game/{gid}/move/1115").json() == {"ok": True}
        assert board_white.post(f"/api/board/game/{gid}/takeback/yes").json() == {"ok": True}
        assert [stream.until("gameState")["moves"] for _ in range(2)] == ["2218", "2218 1115"]
        state = stream.until("gameState")
        assert (state["wtakeback"], state["btakeback"], state["moves"]) == (True, False, "2218 1115")
        assert board_black.post(f"/api/board/game/{gid}/takeback/no").json() == {"ok": True}
        state = stream.until("gameState")
        assert state["wtakeback"] is False and state["moves"] == "2218 1115"
        # Declined: asked again only after a move (d4:f6, the capture White must make).
        assert board_white.post(f"/api/board/game/{gid}/takeback/yes").status_code == 409
        assert board_white.post(f"/api/board/game/{gid}/move/1811").json() == {"ok": True}
        assert stream.until("gameState")["moves"] == "2218 1115 1811"
        assert board_white.post(f"/api/board/game/{gid}/takeback/yes").json() == {"ok": True}
        assert stream.until("gameState")["wtakeback"] is True
        assert board_black.post(f"/api/board/game/{gid}/takeback/yes").json() == {"ok": True}
        state = stream.until("gameState")
        assert (state["moves"], state["wtakeback"]) == ("2218 1115", False)
        # The moves after the takeback are read on from the position taken back to.
        board_white.post(f"/api/board/game/{gid}/move/1811")
        assert stream.until("gameState")["moves"] == "2218 1115 1811"
        bad = board_white.post(f"/api/board/game/{gid}/takeback/maybe")
        assert bad.status_code == 400
    finally:
        stream.close()


def test_a_correspondence_turn_played_again_after_a_takeback_is_told_again(players):
    """Each turn of a correspondence game is told once: the same ply played again after a takeback is a
    turn of its own, and the player whose takeback was agreed to is told it is their turn (found by an
    audit: "your turn" was stored once per ply, and the turn after a takeback was never told)."""
    white, black = players(), players()
    r = white.post("/api/challenges", {"username": black.name, "days": 3, "color": "white"})
    gid = black.post(f"/api/challenges/{r.json()['challenge']['id']}/accept").json()["game"]["id"]

    def turns(player) -> list[dict]:
        told = player.http.get("/api/notifications").json()["notifications"]
        return [n for n in told if n["kind"] == "yourTurn" and not n["read"]]

    move(white, gid, "c3-d4")
    assert len(eventually(lambda: turns(black), lambda t: len(t) == 1)) == 1
    black.post("/api/notifications/read")
    ask(white, gid)
    white.post("/api/notifications/read")
    assert ask(black, gid, "accept").status_code == 200
    assert len(eventually(lambda: turns(white), lambda t: len(t) == 1)) == 1  # White's turn again
    move(white, gid, "a3-b4")
    assert len(eventually(lambda: turns(black), lambda t: len(t) == 1)) == 1  # ply 1 again, told again
