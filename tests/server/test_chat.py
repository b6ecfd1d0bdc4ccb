"""Game chat through a real server: the players' and the spectators' rooms, limits, and the players'
choices about the spectators' chat (hide it for oneself, close it for the game).
"""

from __future__ import annotations

import httpx

from .helpers import GameSocket


def next_chat(socket: GameSocket) -> dict:
    return socket.wait(lambda m: m.get("type") == "chat")


def test_the_players_room_is_theirs_and_the_spectators_room_everyones(players, server):
    """The players read and write in the spectators' room only once their game is over, as on lichess
    (found by an audit: a spectator's "white, play c3-b4!" reached the player in the middle of the game)."""
    a, b, watcher = players(), players(), players()
    gid = a.challenge(b)["id"]
    sockets = {"a": a.socket(gid), "b": b.socket(gid), "watcher": watcher.socket(gid)}
    sockets["anon"] = GameSocket(server, gid)

    r = a.post(f"/api/games/{gid}/chat", {"text": "  good luck\n"})
    assert r.status_code == 201 and r.json()["line"]["room"] == "player"  # a player's default room
    line = next_chat(sockets["b"])
    assert (line["room"], line["text"], line["username"]) == ("player", "good luck", a.name)

    r = watcher.post(f"/api/games/{gid}/chat", {"text": "nice opening"})
    assert r.json()["line"]["room"] == "spectator"
    for name in ("watcher", "anon"):
        # The spectators' first chat line is the spectators' one: the players' line never reached them.
        line = next_chat(sockets[name])
        assert (line["room"], line["text"]) == ("spectator", "nice opening"), name
    assert a.post(f"/api/games/{gid}/chat", {"text": "and you"}).status_code == 201
    assert next_chat(sockets["a"])["text"] == "good luck"  # the writer's own line comes back too
    for name in ("a", "b"):  # the players' next line is their own: the spectators' did not reach them
        assert next_chat(sockets[name])["text"] == "and you", name
    r = a.post(f"/api/games/{gid}/chat", {"text": "thanks", "room": "spectator"})
    assert r.status_code == 403 and r.json()["error"]["code"] == "players_in_play"
    mine = b.http.get(f"/api/games/{gid}/chat").json()
    assert mine["rooms"] == ["player"]
    assert [line["text"] for line in mine["lines"]] == ["good luck", "and you"]

    r = watcher.post(f"/api/games/{gid}/chat", {"text": "psst", "room": "player"})
    assert r.status_code == 403 and r.json()["error"]["code"] == "players_only"

    # Over: the players read the spectators and may answer them there.
    assert a.post(f"/api/games/{gid}/abort").status_code == 200
    assert a.post(f"/api/games/{gid}/chat", {"text": "thanks", "room": "spectator"}).status_code == 201
    texts = [line["text"] for line in watcher.http.get(f"/api/games/{gid}/chat").json()["lines"]]
    assert texts == ["nice opening", "thanks"]
    anonymous = httpx.get(f"{server.url}/api/games/{gid}/chat").json()
    assert [line["text"] for line in anonymous["lines"]] == ["nice opening", "thanks"]
    assert anonymous["rooms"] == ["spectator"]
    mine = b.http.get(f"/api/games/{gid}/chat").json()
    assert [line["text"] for line in mine["lines"]] == ["good luck", "nice opening", "and you", "thanks"]

    r = httpx.post(f"{server.url}/api/games/{gid}/chat", json={"text": "hello"})
    assert r.status_code == 401
    assert a.post("/api/games/nosuchgm/chat", {"text": "hello"}).status_code == 404


def test_chat_lines_are_limited_in_length_and_rate(players):
    a, b = players(), players()
    gid = a.challenge(b)["id"]
    assert a.post(f"/api/games/{gid}/chat", {"text": "x" * 140}).status_code == 201
    r = a.post(f"/api/games/{gid}/chat", {"text": "x" * 141})
    assert r.status_code == 400 and r.json()["error"]["code"] == "message_too_long"
    r = a.post(f"/api/games/{gid}/chat", {"text": " \t\n "})
    assert r.status_code == 400 and r.json()["error"]["code"] == "empty_message"
    # Five lines per game within ten seconds: four more pass, the next is refused with a wait.
    for n in range(4):
        assert a.post(f"/api/games/{gid}/chat", {"text": f"line {n}"}).status_code == 201
    r = a.post(f"/api/games/{gid}/chat", {"text": "one too many"})
    assert r.status_code == 429 and r.json()["error"]["code"] == "rate_limited"
    assert int(r.headers["Retry-After"]) >= 1 and r.json()["error"]["retry_after"] >= 1
    # The opponent has their own allowance, and so has the same player in another game.
    assert b.post(f"/api/games/{gid}/chat", {"text": "calm down"}).status_code == 201
    other = a.challenge(b)["id"]
    assert a.post(f"/api/games/{other}/chat", {"text": "hello again"}).status_code == 201
    lines = b.http.get(f"/api/games/{gid}/chat").json()["lines"]
    assert len(lines) == 6 and all(len(line["text"]) <= 140 for line in lines)


