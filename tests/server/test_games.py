"""Games through a real server: whole games over WebSocket, refusals, every way a game ends."""

from __future__ import annotations

import random
import threading
import time

import httpx
from game_lines import GIVEAWAY_WIN_FOR_WHITE  # tests/game_lines.py, shared with the browser tests

from .helpers import GameSocket, eventually, first_moves

# Two kings that can shuffle without ever meeting on a diagonal: four plies bring the position back.
KINGS_SHUFFLE_FEN = "W:WKc1:BKf8"
KINGS_SHUFFLE = ["c1-a3", "f8-h6", "a3-c1", "h6-f8"]


def test_two_accounts_play_a_whole_giveaway_game_to_a_win_by_no_legal_move(players):
    white, black = players(), players()
    game = white.challenge(black, variant="russian-giveaway")
    sockets = {"white": white.socket(game["id"]), "black": black.socket(game["id"])}
    for ply, move in enumerate(GIVEAWAY_WIN_FOR_WHITE):
        mover = sockets["white" if ply % 2 == 0 else "black"]
        assert mover.state["legal_moves"], "every state carries the legal moves of the side to move"
        assert move in [m["move"] for m in mover.state["legal_moves"]]
        ack = mover.move(move, ply=ply)
        assert ack["type"] == "ack" and ack["ply"] == ply + 1, ack
        for s in sockets.values():
            s.wait_state(lambda g, n=ply + 1: g["ply"] == n)
    final = sockets["black"].state
    assert (final["status"], final["result"], final["winner"], final["reason"]) == (
        "finished",
        "1-0",
        "white",
        "no-legal-move",
    )
    assert final["legal_moves"] == []
    assert final["moves"] == GIVEAWAY_WIN_FOR_WHITE
    # The numbered events went up one per state change, with no gap, on both sockets.
    assert sockets["white"].seq == sockets["black"].seq == final["seq"] == len(GIVEAWAY_WIN_FOR_WHITE) + 1
    assert white.http.get(f"/api/games/{game['id']}").json()["game"]["result"] == "1-0"


def test_every_state_carries_legal_moves_and_both_clocks(players):
    white, black = players(), players()
    game = white.challenge(black, time_control={"minutes": 3, "increment": 2})
    assert game["clocks"] == {
        "white_ms": 180000,
        "black_ms": 180000,
        "initial_ms": 180000,
        "increment_ms": 2000,
        "running": None,
        "berserk": {"white": False, "black": False},
    }
    assert {m["move"] for m in game["legal_moves"]} == {
        "a3-b4",
        "c3-b4",
        "c3-d4",
        "e3-d4",
        "e3-f4",
        "g3-f4",
        "g3-h4",
    }
    assert game["side_to_move"] == "white" and game["fen"].startswith("W:")


def test_an_illegal_move_is_refused_with_its_reason_and_changes_nothing(players):
    white, black = players(), players()
    game = white.challenge(black)
    ws = white.socket(game["id"])
    before = dict(ws.state)
    answer = ws.move("c3-c4")
    assert answer["type"] == "error" and answer["error"]["code"] in ("illegal_destination", "malformed")
    answer = ws.move("c3-e5")
    assert answer["type"] == "error" and answer["error"]["message"]
    # A capture is compulsory: after c3-d4 f6-e5, White must take.
    assert ws.move("c3-d4")["type"] == "ack"
    bws = black.socket(game["id"])
    assert bws.move("f6-e5")["type"] == "ack"
    ws.wait_state(lambda g: g["ply"] == 2)
    refused = ws.move("g3-h4")
    assert refused["error"]["code"] == "capture_required", refused
    r = white.post(f"/api/games/{game['id']}/move", {"move": "a3-b4"})
    assert r.status_code == 400 and r.json()["error"]["code"] == "capture_required"
    state = white.http.get(f"/api/games/{game['id']}").json()["game"]
    assert state["ply"] == 2 and state["moves"] == ["c3-d4", "f6-e5"]
    assert before["ply"] == 0


