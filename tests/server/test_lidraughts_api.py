"""The Bot and Board APIs where lidraughts' clients need them to be exactly lidraughts' (issue 12):
players' status, one line for a move with a draw offer, the upgrade with a bot:play token, the variant
objects games and challenges carry.
"""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import httpx
import pytest

from .test_bot_api import ApiClient, bot_and_person

BLITZ = {"minutes": 5, "increment": 3}


def test_users_status_answers_lidraughts_list_of_id_name_online_playing(players, server):
    bot, person = bot_and_person(players)
    idle = players()
    url = f"{server.url}/api/users/status"

    # Nobody online, nobody playing; unknown names are left out, the order of the question kept.
    rows = httpx.get(url, params={"ids": f"{bot.name},nobody_{idle.name},{idle.name.upper()}"}).json()
    assert rows == [
        {"id": bot.name.lower(), "name": bot.name, "title": "BOT", "online": False, "playing": False},
        {"id": idle.name.lower(), "name": idle.name, "online": False, "playing": False},
    ]
    # The bot's event stream makes it online; a game in progress makes both players playing.
    events = bot.stream("/api/stream/event")
    person.challenge(bot.player, time_control=BLITZ)
    events.until("gameStart")
    rows = httpx.get(url, params={"ids": f"{bot.name},{person.name}"}).json()
    assert [(r["name"], r["online"], r["playing"]) for r in rows] == [
        (bot.name, True, True),
        (person.name, False, True),
    ]
    events.close()
    assert httpx.get(url).json() == []
    # It is not a player's profile, and nobody may be called "status".
    assert httpx.get(f"{server.url}/api/users/{person.name}").status_code == 200
    taken = httpx.post(f"{server.url}/api/auth/register", json={"username": "Status", "password": "x" * 12})
    assert taken.status_code == 409 and taken.json()["error"]["code"] == "username_taken"


def test_a_move_with_a_draw_offer_arrives_as_one_game_state_line(players):
    bot, person = bot_and_person(players)
    board = ApiClient(person, "board:play")
    gid = person.challenge(bot.player, color="white", time_control=BLITZ)["id"]
    game = bot.stream(f"/api/bot/game/stream/{gid}")
    assert game.next()["type"] == "gameFull"

    def move(client: ApiClient, kind: str, text: str, offering: bool) -> None:
        r = client.post(f"/api/{kind}/game/{gid}/move/{text}", params={"offeringDraw": str(offering).lower()})
        assert r.json() == {"ok": True}, r.text

    # Before each side has moved an offer is dropped and the move played, as lidraughts does.
    move(board, "board", "2217", True)
    line = game.until("gameState")
    assert (line["moves"], line["wdraw"], line["bdraw"]) == ("2217", False, False)
    move(bot, "bot", "1015", False)
    assert game.until("gameState")["moves"] == "2217 1015"
    # The very next line has both the move and the offer (never the move alone, then the offer).
    move(board, "board", "2318", True)
    line = game.until("gameState")
    assert (line["moves"], line["wdraw"], line["bdraw"]) == ("2217 1015 2318", True, False)
    r = bot.post(f"/api/bot/game/{gid}/draw/no")  # Black declines, then plays
    assert r.json() == {"ok": True}, r.text
    assert game.until("gameState")["wdraw"] is False
    # A capture sent jump by jump with the offer (as lidraughts-bot does): one line, with the whole move.
    move(bot, "bot", "1522", True)
    move(bot, "bot", "2213", True)
    line = game.until("gameState")
    assert (line["moves"], line["wdraw"], line["bdraw"]) == ("2217 1015 2318 1522 2213", False, True)
    # Offering with a move when the opponent has offered is accepting, as on lidraughts.
    move(board, "board", "2622", True)
    final = game.until("gameState")
    assert (final["status"], final["moves"]) == ("draw", "2217 1015 2318 1522 2213")
    assert game.ended()


def test_an_offer_made_again_too_soon_with_a_move_is_dropped_and_the_move_played(players):
    """A side offers a draw again only 20 plies after its last offer (games/draws.py); a bot client that
    offers with every move of a drawn ending has its offer dropped, not its move refused."""
    bot, person = bot_and_person(players)
    board = ApiClient(person, "board:play")
    gid = person.challenge(bot.player, color="white", time_control=BLITZ)["id"]
    moves = (
        (board, "board", "2217", False), (bot, "bot", "1015", False), (board, "board", "2318", True),
        (bot, "bot", "1522", False), (bot, "bot", "2213", False), (board, "board", "2622", True),
    )  # fmt: skip
    for number, (client, kind, text, offering) in enumerate(moves):
        if number == 3:  # White offered with its second move; Black declines
            assert bot.post(f"/api/bot/game/{gid}/draw/no").json() == {"ok": True}
            refused = board.post(f"/api/board/game/{gid}/draw/yes").json()
            assert refused["error"]["code"] == "draw_offered_recently"
        r = client.post(f"/api/{kind}/game/{gid}/move/{text}", params={"offeringDraw": str(offering).lower()})
        assert r.json() == {"ok": True}, r.text
    state = board.http.get(f"/api/games/{gid}").json()["game"]
    assert (state["ply"], state["draw_offer"], state["draw_again_at"]["white"]) == (5, None, 22)


