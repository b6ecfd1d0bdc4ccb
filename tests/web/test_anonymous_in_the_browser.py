"""Anonymous play in a real browser (issue 16, points 1 and 2): a visitor with no account plays the computer
from the first page to the result, keeps the game by registering afterwards, and plays a friend through a
challenge link opened in another browser (another anonymous visitor).
"""

from __future__ import annotations

import re

import httpx
import pytest

from .helpers import (
    DESKTOP,
    PASSWORD,
    PHONE,
    click_square,
    game_id,
    new_name,
    register,
    wait_for_ply,
    wait_for_turn,
)


def play_first_move(page, server, gid: str) -> None:
    """White's first legal move, clicked square by square."""
    wait_for_turn(page)
    state = httpx.get(f"{server.url}/api/games/{gid}").json()["game"]
    for square in state["legal_moves"][0]["path"]:
        click_square(page, square)
    wait_for_ply(page, 1)


def play_the_computer_as_white(page) -> str:
    """From the lobby: a game against the computer's level 1, without a clock, as White; its id."""
    page.click('[data-tab="computer"]')
    page.select_option("#computer-level", "1")
    page.select_option("#computer-color", "white")
    page.select_option("#computer-time", "unlimited")
    page.click("#computer-form button[type=submit]")
    return game_id(page)


def test_an_anonymous_visitor_plays_the_computer_to_the_result_and_keeps_the_game_by_registering(
    pages, server
):
    page = pages("/")
    # No log-in stands in the way: the forms are there, the log-in card below them.
    assert page.locator("#account .me").count() == 0
    assert page.locator("#login").is_visible()
    assert page.locator('[data-tab="challenge"]').count() == 0  # challenges by name need an account
    gid = play_the_computer_as_white(page)
    page.wait_for_selector('.game-page[data-color="white"]')
    page.wait_for_selector("#account .me.anonymous")
    assert "Anonymous" in page.locator("#account").inner_text()
    # No chat for an anonymous player outside a game begun from a link: the page says so, and offers no
    # field the server would refuse (found by an audit: a field whose every line was refused with 403).
    page.wait_for_selector("#chat-closed")
    assert "anonymous player" in page.locator("#chat-closed").inner_text()
    assert page.locator("#chat-form").count() == 0

    play_first_move(page, server, gid)
    wait_for_ply(page, 2)  # the computer has answered: resigning, not aborting
    page.once("dialog", lambda dialog: dialog.accept())
    page.click("#resign")
    page.wait_for_selector("#result:not([hidden])")
    assert "White resigned" in page.locator("#result").inner_text()
    final = httpx.get(f"{server.url}/api/games/{gid}").json()["game"]
    assert final["status"] == "finished" and final["white"]["anonymous"] is True

    # Registering afterwards keeps the game: it is in the new account's profile.
    page.click("#account .login-link")
    page.wait_for_selector("#anon-keep")
    name = new_name("kept")
    register(page, name)
    page.goto(f"{server.url}/@/{name}")
    page.wait_for_selector(f'a[href="/game/{gid}"]')
    final = httpx.get(f"{server.url}/api/games/{gid}").json()["game"]
    assert final["white"]["username"] == name


@pytest.mark.parametrize("viewport", [DESKTOP, PHONE], ids=["desktop", "phone"])
def test_a_link_challenge_is_taken_by_a_friend_in_another_browser(pages, server, viewport):
    host = pages("/", viewport=viewport)
    host.click('[data-tab="friend"]')
    host.select_option("#friend-time", "unlimited")
    host.select_option("#friend-color", "white")
    assert host.locator("#friend-rated").count() == 0  # rated games are for accounts
    host.click("#friend-form button[type=submit]")
    host.wait_for_url(re.compile(r"/challenge/[A-Za-z0-9_-]+$"))
    link = host.locator("#friend-link").input_value()
    assert link.startswith(server.url + "/challenge/")
    host.wait_for_selector("#friend-waiting")

    friend = pages(link.removeprefix(server.url), viewport=viewport)
    friend.wait_for_selector("#friend-invitation")
    assert "Anonymous" in friend.locator("#friend-invitation").inner_text()
    friend.click("#friend-join")
    gid = game_id(friend)
    # The host's waiting page moves to the game by itself.
    host.wait_for_url(re.compile(rf"/game/{gid}$"))
    host.wait_for_selector('.game-page[data-color="white"]')
    friend.wait_for_selector('.game-page[data-color="black"]')
    play_first_move(host, server, gid)
    wait_for_ply(friend, 1)
    # Friends who met through a link may chat, anonymous or not.
    host.fill("#chat-text", "good luck")
    host.press("#chat-text", "Enter")
    friend.wait_for_selector("#chat-lines li:has-text('good luck')")
    assert friend.locator("#chat-form").count() == 1 and friend.locator("#chat-closed").count() == 0

    # The link is spent: a third visitor is told the game has begun and is shown it.
    third = pages(link.removeprefix(server.url))
    third.wait_for_url(re.compile(rf"/game/{gid}$"))