def test_moves_out_of_turn_in_another_game_by_a_spectator_or_without_scope_are_refused(players, server):
    white, black, stranger = players(), players(), players()
    game = white.challenge(black)
    gid = game["id"]
    # Out of turn.
    r = black.post(f"/api/games/{gid}/move", {"move": "f6-g5"})
    assert r.status_code == 409 and r.json()["error"]["code"] == "not_your_turn"
    # Someone else's game.
    r = stranger.post(f"/api/games/{gid}/move", {"move": "c3-d4"})
    assert r.status_code == 403 and r.json()["error"]["code"] == "not_your_game"
    # An anonymous spectator watches but cannot act.
    spectator = GameSocket(server, gid)
    assert spectator.state["id"] == gid
    answer = spectator.move("c3-d4")
    assert answer["error"]["code"] == "login_required"
    # A logged-in spectator neither.
    ws = stranger.socket(gid)
    assert ws.move("c3-d4")["error"]["code"] == "not_your_game"
    # A token with only the read scope may read but not play.
    token = white.token("read")
    bearer = {"Authorization": f"Bearer {token}"}
    r = httpx.post(f"{server.url}/api/games/{gid}/move", json={"move": "c3-d4"}, headers=bearer)
    assert r.status_code == 403 and r.json()["error"]["code"] == "missing_scope"
    assert httpx.get(f"{server.url}/api/account", headers=bearer).status_code == 200
    # A token with board:play plays; nothing above changed the game.
    play = {"Authorization": f"Bearer {white.token('board:play')}"}
    r = httpx.post(f"{server.url}/api/games/{gid}/move", json={"move": "c3-d4", "ply": 0}, headers=play)
    assert r.status_code == 200 and r.json()["game"]["moves"] == ["c3-d4"], r.text
    spectator.wait_state(lambda g: g["ply"] == 1)


def test_the_same_move_sent_twice_at_once_is_applied_once(players):
    white, black = players(), players()
    gid = white.challenge(black)["id"]
    barrier = threading.Barrier(4)
    answers = []

    def submit(client):
        barrier.wait()
        answers.append(client.post(f"/api/games/{gid}/move", json={"move": "c3-d4", "ply": 0}))

    clients = [
        httpx.Client(base_url=white.server.url, cookies=white.http.cookies, headers=white.http.headers)
        for _ in range(4)
    ]
    threads = [threading.Thread(target=submit, args=(c,)) for c in clients]
    for t in threads:
        t.start()
    for t in threads:
        t.join(10)
    codes = sorted(r.status_code for r in answers)
    assert codes == [200, 409, 409, 409], [r.text for r in answers]
    assert {r.json()["error"]["code"] for r in answers if r.status_code == 409} <= {
        "ply_already_played",
        "not_your_turn",
    }
    state = white.http.get(f"/api/games/{gid}").json()["game"]
    assert state["moves"] == ["c3-d4"] and state["ply"] == 1
    for c in clients:
        c.close()


def test_a_flag_falls_on_the_server_without_any_client_asking(players):
    white, black = players(), players()
    gid = white.challenge(black, time_control={"minutes": 0.01, "increment": 0})["id"]  # 0.6 s each
    ws = black.socket(gid)
    assert white.socket(gid).move("c3-d4")["type"] == "ack"
    assert ws.move("f6-g5")["type"] == "ack"
    # Now White's clock runs (each side's first move is free) and nobody does anything.
    final = ws.wait_state(lambda g: g["status"] != "started", timeout=5)
    assert (final["result"], final["winner"], final["reason"]) == ("0-1", "black", "time")
    assert final["clocks"]["white_ms"] == 0 and final["clocks"]["black_ms"] > 0
    r = white.post(f"/api/games/{gid}/move", {"move": "g3-h4"})
    assert r.status_code == 409 and r.json()["error"]["code"] == "game_over"


