"""Rematches through a real server: offer, accept (colours swapped, same terms), decline, withdraw."""

from __future__ import annotations

from .helpers import first_moves
from .test_lobby import lobby_socket, receive_until


def finished_game(white, black, **terms) -> str:
    gid = white.challenge(black, **terms)["id"]
    first_moves(gid, white, black)
    assert white.post(f"/api/games/{gid}/resign").status_code == 200
    return gid


def test_a_rematch_offered_and_accepted_starts_a_game_with_the_colours_swapped(players, server):
    a, b, stranger = players(), players(), players()
    terms = {"variant": "russian", "time_control": {"minutes": 5, "increment": 3}, "rated": True}
    gid = finished_game(a, b, **terms)
    inbox = lobby_socket(server, b)
    receive_until(inbox, lambda m: m["type"] == "playing")
    watch = b.socket(gid)

    r = a.post(f"/api/games/{gid}/rematch")
    assert r.status_code == 200 and r.json() == {"rematch": {"offer": "white", "game_id": None}}
    assert a.post(f"/api/games/{gid}/rematch").json()["rematch"]["offer"] == "white"  # offering twice is once
    offered = receive_until(inbox, lambda m: m["type"] == "rematchOffer")
    assert offered["game"] == gid and offered["by"] == a.id
    assert watch.wait_state(lambda g: g["rematch"]["offer"] == "white")["status"] == "finished"

    r = stranger.post(f"/api/games/{gid}/rematch")
    assert r.status_code == 403 and r.json()["error"]["code"] == "not_your_game"

    # Offering back is accepting: the new game starts at once, colours swapped, same terms.
    started = b.post(f"/api/games/{gid}/rematch").json()["game"]
    assert started["white"]["username"] == b.name and started["black"]["username"] == a.name
    assert (started["variant"], started["rated"], started["status"]) == ("russian", True, "started")
    assert started["clocks"]["initial_ms"] == 300_000 and started["clocks"]["increment_ms"] == 3000
    old = watch.wait_state(lambda g: g["rematch"]["game_id"] is not None)
    assert old["rematch"] == {"offer": None, "game_id": started["id"]}
    r = a.post(f"/api/games/{gid}/rematch")
    assert r.status_code == 409 and r.json()["error"]["code"] == "rematch_exists"
    assert r.json()["error"]["game_id"] == started["id"]
    assert receive_until(inbox, lambda m: m["type"] == "gameStart")["game"]["id"] == started["id"]


def test_a_rematch_can_be_declined_or_withdrawn_and_is_for_finished_games_only(players, server):
    a, b = players(), players()
    live = a.challenge(b)["id"]
    r = a.post(f"/api/games/{live}/rematch")
    assert r.status_code == 409 and r.json()["error"]["code"] == "game_in_progress"
    a.post(f"/api/games/{live}/resign")
    inbox = lobby_socket(server, a)
    receive_until(inbox, lambda m: m["type"] == "playing")

    a.post(f"/api/games/{live}/rematch")
    nothing = {"rematch": {"offer": None, "game_id": None}}
    assert b.post(f"/api/games/{live}/rematch/decline").json() == nothing
    declined = receive_until(inbox, lambda m: m["type"] == "rematchCancelled")
    assert declined["declined"] is True and declined["game"] == live
    r = b.post(f"/api/games/{live}/rematch/accept")
    assert r.status_code == 409 and r.json()["error"]["code"] == "no_rematch_offer"

    a.post(f"/api/games/{live}/rematch")
    assert a.post(f"/api/games/{live}/rematch/decline").status_code == 200  # withdrawn by its author
    assert b.post(f"/api/games/{live}/rematch/accept").status_code == 409
    assert b.http.get(f"/api/games/{live}").json()["game"]["rematch"] == {"offer": None, "game_id": None}

    b.post(f"/api/games/{live}/rematch")
    started = a.post(f"/api/games/{live}/rematch/accept").json()["game"]
    assert started["white"]["username"] == b.name


def test_a_rematch_against_the_computer_starts_at_once(players):
    a = players()
    game = a.post("/api/computer-games", {"level": 2, "color": "white"}).json()["game"]
    a.post(f"/api/games/{game['id']}/resign")
    started = a.post(f"/api/games/{game['id']}/rematch").json()["game"]
    assert started["black"]["username"] == a.name and started["white"]["computer"] is True
    assert started["white"]["level"] == 2
