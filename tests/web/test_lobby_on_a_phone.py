"""The lobby's open games on a phone (found by an audit): the table fits the screen in every language, each
seek's time control shows (the phone once hid it), and Accept is on screen and takes the game."""

from __future__ import annotations

import re
import uuid

import pytest
from server.helpers import Player

from .helpers import PHONE, PHONE_SMALL


@pytest.mark.parametrize("language", ["en", "ru", "vi"])
@pytest.mark.parametrize("viewport", [PHONE, PHONE_SMALL], ids=["phone", "small-phone"])
def test_an_open_game_fits_a_phone_shows_its_clock_and_is_taken_with_a_tap(
    pages, server, artifacts, language, viewport
):
    seeker = Player(server, f"long_{language}{viewport['width']}_{uuid.uuid4().hex[:8]}")  # 19 characters
    seek = {"variant": "russian-giveaway", "time_control": {"minutes": 15, "increment": 15}, "rated": False}
    r = seeker.post("/api/seeks", seek)
    assert r.status_code == 200 and r.json()["seek"], r.text
    page = pages("/", viewport=viewport, language=language)
    row = page.locator(f'#seeks tr[data-user="{seeker.name}"]')
    row.wait_for()
    clock = row.locator("td.time")
    assert clock.is_visible() and clock.inner_text().startswith("15+15")  # and the mode below it
    table = page.locator("#seeks").bounding_box()
    box = page.locator("#seeks").locator("xpath=ancestor::section[1]").bounding_box()
    assert table["x"] + table["width"] <= box["x"] + box["width"] + 1, (table, box)
    assert page.evaluate("document.documentElement.scrollWidth") <= viewport["width"]
    page.locator("#seeks").screenshot(path=str(artifacts / f"lobby-phone-{language}-{viewport['width']}.png"))
    accept = row.locator("button")
    button = accept.bounding_box()
    assert button["x"] >= 0 and button["x"] + button["width"] <= viewport["width"], button
    accept.click()  # fails if anything covers it
    page.wait_for_url(re.compile(r"/game/[A-Za-z0-9]+$"))
    seeker.close()


@pytest.mark.parametrize("language", ["ru", "vi"])
def test_a_correspondence_seek_and_the_players_own_name_show_whole_on_a_phone(pages, server, language):
    """Found by an audit at 360 px: the days per move ran on under the Accept button ("3 ngày/nước" has no
    space to wrap at), and in Vietnamese the header cut the player's own name to one letter beside the
    words "log out" (now an icon there, the words kept as the button's name)."""
    seeker = Player(server, f"corr_{language}_{uuid.uuid4().hex[:8]}")
    days = {"ru": 3, "vi": 5}[language]  # apart, or the two would pair
    r = seeker.post("/api/seeks", {"variant": "international-giveaway", "days": days})
    assert r.status_code == 200 and r.json()["seek"], r.text
    viewer = Player(server, f"al{uuid.uuid4().hex[:3]}")  # a short name: it must show whole
    page = pages("/", viewport=PHONE_SMALL, language=language, player=viewer)
    row = page.locator(f'#seeks tr[data-user="{seeker.name}"]')
    row.wait_for()
    words = row.locator("td.time").evaluate(
        "td => { const r = document.createRange(); r.selectNodeContents(td.firstChild);"
        " return r.getBoundingClientRect().right; }"
    )
    assert words <= row.locator("button").bounding_box()["x"], words
    me = page.locator("#account .me")
    assert me.evaluate("e => e.scrollWidth <= e.clientWidth"), me.inner_text()
    logout = page.locator("#logout")
    assert logout.is_visible() and logout.evaluate("b => b.textContent.trim().length > 0")
    seeker.close()
    viewer.close()