def rated_link(server) -> str:
    """A rated challenge by link of a new account's: its link."""
    with httpx.Client(base_url=server.url, timeout=10) as host:
        name = new_name("host")
        account = {"username": name, "password": PASSWORD}
        assert host.post("/api/auth/register", json=account).status_code == 201
        host.headers["X-CSRF-Token"] = host.post("/api/auth/login", json=account).json()["csrf_token"]
        terms = {"rated": True, "time_control": {"minutes": 5, "increment": 0}}
        r = host.post("/api/challenges/open", json=terms)
        assert r.status_code == 201, r.text
        return r.json()["challenge"]["link"]


def test_a_signed_out_friend_logs_in_on_a_rated_links_page_and_joins_from_there(pages, server):
    """Found by an audit: a rated link told a signed-out friend to log in, and the header's log-in went to
    the lobby, which never led back to the challenge."""
    link = rated_link(server)
    friend = pages(f"/challenge/{link}")
    friend.wait_for_selector("#friend-invitation")
    assert friend.locator("#friend-join").is_disabled()
    register(friend, new_name("friend"))  # the form on the challenge's own page
    friend.wait_for_selector("#friend-join:not([disabled])")
    assert friend.url.endswith(f"/challenge/{link}")
    friend.click("#friend-join")
    gid = game_id(friend)
    assert httpx.get(f"{server.url}/api/games/{gid}").json()["game"]["rated"] is True


def test_the_headers_log_in_comes_back_to_the_challenge(pages, server):
    """The header's Log in from a challenge's page leads to the lobby's form and, once logged in, back to
    the challenge (a recheck audit: it stayed in the lobby)."""
    link = rated_link(server)
    friend = pages(f"/challenge/{link}")
    friend.wait_for_selector("#friend-invitation")
    friend.click("#account .login-link")
    # The lobby's form, not the challenge page's own (still shown while the lobby is drawn).
    friend.wait_for_url(re.compile(r"/\?next="))
    friend.wait_for_selector('[data-tab="friend"]')
    register(friend, new_name("friend"))
    friend.wait_for_url(re.compile(rf"/challenge/{link}$"))
    friend.wait_for_selector("#friend-join:not([disabled])")
    # A "next" leading off the site is not followed.
    other = pages("/?next=//example.com/x#login")
    register(other, new_name("other"))
    assert other.url.startswith(server.url)


def test_the_pages_log_in_links_come_back_to_their_page(pages):
    """Found by an audit: "Log in to join / to create" on the tournaments', simuls' and puzzles' pages
    went to the lobby's form and stayed there (only the header's link came back)."""
    for path, link in (
        ("/simuls", "#simul-login"),
        ("/tournaments", "#tournament-create-card a"),
    ):
        page = pages(path)
        page.wait_for_selector(link)
        assert page.locator(link).get_attribute("href") == f"/?next=%2F{path[1:]}#login", path


def test_a_visitor_who_logs_in_from_another_tab_goes_on_playing_in_the_first(pages, server):
    """Logging in ends the anonymous session, and with it the first tab's sockets (4401): that tab loads
    itself again as the account's, its game kept and still played (found by an audit: the tab froze, its
    moves refused with 403, telling the player to log in)."""
    page = pages("/")
    gid = play_the_computer_as_white(page)
    page.wait_for_selector("#account .me.anonymous")
    play_first_move(page, server, gid)
    wait_for_ply(page, 2)

    other_tab = page.context.new_page()
    other_tab.goto(f"{server.url}/")
    other_tab.wait_for_selector("#account .me.anonymous")
    other_tab.click("#account .login-link")
    name = new_name("tabs")
    register(other_tab, name)

    page.wait_for_selector(f'#account .me[data-username="{name}"]')
    assert page.url.endswith(f"/game/{gid}")
    state = httpx.get(f"{server.url}/api/games/{gid}").json()["game"]
    assert state["white"]["username"] == name
    for square in state["legal_moves"][0]["path"]:
        click_square(page, square)
    wait_for_ply(page, 4)  # the move went through, and the computer's answer came over the new socket
    assert not page.locator(".game-page.offline").count()
