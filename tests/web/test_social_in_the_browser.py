"""The profile, following, blocking and TV in a real browser (profile.js, profile-graph.js,
profile-games.js, social.js, tv.js). Games are set up through the API (tests/server's Player), the pages
are driven as a person would.
"""

from __future__ import annotations

import httpx
import pytest
from server.helpers import Player, first_moves

from .helpers import PHONE

BLITZ = {"minutes": 3, "increment": 2}
playwright = pytest.importorskip("playwright.sync_api")
expect = playwright.expect


def rated_win(winner: Player, loser: Player, **terms) -> str:
    game = winner.challenge(loser, rated=True, time_control=BLITZ, **terms)
    first_moves(game["id"], winner, loser)  # before, a resignation aborts the game
    assert loser.post(f"/api/games/{game['id']}/resign").status_code == 200
    return game["id"]


@pytest.mark.parametrize("viewport", [None, PHONE], ids=["desktop", "phone"])
def test_the_profile_draws_the_rating_graph_after_rated_games(pages, server, artifacts, viewport):
    a, b = Player(server), Player(server)
    first = rated_win(a, b)
    rated_win(b, a)
    page = pages(f"/@/{a.name}", viewport=viewport, player=a)
    card = page.locator('#ratings .rating[data-variant="russian-giveaway"][data-speed="blitz"]')
    graph = card.locator("svg.rating-graph")
    expect(graph).to_have_attribute("data-points", "2")
    expect(graph.locator("circle.point")).to_have_count(2)
    expect(graph.locator("polyline.line")).to_have_count(1)
    (history,) = a.http.get(f"/api/users/{a.name}/rating-history").json()["history"]
    ratings = [p["rating"] for p in history["points"]]
    current = a.http.get(f"/api/users/{a.name}").json()["ratings"][0]["rating"]
    expect(card.locator("strong.current")).to_contain_text(str(current))
    expect(card.locator(".peak-rating")).to_contain_text(str(max(ratings)))  # the first game was the peak
    expect(card.locator(".count")).to_contain_text("2 games")
    assert "Rating history" in graph.get_attribute("aria-label")
    page.wait_for_selector(f'#profile-games li[data-game-id="{first}"]')
    page.screenshot(path=str(artifacts / f"profile-graph-{'phone' if viewport else 'desktop'}.png"))
    a.close()
    b.close()


def test_the_games_list_filters_by_result_opponent_variant_and_rated(pages, server):
    a, b, c = Player(server), Player(server), Player(server)
    win = rated_win(a, b)
    loss = a.challenge(c, variant="russian", time_control=BLITZ)["id"]
    first_moves(loss, a, c)
    a.post(f"/api/games/{loss}/resign")
    page = pages(f"/@/{a.name}")
    rows = page.locator("#profile-games li.game-row")
    expect(rows).to_have_count(2)
    page.select_option("#games-filter-result", "win")
    expect(rows).to_have_count(1)
    expect(rows.first).to_have_attribute("data-game-id", win)
    # The filters live in the address: a game opened from the list, Back comes to the same list (found by
    # an audit: the filters were lost), and so does a reload.
    page.wait_for_url("**?result=win")
    rows.first.locator("a").click()
    page.wait_for_url(f"**/game/{win}")
    page.go_back()
    page.wait_for_selector("body[data-ready]")
    expect(page.locator("#games-filter-result")).to_have_value("win")
    expect(rows).to_have_count(1)
    page.reload()
    expect(rows).to_have_count(1)
    expect(rows.first).to_have_attribute("data-game-id", win)
    page.select_option("#games-filter-result", "")
    page.fill("#games-filter-vs", c.name)
    page.click("#games-filter-apply")
    expect(rows).to_have_count(1)
    expect(rows.first).to_have_attribute("data-game-id", loss)
    page.fill("#games-filter-vs", "")
    page.select_option("#games-filter-variant", "russian-giveaway")
    expect(rows).to_have_count(1)
    expect(rows.first).to_have_attribute("data-game-id", win)
    page.select_option("#games-filter-variant", "")
    page.select_option("#games-filter-rated", "false")
    expect(rows).to_have_count(1)
    expect(rows.first).to_have_attribute("data-game-id", loss)
    expect(page.locator("#games-total")).to_contain_text("1")
    page.fill("#games-filter-vs", "nobody_of_that_name")
    page.click("#games-filter-apply")
    expect(page.locator("#games-error")).to_be_visible()
    for player in (a, b, c):
        player.close()


