"""The leaderboard, as lichess's /player: linked from the header, the best established ratings of each speed
of a variant (GET /api/leaderboards/{variant}), a variant's own page and one speed's top hundred; in each
language, accessible, and readable on a phone.
"""

from __future__ import annotations

import pytest
from server.helpers import Player, first_moves

from .helpers import PHONE, assert_accessible

BLITZ = {"minutes": 3, "increment": 2}
SPEEDS = ["bullet", "blitz", "rapid", "classical", "correspondence"]


@pytest.fixture(scope="module")
def ranked(server):
    """Two players with established blitz ratings in Russian giveaway (ten rated games: the first won them
    all, so ranks above the second)."""
    winner, loser = Player(server), Player(server)
    for _ in range(10):
        game = winner.challenge(loser, rated=True, time_control=BLITZ, variant="russian-giveaway")
        first_moves(game["id"], winner, loser)
        r = loser.post(f"/api/games/{game['id']}/resign")
        assert r.status_code == 200 and r.json()["game"]["status"] == "finished", r.text
    yield winner, loser
    winner.close()
    loser.close()


def names_in(box) -> list[str]:
    return box.locator("tbody tr").evaluate_all("rows => rows.map(r => r.dataset.username)")


def test_the_header_leads_to_the_best_players_of_each_speed(pages, ranked, artifacts):
    winner, loser = ranked
    page = pages("/")
    page.click("#nav a[href='/leaderboard']")
    page.wait_for_selector("#leaderboard h1")
    assert page.url.endswith("/leaderboard")
    assert page.locator("#nav a.active").get_attribute("href") == "/leaderboard"
    assert page.locator("#leaderboard h1").inner_text() == "Leaderboard"
    boxes = page.locator(".leaderboard-box")
    assert boxes.evaluate_all("els => els.map(e => e.dataset.speed)") == SPEEDS
    assert boxes.locator("h2").all_inner_texts() == [s.capitalize() for s in SPEEDS]
    # The default variant's page: both players in the blitz box, the winner above, each linked to the profile.
    assert page.locator("#leaderboard").get_attribute("data-variant") == "russian-giveaway"
    assert page.locator('#leaderboard-variants a[aria-current="page"]').get_attribute("href") == (
        "/leaderboard/russian-giveaway"
    )
    blitz = page.locator('.leaderboard-box[data-speed="blitz"]')
    names = names_in(blitz)
    assert names.index(winner.name) < names.index(loser.name)
    row = blitz.locator(f'tr[data-username="{winner.name}"]')
    assert row.locator("a.player").get_attribute("href") == f"/@/{winner.name}"
    ratings = {
        name: int(blitz.locator(f'tr[data-username="{name}"] td.elo').inner_text())
        for name in (winner.name, loser.name)
    }
    assert ratings[winner.name] > 1500 > ratings[loser.name]
    assert row.locator("td.rank").inner_text() == str(names.index(winner.name) + 1)
    # A speed nobody is established in says so.
    rapid = page.locator('.leaderboard-box[data-speed="rapid"]')
    assert "Nobody has an established rating" in rapid.inner_text()
    assert_accessible(page, "the leaderboard")
    page.screenshot(path=str(artifacts / "leaderboard.png"), full_page=True)

    # One speed's top hundred, with the games each player has.
    blitz.locator("a.more").click()
    page.wait_for_selector('#leaderboard[data-speed="blitz"] table.leaderboard')
    assert page.url.endswith("/leaderboard/russian-giveaway/blitz")
    assert page.locator("#leaderboard h1").inner_text() == "Top 100: Poddavki (Russian giveaway), Blitz"
    row = page.locator(f'tr[data-username="{winner.name}"]')
    assert row.locator("td.games").inner_text() == "10"
    assert_accessible(page, "the blitz top hundred")
    page.click("text=All speeds")
    page.wait_for_selector(".leaderboard-box")

    # Another variant: its own boxes, empty here.
    page.click('#leaderboard-variants a[data-variant="international"]')
    page.wait_for_selector('#leaderboard[data-variant="international"] .leaderboard-box')
    assert page.url.endswith("/leaderboard/international")
    assert page.locator(".leaderboard-box .empty").count() == len(SPEEDS)
    # A speed that does not exist is no page.
    page.goto(page.url + "/hyperbullet")
    page.wait_for_selector("#leaderboard .error")
    assert page.locator("#leaderboard .error").inner_text() == "There is no such page."
    # Nor is a variant that does not exist, with or without a speed: not the default variant's boards.
    for path in ("/leaderboard/checkers-nonsense", "/leaderboard/checkers-nonsense/blitz"):
        page.goto(page.url.split("/leaderboard")[0] + path)
        page.wait_for_selector("#leaderboard .error")
        assert page.locator("#leaderboard .error").inner_text() == "There is no such page."
        assert page.locator("#leaderboard-variants, .leaderboard-box, table.leaderboard").count() == 0


def test_the_leaderboard_in_russian_and_on_a_phone(pages, ranked, artifacts):
    winner, _ = ranked
    page = pages("/leaderboard", language="ru", viewport=PHONE)
    page.wait_for_selector(".leaderboard-box")
    assert page.locator("#leaderboard h1").inner_text() == "Лучшие игроки"
    blitz = page.locator('.leaderboard-box[data-speed="blitz"]')
    assert blitz.locator("h2").inner_text() == "Блиц"
    assert blitz.locator("th").all_inner_texts() == ["Место", "Игрок", "Рейтинг"]
    # On a phone: one column of boxes, nothing wider than the screen; the folded menu has the link.
    assert page.evaluate("document.documentElement.scrollWidth") <= PHONE["width"]
    lefts = page.locator(".leaderboard-box").evaluate_all("els => els.map(e => e.getBoundingClientRect().x)")
    assert len(set(lefts)) == 1
    box = blitz.bounding_box()
    assert box["width"] >= PHONE["width"] - 40
    assert blitz.locator(f'tr[data-username="{winner.name}"] a.player').is_visible()
    assert_accessible(page, "the leaderboard in Russian on a phone")
    page.screenshot(path=str(artifacts / "leaderboard-ru-phone.png"), full_page=True)
    page.click("#menu-toggle")
    assert page.locator("#nav a[href='/leaderboard']").inner_text() == "Лидеры"
