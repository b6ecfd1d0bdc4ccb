"""lichess's "New opponent" after a game: a seek on the finished game's terms, which waits in the lobby, or
starts a game at once when a seek there fits it."""

from __future__ import annotations

import re

from playwright.sync_api import expect
from server.helpers import Player


def test_new_opponent_seeks_the_same_terms_and_two_such_seeks_meet(pages, server):
    white, black = Player(server), Player(server)
    terms = {"variant": "russian", "rated": True, "time_control": {"minutes": 3, "increment": 2}}
    game = white.challenge(black, **terms)
    gid = game["id"]
    assert white.post(f"/api/games/{gid}/resign").status_code == 200
    white_page = pages(f"/game/{gid}", player=white)
    black_page = pages(f"/game/{gid}", player=black)
    white_page.click("#new-opponent")
    white_page.wait_for_url(f"{server.url}/")
    seeks = black.http.get("/api/seeks").json()["seeks"]
    mine = [s for s in seeks if s["user"]["id"] == white.id]
    wanted = ("russian", True, {"minutes": 3, "increment": 2})
    assert [(s["variant"], s["rated"], s["time_control"]) for s in mine] == [wanted], seeks
    # The other player's "New opponent" finds that seek: both are taken to the new game.
    black_page.click("#new-opponent")
    black_page.wait_for_url(re.compile(r"/game/(?!" + gid + r")[A-Za-z0-9]+$"))
    new = black_page.url.rsplit("/", 1)[1]
    white_page.wait_for_url(f"{server.url}/game/{new}")
    expect(white_page.locator(".game-page[data-color]")).to_be_visible()
    white.close()
    black.close()


def test_a_game_against_the_computer_has_no_new_opponent(pages, server):
    player = Player(server)
    r = player.post("/api/computer-games", {"level": 1, "color": "white"})
    gid = r.json()["game"]["id"]
    assert player.post(f"/api/games/{gid}/abort").status_code == 200
    page = pages(f"/game/{gid}", player=player)
    expect(page.locator("#analyse, #flip").first).to_be_visible()
    expect(page.locator("#new-opponent")).to_have_count(0)
    player.close()
