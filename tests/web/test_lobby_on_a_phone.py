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
