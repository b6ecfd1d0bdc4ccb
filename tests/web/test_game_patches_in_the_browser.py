"""The game page keeps its game from the server's patches (issue 11: after the first state, each change
comes as what changed), and when a patch does not follow the state it holds — a message lost on the
way — it asks for the whole state again and shows the game as it is."""

from __future__ import annotations

import json
import re

from playwright.sync_api import expect
from server.helpers import Player

from .helpers import wait_for_ply


def test_the_page_follows_the_patches_and_asks_again_after_a_lost_one(pages, server):
    white, black = Player(server), Player(server)
    game = white.challenge(black, variant="russian-giveaway")
    page = pages("/", player=white)
    kinds: list[str] = []
    sent_by_page: list[dict] = []
    lose_next_patch = [False]

    def proxy(ws):
        upstream = ws.connect_to_server()

        def from_page(message):
            sent_by_page.append(json.loads(message))
            upstream.send(message)

        def from_server(message):
            kind = json.loads(message).get("type")
            if kind == "patch" and lose_next_patch[0]:
                lose_next_patch[0] = False
                kinds.append("lost")
                return
            kinds.append(kind)
            ws.send(message)

        ws.on_message(from_page)
        upstream.on_message(from_server)

    page.route_web_socket(re.compile(rf".*/ws/games/{game['id']}$"), proxy)
    page.goto(f"{server.url}/game/{game['id']}")
    expect(page.locator(".game-page[data-color='white']")).to_be_visible()

    sockets = {"white": white.socket(game["id"]), "black": black.socket(game["id"])}

    def play(ply: int) -> None:
        mover = sockets["white" if ply % 2 == 0 else "black"]
        mover.wait_state(lambda g: g["ply"] == ply)
        assert mover.move(mover.state["legal_moves"][0]["move"], ply=ply)["type"] == "ack"

    for ply in range(2):
        play(ply)
        wait_for_ply(page, ply + 1)
    assert "patch" in kinds and kinds[0] == "state"
    assert not [m for m in sent_by_page if m.get("type") == "resync"]

    # The next change's patch is lost: the one after it does not follow, and the page asks again.
    lose_next_patch[0] = True
    moves = 4
    for ply in range(2, moves):
        play(ply)
    wait_for_ply(page, moves)
    assert "lost" in kinds
    assert [m for m in sent_by_page if m.get("type") == "resync"]
    expect(page.locator("#moves li.ply")).to_have_count(moves)
    assert "state" in kinds[kinds.index("lost") :]  # the whole state, asked for and sent
    for socket in sockets.values():
        socket.close()
    white.close()
    black.close()