def test_an_ordinary_account_upgrades_to_a_bot_with_its_bot_play_token(players, server):
    person = players()
    token = ApiClient(person, "bot:play")
    # Before the upgrade the token plays no game through the Bot API.
    r = token.post("/api/bot/game/abcdefgh/move/2218")
    assert r.status_code == 403 and r.json()["error"]["code"] == "not_a_bot"
    assert token.http.get("/api/account").json()["title"] is None
    assert token.post("/api/bot/account/upgrade").json() == {"ok": True}
    assert token.http.get("/api/account").json()["title"] == "BOT"
    other = players()
    gid = other.challenge(person, color="white")["id"]
    other.post(f"/api/games/{gid}/move", {"move": "c3-d4"})
    assert token.post(f"/api/bot/game/{gid}/move/1115").json() == {"ok": True}


def test_an_account_turned_bot_keeps_none_of_what_it_offered_as_a_person(players, server):
    """A bot plays no lobby game and no arena: the seek and the arena entry made before the upgrade go
    with it (found by an audit: a person took the seek, and the arena paired the bot)."""
    from .tournament_support import create, join, now_iso, show

    person, host = players(), players()
    seek = person.post("/api/seeks", {"variant": "russian", "time_control": {"minutes": 17, "increment": 3}})
    seek_id = seek.json()["seek"]["id"]
    arena = create(host, "arena", starts_at=now_iso(3600))["id"]
    join(person, arena)
    assert show(host, arena)["players"] == 1
    assert ApiClient(person, "bot:play").post("/api/bot/account/upgrade").json() == {"ok": True}
    assert seek_id not in {s["id"] for s in httpx.get(f"{server.url}/api/seeks").json()["seeks"]}
    assert show(host, arena)["players"] == 0


def test_from_position_games_show_lidraughts_variant_objects(players):
    bot, person = bot_and_person(players)
    board = ApiClient(person, "board:play")
    fen = "W:W31,32,33:B18,19"
    made = board.post(f"/api/challenge/{bot.name}", {"variant": "fromPosition", "fen": fen}).json()
    assert made["variant"]["key"] == "fromPosition" and made["variant"]["name"] == "From Position"
    assert made["initialFen"] == fen
    bot.post(f"/api/challenge/{made['id']}/accept")
    events = bot.stream("/api/stream/event")
    start = events.until("gameStart")["game"]
    assert start["variant"]["key"] == "fromPosition"
    full = bot.stream(f"/api/bot/game/stream/{start['id']}").next()
    assert full["variant"] == {
        "key": "fromPosition", "name": "From Position", "short": "FEN", "gameType": 99,
        "board": {"key": "100", "size": [10, 10]},
    }
    assert full["initialFen"] == fen
    # Russian from a position stays Russian, as on lidraughts.
    made = board.post(f"/api/challenge/{bot.name}", {"variant": "russian", "fen": "W:W21:B5"}).json()
    assert made["variant"]["key"] == "russian" and made["initialFen"] == "W:W21:B5"
    # The international start position is standard.
    made = board.post(f"/api/challenge/{bot.name}", {"variant": "standard"}).json()
    assert made["variant"]["key"] == "standard"
    events.close()


def test_games_whose_first_mover_is_black_show_their_start_fen(players):
    bot, person = bot_and_person(players)
    gid = person.challenge(bot.player, color="white", variant="english")["id"]
    full = bot.stream(f"/api/bot/game/stream/{gid}").next()
    assert full["variant"]["key"] == "english" and full["variant"]["name"] == "English"
    assert full["initialFen"].startswith("B:")  # pydraughts takes "startpos" for White to move
    gid = person.challenge(bot.player, color="white", variant="russian-giveaway")["id"]
    full = bot.stream(f"/api/bot/game/stream/{gid}").next()
    assert full["initialFen"] == "startpos"
    assert (full["variant"]["key"], full["variant"]["name"]) == ("russian-giveaway", "Russian")


@pytest.mark.slow
def test_the_documented_session_is_recorded_from_a_real_server(tmp_path):
    doc = tmp_path / "bot-api.md"
    doc.write_text("before\n<!-- session:begin -->\nold\n<!-- session:end -->\nafter\n")
    script = Path(__file__).parents[2] / "scripts" / "record-bot-session.py"
    subprocess.run([sys.executable, str(script), str(doc)], check=True, timeout=120, capture_output=True)
    text = doc.read_text()
    assert text.startswith("before\n") and text.endswith("after\n") and "\nold\n" not in text
    # The draw offered with e3-d4 arrives in the line of its move.
    assert '"moves":"2217 1015 2318","wtime"' in text and '"status":"resign","winner":"black"' in text
    line = next(x for x in text.splitlines() if '"moves":"2217 1015 2318","wtime"' in x)
    assert '"wdraw":true' in line
