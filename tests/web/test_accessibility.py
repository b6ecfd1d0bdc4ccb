"""Every page passes axe-core's accessibility rules without a serious or critical violation (issue 16,
"Done when": "the pages pass an automated accessibility check (axe-core run in the browser tests, no
serious violations)"), in both themes and at a phone's and a laptop's size.

axe-core comes inside the axe-playwright-python package (pyproject.toml) and is injected by Playwright:
nothing is downloaded when the tests run. The failure message lists each rule broken, where and why.
"""

from __future__ import annotations

import pytest
from server.helpers import Player

from .conftest import TIMEOUT_MS
from .helpers import (
    DESKTOP_LAPTOP,
    PHONE_SMALL,
    accessibility_violations,
    assert_accessible,
    describe_violations,
    wait_for_turn,
)


@pytest.fixture(scope="module")
def scene(server):
    """A player with a game in progress (their turn) and a finished one; pages named by what they show."""
    alice, bob = Player(server), Player(server)
    live = alice.challenge(bob, time_control={"minutes": 10, "increment": 5})
    # Both sides have moved (a game nobody moves in is aborted): the clocks run, a last move is shown.
    for ply, (player, move) in enumerate([(alice, "c3-d4"), (bob, "f6-e5")]):
        r = player.post(f"/api/games/{live['id']}/move", {"move": move, "ply": ply})
        assert r.status_code == 200, r.text
    done = alice.challenge(bob)
    assert bob.post(f"/api/games/{done['id']}/resign").status_code == 200
    # A tournament under way with both in it (standings, pairings, a mini board), and a challenge link.
    arena = {
        "name": "Axe arena", "system": "arena", "variant": "russian-giveaway", "minutes": 30,
        "clock": {"initial": 60, "increment": 0}, "starts_at": None, "rated": False,
    }
    r = alice.post("/api/tournaments", arena)
    assert r.status_code == 201, r.text
    tournament = r.json()["id"]
    # A simul under way: Alice hosts, Bob plays (its page shows a small board with the clocks).
    r = alice.post("/api/simuls", {"name": "Axe simul", "clock": {"initial": 600, "increment": 5}})
    assert r.status_code == 201, r.text
    simul = r.json()["id"]
    for player, action in ((bob, "join"), (alice, f"accept/{bob.name}"), (alice, "start")):
        assert player.post(f"/api/simuls/{simul}/{action}").status_code == 200
    link = bob.post("/api/challenges/open", {}).json()["challenge"]["link"]
    yield {
        "player": alice,
        "pages": {
            "lobby": "/",
            "game in progress": f"/game/{live['id']}",
            "finished game": f"/game/{done['id']}",
            "profile": f"/@/{alice.name}",
            "rules": "/rules",
            "poddavki rules": "/rules/russian-giveaway",
            "settings": "/settings",
            "analysis board": "/analysis",
            "tournaments": "/tournaments",
            "tournament": f"/tournament/{tournament}",
            "simuls": "/simuls",
            "simul": f"/simul/{simul}",
            "TV": "/tv",
            "challenge link": f"/challenge/{link}",
            "puzzles": "/puzzles",
            "puzzle history": "/puzzles/history",
            "leaderboard": "/leaderboard",
        },
        "visitor pages": {
            "login": "/#login",
            "rules": "/rules/international",
            "analysis board": "/analysis",
            "tournaments": "/tournaments",
            "simuls": "/simuls",
            "TV": "/tv",
            "puzzles": "/puzzles",
            "puzzle history": "/puzzles/history",
            "leaderboard": "/leaderboard",
        },
    }
    alice.close()
    bob.close()


def check_every_page(browser, server, scene, viewport, scheme) -> None:
    failures = []
    for logged_in in (False, True):
        context = browser.new_context(viewport=viewport, color_scheme=scheme, locale="en")
        context.set_default_timeout(TIMEOUT_MS)
        context.add_init_script("localStorage.setItem('shashki.language', 'en')")
        if logged_in:
            cookie = scene["player"].http.cookies.get("shashki_session")
            context.add_cookies([{"name": "shashki_session", "value": cookie, "url": server.url}])
        page = context.new_page()
        pages = scene["pages"] if logged_in else scene["visitor pages"]
        for name, path in pages.items():
            page.goto(server.url + path)
            page.wait_for_selector("body[data-ready]")
            if name == "game in progress":
                wait_for_turn(page)
            expected = "dark" if scheme == "dark" else "light"
            assert page.evaluate("document.documentElement.dataset.theme") == expected
            violations = accessibility_violations(page)
            if violations:
                who = "logged in" if logged_in else "visitor"
                failures.append(f"-- {name} ({path}, {who}):\n{describe_violations(violations)}")
        context.close()
    size = f"{viewport['width']}x{viewport['height']}"
    assert not failures, f"accessibility at {size}, {scheme} theme:\n" + "\n".join(failures)


def test_every_page_passes_axe_core_without_serious_violations_on_a_phone_in_the_dark_theme(
    browser, server, scene
):
    check_every_page(browser, server, scene, PHONE_SMALL, "dark")


# The other three combinations with the slow tests (each visits every page: about 25 s).
@pytest.mark.slow
@pytest.mark.parametrize(
    "viewport, scheme",
    [(DESKTOP_LAPTOP, "light"), (DESKTOP_LAPTOP, "dark"), (PHONE_SMALL, "light")],
    ids=["desktop-light", "desktop-dark", "phone-light"],
)
def test_every_page_passes_axe_core_in_the_other_theme_at_each_size(browser, server, scene, viewport, scheme):
    check_every_page(browser, server, scene, viewport, scheme)


def test_the_check_names_the_rule_and_the_element_a_page_breaks(pages):
    page = pages("/rules")
    page.evaluate(
        """() => {
          const b = document.createElement("button");
          b.id = "nameless";
          document.querySelector("main").append(b);
        }"""
    )
    with pytest.raises(AssertionError) as failure:
        assert_accessible(page, "rules with a nameless button")
    assert "button-name" in str(failure.value) and "#nameless" in str(failure.value)