def test_a_player_can_hide_the_spectators_chat_or_close_it_for_the_game(players, server):
    a, b, watcher, stranger = players(), players(), players(), players()
    gid = a.challenge(b)["id"]
    assert a.post(f"/api/games/{gid}/abort").status_code == 200  # over: the players read the spectators
    wa, wb = a.socket(gid), b.socket(gid)

    r = a.post(f"/api/games/{gid}/chat/spectators", {"mode": "hide"})
    assert r.status_code == 200 and r.json() == {"spectators": "hide", "spectators_closed": False}
    assert watcher.post(f"/api/games/{gid}/chat", {"text": "can you hear me"}).status_code == 201
    assert next_chat(wb)["text"] == "can you hear me"  # the other player still reads the spectators
    assert b.post(f"/api/games/{gid}/chat", {"text": "only for you"}).status_code == 201
    assert next_chat(wa)["text"] == "only for you"  # ... but not the one who hid them
    view = a.http.get(f"/api/games/{gid}/chat").json()
    assert view["rooms"] == ["player"] and [line["text"] for line in view["lines"]] == ["only for you"]

    # Only the game's players choose; anonymous visitors neither.
    r = stranger.post(f"/api/games/{gid}/chat/spectators", {"mode": "close"})
    assert r.status_code == 403 and r.json()["error"]["code"] == "not_your_game"
    anonymous = httpx.post(f"{server.url}/api/games/{gid}/chat/spectators", json={"mode": "close"})
    assert anonymous.status_code == 401

    # Closing the room: nobody writes there any more in this game; the players' room goes on.
    assert b.post(f"/api/games/{gid}/chat/spectators", {"mode": "close"}).json()["spectators_closed"] is True
    r = watcher.post(f"/api/games/{gid}/chat", {"text": "let me in"})
    assert r.status_code == 403 and r.json()["error"]["code"] == "spectator_chat_closed"
    assert a.post(f"/api/games/{gid}/chat", {"text": "quiet now"}).status_code == 201
    wb.wait(lambda m: m.get("type") == "chat" and m["text"] == "quiet now")
    # Reopened by the one who closed it.
    b.post(f"/api/games/{gid}/chat/spectators", {"mode": "show"})
    assert watcher.post(f"/api/games/{gid}/chat", {"text": "thanks"}).status_code == 201

    # Closed during a game, it stops the spectators writing while it is played.
    playing = a.challenge(b)["id"]
    assert a.post(f"/api/games/{playing}/chat/spectators", {"mode": "close"}).status_code == 200
    r = watcher.post(f"/api/games/{playing}/chat", {"text": "hello"})
    assert r.status_code == 403 and r.json()["error"]["code"] == "spectator_chat_closed"


def test_a_blocked_authors_lines_reach_the_blocker_by_no_way_of_listening(players):
    """A block hides the blocked player's lines from the blocker on the game socket and in the chat's
    read (ChatService.shown); others still see them. (On the Board API's game stream a player hears the
    spectators' room only once the game is over, when the stream has ended.)"""
    a, b, c, blocked = players(), players(), players(), players()
    assert a.post(f"/api/rel/block/{blocked.name}").status_code == 200
    gid = b.challenge(c)["id"]  # a watches
    socket, others = a.socket(gid), players().socket(gid)

    assert blocked.post(f"/api/games/{gid}/chat", {"text": "from the blocked"}).status_code == 201
    assert next_chat(others)["text"] == "from the blocked"
    assert a.post(f"/api/games/{gid}/chat", {"text": "from a"}).status_code == 201

    # The first line the blocker hears is their own, written after the blocked player's.
    assert next_chat(socket)["text"] == "from a"
    lines = a.http.get(f"/api/games/{gid}/chat").json()["lines"]
    assert [line["text"] for line in lines] == ["from a"]


def test_a_line_keeps_its_joiners_and_loses_controls_and_direction_overrides():
    """Found by an audit: every format character became a space, so "👨‍💻" became two emoji and a
    Persian word two words."""
    from shashki.server.chat.service import clean

    assert clean("👨\u200d💻 🏳️\u200d🌈") == "👨\u200d💻 🏳️\u200d🌈"
    assert clean("می\u200cخواهم") == "می\u200cخواهم"
    assert clean(" a\tb\nc\x00d ") == "a b c d"
    assert clean("abc\u202edef\u2066") == "abcdef"  # a direction override would turn the page around
