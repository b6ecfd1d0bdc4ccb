"""A real-time seek leaves with its player, as on lichess (found by an audit: a seek outlived its owner's
closed tab, and whoever took it started a game against nobody). The lobby socket is open on every page of
the site: once a player has had none open for SHASHKI_SEEK_LEFT_SECONDS, their seeks with a clock are
withdrawn. Going from one page to the next keeps them; correspondence seeks, seeks of API clients that never
open the site, and a Board API seek while its stream is open stay."""

from __future__ import annotations

import contextlib
import threading
import time

import httpx
import pytest
from websockets.sync.client import connect

from .helpers import Player, Server, eventually

LEFT_SECONDS = 0.6


@pytest.fixture(scope="module")
def leaving_server(tmp_path_factory):
    server = Server(tmp_path_factory.mktemp("leaving"), {"SHASHKI_SEEK_LEFT_SECONDS": str(LEFT_SECONDS)})
    server.start()
    yield server
    server.stop()


def lobby(server: Server, player: Player):
    """A page of the site: its lobby socket, open once this returns (its first list received)."""
    cookie = {"Cookie": f"shashki_session={player.http.cookies.get('shashki_session')}"}
    url = f"{server.ws_url}/ws/lobby"
    socket = connect(url, additional_headers=cookie, open_timeout=5, ping_interval=None)
    socket.__enter__()
    socket.recv(timeout=5)
    return socket


def open_seeks(server: Server) -> set[int]:
    return {s["id"] for s in httpx.get(f"{server.url}/api/seeks").json()["seeks"]}


def seek(player: Player, minutes: float, **terms) -> int:
    body = {"time_control": {"minutes": minutes, "increment": 0}, **terms}
    r = player.post("/api/seeks", body)
    assert r.status_code == 200 and r.json()["seek"], r.text
    return r.json()["seek"]["id"]


def test_a_seek_with_a_clock_leaves_with_its_player_and_stays_from_page_to_page(leaving_server):
    alice = Player(leaving_server)
    socket = lobby(leaving_server, alice)
    kept = seek(alice, 3.01)
    socket.close()
    socket = lobby(leaving_server, alice)  # the next page opens its socket at once
    time.sleep(LEFT_SECONDS * 3)
    assert kept in open_seeks(leaving_server)
    socket.close()  # the tab is closed: no page of the site open
    eventually(lambda: open_seeks(leaving_server), lambda seeks: kept not in seeks, timeout=5)
    assert kept not in open_seeks(leaving_server)
    # A correspondence seek waits for days.
    socket = lobby(leaving_server, alice)
    corr = alice.post("/api/seeks", {"days": 3}).json()["seek"]["id"]
    socket.close()
    time.sleep(LEFT_SECONDS * 3)
    assert corr in open_seeks(leaving_server)


def test_seeks_of_a_client_without_the_site_or_held_by_a_board_stream_stay(leaving_server):
    bob, carol = Player(leaving_server), Player(leaving_server)
    api_only = seek(bob, 3.02)  # never opened a page: nothing leaves
    token = carol.token("board:play")
    held: list[int] = []

    def stream() -> None:
        form = {"time": "3.03", "increment": "0", "variant": "russian"}
        with httpx.stream("POST", f"{leaving_server.url}/api/board/seek", data=form,
                          headers={"Authorization": f"Bearer {token}"}, timeout=20) as r:
            held.append(r.status_code)
            for _ in r.iter_lines():
                if len(held) > 1:
                    return

    reader = threading.Thread(target=stream, daemon=True)
    reader.start()
    eventually(lambda: held, lambda h: h == [200], timeout=5)
    lobby(leaving_server, carol).close()  # carol's browser opened and closed a page meanwhile
    time.sleep(LEFT_SECONDS * 3)
    listed = httpx.get(f"{leaving_server.url}/api/seeks").json()["seeks"]
    seeks = {s["id"]: s["user"]["username"] for s in listed}
    assert api_only in seeks and carol.name in seeks.values()
    held.append(0)


def test_a_seek_whose_page_went_with_its_process_is_withdrawn_once_the_server_is_back(tmp_path):
    """Found by an audit: the process holding a player's only page was killed, no socket closed to say
    so, and the seek stayed open for minutes (here the server itself is killed and started again; with
    several processes another one's sweep does the same). A seek made without a page stays."""
    server = Server(tmp_path / "killed", {"SHASHKI_SEEK_LEFT_SECONDS": str(LEFT_SECONDS)}).start()
    try:
        alice, bob = Player(server), Player(server)
        page = lobby(server, alice)
        held = seek(alice, 3.04)
        api_only = seek(bob, 3.05)
        server.kill()  # the page's socket never closes: its process is gone
        with contextlib.suppress(Exception):
            page.close()
        server.start()
        seeks = eventually(lambda: open_seeks(server), lambda seeks: held not in seeks, timeout=10)
        assert held not in seeks
        time.sleep(LEFT_SECONDS * 3)
        assert api_only in open_seeks(server)
    finally:
        server.stop()


def test_a_challenge_with_a_clock_leaves_with_its_challenger_one_without_waits(leaving_server):
    """Found by an audit: a 3+0 challenge outlived its challenger's closed page, and whoever accepted it
    played an empty chair until the first-move abort. A correspondence challenge waits."""
    alice, bob, carol = Player(leaving_server), Player(leaving_server), Player(leaving_server)
    socket = lobby(leaving_server, alice)
    clock = {"minutes": 3, "increment": 0}
    timed = alice.post("/api/challenges", {"username": bob.name, "time_control": clock})
    waits = alice.post("/api/challenges", {"username": carol.name, "days": 3})
    assert timed.status_code == 201 and waits.status_code == 201, (timed.text, waits.text)
    socket.close()
    pending = eventually(
        lambda: {c["id"] for c in alice.http.get("/api/challenges").json()["out"]},
        lambda ids: timed.json()["challenge"]["id"] not in ids,
        timeout=5,
    )
    assert pending == {waits.json()["challenge"]["id"]}