def test_fischer_increment_is_added_after_each_timed_move(players):
    white, black = players(), players()
    gid = white.challenge(black, time_control={"minutes": 1, "increment": 5})["id"]
    for player, move in ((white, "c3-d4"), (black, "f6-g5"), (white, "g3-h4")):
        r = player.post(f"/api/games/{gid}/move", {"move": move})
        assert r.status_code == 200, r.text
    clocks = r.json()["game"]["clocks"]
    # White's third ply was timed: it got 5 s back for what little it spent.
    assert 60000 < clocks["white_ms"] <= 65000 and clocks["running"] == "black"


def test_draw_by_agreement_and_an_offer_lapses_with_the_next_move(players):
    white, black = players(), players()
    gid = white.challenge(black)["id"]
    w, b = white.socket(gid), black.socket(gid)
    assert w.move("c3-d4")["type"] == "ack"
    # Before each side has moved there is no draw to agree (nor rating to move): the game is aborted.
    assert w.request({"type": "draw-offer"})["error"]["code"] == "too_early_for_a_draw"
    assert b.move("f6-g5")["type"] == "ack"
    assert w.move("b2-c3")["type"] == "ack"
    assert w.request({"type": "draw-offer"})["type"] == "ack"
    b.wait_state(lambda g: g["draw_offer"] == "white")
    # Black moves instead of answering: the offer lapses.
    assert b.move("g7-f6")["type"] == "ack"
    b.wait_state(lambda g: g["ply"] == 4)
    assert b.state["draw_offer"] is None
    assert b.request({"type": "draw-accept"})["error"]["code"] == "no_draw_offer"
    # Offer, decline; the same side offers again only 20 plies after its last offer, as on lichess (found
    # by an audit: offers could be sent again and again, each shown to the opponent).
    assert b.request({"type": "draw-offer"})["type"] == "ack"
    offered = w.wait_state(lambda g: g["draw_offer"] == "black")["seq"]
    assert w.request({"type": "draw-decline"})["type"] == "ack"
    declined = w.wait_state(lambda g: g["draw_offer"] is None and g["seq"] > offered)
    assert declined["draw_again_at"] == {"white": 23, "black": 24}
    assert b.request({"type": "draw-offer"})["error"]["code"] == "draw_offered_recently"
    assert w.request({"type": "draw-offer"})["error"]["code"] == "draw_offered_recently"
    # Offer, accept.
    gid = white.challenge(black)["id"]
    w, b = white.socket(gid), black.socket(gid)
    assert w.move("c3-d4")["type"] == "ack" and b.move("f6-g5")["type"] == "ack"
    assert b.request({"type": "draw-offer"})["type"] == "ack"
    w.wait_state(lambda g: g["draw_offer"] == "black")
    assert w.request({"type": "draw-accept"})["type"] == "ack"
    final = b.wait_state(lambda g: g["status"] == "finished")
    assert (final["result"], final["winner"], final["reason"]) == ("1/2-1/2", None, "agreement")
    assert final["draw_again_at"] == {"white": None, "black": None}


def test_threefold_repetition_ends_the_game_drawn(players):
    white, black = players(), players()
    gid = white.challenge(black, fen=KINGS_SHUFFLE_FEN)["id"]
    sockets = [white.socket(gid), black.socket(gid)]
    for ply, move in enumerate(KINGS_SHUFFLE * 2):
        assert sockets[ply % 2].move(move, ply=ply)["type"] == "ack", move
    final = sockets[0].wait_state(lambda g: g["status"] == "finished")
    assert (final["result"], final["reason"]) == ("1/2-1/2", "threefold-repetition")
    assert final["legal_moves"] == []


def test_abort_is_possible_only_before_each_side_has_moved(players):
    white, black = players(), players()
    gid = white.challenge(black)["id"]
    assert white.post(f"/api/games/{gid}/move", {"move": "c3-d4"}).status_code == 200
    r = black.post(f"/api/games/{gid}/abort")
    assert r.status_code == 200 and r.json()["game"]["status"] == "aborted"
    assert r.json()["game"]["result"] is None and r.json()["game"]["reason"] == "aborted"

    gid = white.challenge(black)["id"]
    white.post(f"/api/games/{gid}/move", {"move": "c3-d4"})
    black.post(f"/api/games/{gid}/move", {"move": "f6-g5"})
    r = white.post(f"/api/games/{gid}/abort")
    assert r.status_code == 409 and r.json()["error"]["code"] == "too_late_to_abort"