def test_following_a_player_lists_them_and_shows_their_game_when_they_start_one(pages, server):
    a, b, d = Player(server), Player(server), Player(server)
    page = pages(f"/@/{b.name}", player=a)
    follow = page.locator("#follow-button")
    expect(follow).to_have_text("Follow")
    follow.click()
    expect(follow).to_have_attribute("data-following", "true")
    expect(follow).to_have_text("Unfollow")
    page.click("#nav a[href^='/@/']")  # one's own profile
    item = page.locator(f'#following li[data-username="{b.name}"]')
    expect(item).to_have_attribute("data-status", "offline")
    game = b.challenge(d)["id"]
    # Told live (the lobby socket's followingStarted): the list shows the game to watch.
    expect(item).to_have_attribute("data-status", "playing")
    expect(page.locator("#toast")).to_contain_text(b.name)
    item.locator(f'a.watch[data-game-id="{game}"]').click()
    page.wait_for_url(f"**/game/{game}")
    page.wait_for_selector("svg.board")
    for player in (a, b, d):
        player.close()


def test_a_blocked_player_is_refused_a_challenge_in_the_page(pages, server):
    a, b = Player(server), Player(server)
    blocker = pages(f"/@/{a.name}", player=b)
    blocker.click("#block-button")
    expect(blocker.locator("#block-button")).to_have_attribute("data-blocking", "true")
    expect(blocker.locator("#follow-button")).to_be_hidden()
    blocker.goto(blocker.url.split("/@/")[0] + f"/@/{b.name}")
    blocker.click("#social details.blocked-list summary")  # one's own list, folded
    expect(blocker.locator(f'#blocking li[data-username="{a.name}"]')).to_be_visible()

    blocked = pages(f"/@/{b.name}", player=a)
    expect(blocked.locator("#block-button")).to_have_attribute("data-blocking", "false")  # not told
    blocked.click("a.button[href^='/?challenge=']")
    blocked.wait_for_selector("#challenge-form button[type=submit]:not([disabled])")
    blocked.click("#challenge-form button[type=submit]")
    expect(blocked.locator("#toast.error")).to_contain_text(f"{b.name} does not accept challenges from you")
    assert b.http.get("/api/challenges").json()["in"] == []
    a.close()
    b.close()


def test_tv_shows_the_best_rated_game_live_and_the_next_one_when_it_ends(pages, server, artifacts):
    variant = "brazilian-giveaway"  # no other browser test plays it
    strong, weak, x, y = (Player(server) for _ in range(4))
    rated_win(strong, weak, variant=variant)
    low = weak.challenge(y, rated=True, time_control=BLITZ, variant=variant)["id"]
    high = strong.challenge(x, rated=True, time_control=BLITZ, variant=variant)["id"]
    page = pages("/")
    page.click("#nav a[href='/tv']")
    page.wait_for_url("**/tv")
    page.click(f'#tv-channels a[data-variant="{variant}"]')
    tv = page.locator("#tv")
    expect(tv).to_have_attribute("data-game-id", high)
    page.wait_for_selector("#tv-screen svg.board [data-piece]")
    # Live: a move made in the game shows on the screen.
    assert strong.post(f"/api/games/{high}/move", {"move": "c3-d4", "ply": 0}).status_code == 200
    page.wait_for_selector("#tv-screen #moves li.ply")
    page.screenshot(path=str(artifacts / "tv.png"))
    # The game ends: TV goes on to the next best game of the variant.
    strong.post(f"/api/games/{high}/resign")
    expect(tv).to_have_attribute("data-game-id", low, timeout=20_000)
    weak.post(f"/api/games/{low}/resign")
    expect(page.locator("#tv-empty")).to_be_visible(timeout=20_000)
    for player in (strong, weak, x, y):
        player.close()


def test_tv_names_an_anonymous_player_in_the_pages_language(pages, server):
    # The title line once wrote its own names: "Anonymous" in English whatever the language.
    variant = "italian-giveaway"  # no other browser test plays it: this game is the channel's
    with httpx.Client(base_url=server.url, timeout=10) as visitor:
        r = visitor.post("/api/auth/anonymous", json={})
        assert r.status_code in (200, 201), r.text
        visitor.headers["X-CSRF-Token"] = r.json()["csrf_token"]
        terms = {"variant": variant, "color": "white", "level": 1, "time_control": BLITZ}
        r = visitor.post("/api/computer-games", json=terms)
        assert r.status_code in (200, 201), r.text
        game = r.json()["game"]["id"]
        page = pages(f"/tv/{variant}", language="ru")
        expect(page.locator("#tv")).to_have_attribute("data-game-id", game)
        info = page.locator("#tv-info")
        expect(info).to_contain_text("Аноним – Компьютер, уровень 1")
        assert "Anonymous" not in info.inner_text()
        visitor.post(f"/api/games/{game}/resign")  # off the air for the other tests