def test_resignation_gives_the_game_to_the_opponent(players):
    white, black = players(), players()
    gid = white.challenge(black)["id"]
    ws = white.socket(gid)
    first_moves(gid, white, black)
    assert black.socket(gid).request({"type": "resign"})["type"] == "ack"
    final = ws.wait_state(lambda g: g["status"] == "finished")
    assert (final["result"], final["winner"], final["reason"]) == ("1-0", "white", "resignation")


def test_a_resignation_before_each_side_has_moved_aborts_the_game_unrated(players):
    """As on lichess and lidraughts, whichever way it is sent: a rated game resigned (or offered a draw)
    before each side has moved moves no rating (found by an audit: the site rated it, the Bot API not)."""
    white, black = players(), players()
    for resign in ("http", "socket"):
        gid = white.challenge(black, rated=True, time_control={"minutes": 5, "increment": 3})["id"]
        assert white.post(f"/api/games/{gid}/move", {"move": "c3-d4"}).status_code == 200
        r = black.post(f"/api/games/{gid}/draw/offer")
        assert r.status_code == 409 and r.json()["error"]["code"] == "too_early_for_a_draw"
        if resign == "http":
            assert black.post(f"/api/games/{gid}/resign").status_code == 200
        else:
            assert black.socket(gid).request({"type": "resign"})["type"] == "ack"
        final = white.http.get(f"/api/games/{gid}").json()["game"]
        assert (final["status"], final["result"], final["rating_diffs"]) == ("aborted", None, None)
    assert white.http.get(f"/api/users/{white.name}").json()["ratings"] == []


def test_victory_can_be_claimed_once_the_opponent_is_gone_on_their_turn(players):
    white, black = players(), players()
    gid = white.challenge(black, time_control={"minutes": 5, "increment": 0})["id"]
    w, b = white.socket(gid), black.socket(gid)
    assert w.move("c3-d4")["type"] == "ack"
    # Before Black's first move there is no victory to claim, however long Black is away: the game can
    # still be aborted, unrated (and aborts by itself if Black never starts).
    b.close()
    w.wait(lambda m: m.get("type") == "presence" and not m["black"])
    time.sleep(0.7)  # past the claim delay (0.5 s here)
    refused = w.request({"type": "claim-victory"})
    assert refused["error"]["code"] == "cannot_claim" and "abort" in refused["error"]["message"]
    b = black.socket(gid)
    assert b.move("f6-e5", ply=1)["type"] == "ack"
    assert w.move("d4:f6", ply=2)["type"] == "ack"
    # Black is connected: no claim.
    assert w.request({"type": "claim-victory"})["error"]["code"] == "cannot_claim"
    b.close()
    w.wait(lambda m: m.get("type") == "presence" and not m["black"])
    refused = w.request({"type": "claim-victory"})
    assert refused["error"]["code"] == "cannot_claim"  # gone, but not yet for the claim delay (0.5 s here)
    answer = eventually(lambda: w.request({"type": "claim-victory"}), lambda a: a["type"] == "ack")
    assert answer["type"] == "ack", answer
    final = w.wait_state(lambda g: g["status"] == "finished")
    assert (final["result"], final["winner"], final["reason"]) == ("1-0", "white", "abandonment")
    # Exported as lidraughts does a won claim (status timeout): a time forfeit, not an abandoned game.
    exported = white.http.get(f"/game/export/{gid}").text
    assert '[Result "1-0"]' in exported and '[Termination "Time forfeit"]' in exported


def test_a_game_against_the_computer_finishes(players):
    human = players()
    r = human.post("/api/computer-games", {"level": 3, "color": "white"})
    assert r.status_code == 201, r.text
    game = r.json()["game"]
    assert game["black"]["computer"] and game["black"]["engine"] == "shashki"
    ws = human.socket(game["id"])
    rng = random.Random(7)
    for _ in range(300):
        state = ws.wait_state(lambda g: g["status"] != "started" or g["side_to_move"] == "white")
        if state["status"] != "started":
            break
        ack = ws.move(rng.choice(state["legal_moves"])["move"], ply=state["ply"])
        assert ack["type"] == "ack", ack
        ws.wait_state(lambda g, n=ack["ply"]: g["ply"] > n or g["status"] != "started")
    assert ws.state["status"] == "finished" and ws.state["reason"], ws.state


def test_a_client_that_asks_for_a_resync_gets_the_whole_state_again(players):
    white, black = players(), players()
    gid = white.challenge(black)["id"]
    w = white.socket(gid)
    assert w.move("c3-d4")["type"] == "ack"
    w.wait_state(lambda g: g["ply"] == 1)
    w.send({"type": "resync", "seq": 0})
    again = w.wait(lambda m: m.get("type") == "state" and m.get("resync"))
    assert again["seq"] == 2 and again["game"]["moves"] == ["c3-d4"] and again["game"]["legal_moves"]


def test_no_victory_is_claimed_in_a_game_without_a_clock(players):
    """A game without a clock is played at leisure, as on lidraughts (only a game with a clock is won by the
    opponent's absence): found by an audit, an unmodified lidraughts bot, which plays such a game as a
    correspondence game and leaves between moves, lost it to a claim."""
    white, black = players(), players()
    gid = white.challenge(black)["id"]
    w, b = white.socket(gid), black.socket(gid)
    assert w.move("c3-d4")["type"] == "ack"
    assert b.move("f6-e5", ply=1)["type"] == "ack"
    assert w.move("d4:f6", ply=2)["type"] == "ack"
    b.close()
    w.wait(lambda m: m.get("type") == "presence" and not m["black"])
    time.sleep(0.7)  # past the claim delay (0.5 s here)
    refused = w.request({"type": "claim-victory"})
    assert refused["error"]["code"] == "cannot_claim" and "without a clock" in refused["error"]["message"]
    state = white.http.get(f"/api/games/{gid}").json()["game"]
    assert state["status"] == "started" and state["claim_victory_after_ms"] is None


def test_a_player_gives_the_opponent_fifteen_seconds(players):
    """lichess's "Give 15 seconds": on the live channel or over HTTP, to the opponent's clock, whoever is to
    move; not in a game without a clock, not to the computer, not by a spectator; changing nothing else."""
    white, black, watcher = players(), players(), players()
    gid = white.challenge(black, time_control={"minutes": 1, "increment": 0})["id"]
    w = white.socket(gid)
    assert w.request({"type": "moretime"})["type"] == "ack"
    clocks = w.wait_state(lambda g: g["clocks"]["black_ms"] > 60_000)["clocks"]
    assert (clocks["white_ms"], clocks["black_ms"]) == (60_000, 75_000)
    first_moves(gid, white, black)
    r = black.post(f"/api/games/{gid}/moretime")  # White is to move: White's running clock gets them
    assert r.status_code == 200, r.text
    state = r.json()["game"]
    assert 70_000 < state["clocks"]["white_ms"] <= 75_000 and state["ply"] == 2
    assert watcher.post(f"/api/games/{gid}/moretime").status_code == 403
    untimed = white.challenge(black)["id"]
    r = white.post(f"/api/games/{untimed}/moretime")
    assert r.status_code == 409 and r.json()["error"]["code"] == "no_clock"
    computer = white.post("/api/computer-games", {"level": 1, "time_control": {"minutes": 5, "increment": 0}})
    assert computer.status_code == 201, computer.text
    r = white.post(f"/api/games/{computer.json()['game']['id']}/moretime")
    assert r.status_code == 409 and r.json()["error"]["code"] == "cannot_give_time"
