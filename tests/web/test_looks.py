"""Phones, themes and styles in a real browser (issue 16, point 5): the board fills a phone's width and the
move list and clocks fold under it, the navigation folds behind a button, pieces are dragged by touch; a light
and a dark theme, two board styles and two piece styles, chosen on /settings, kept per account or per
browser, and applied before the first paint.
"""

from __future__ import annotations

import pytest
from server.helpers import Player

from .conftest import TIMEOUT_MS
from .helpers import DESKTOP_LAPTOP, PHONE_SMALL, wait_for_turn


def start_game(server, **terms) -> tuple[Player, Player, dict]:
    white, black = Player(server), Player(server)
    return white, black, white.challenge(black, **terms)


def open_context(browser, server, *, viewport=PHONE_SMALL, player=None, scheme="light", touch=False):
    context = browser.new_context(
        viewport=viewport, color_scheme=scheme, has_touch=touch, is_mobile=touch, locale="en"
    )
    context.set_default_timeout(TIMEOUT_MS)
    context.add_init_script("localStorage.setItem('shashki.language', 'en')")
    if player is not None:
        cookie = player.http.cookies.get("shashki_session")
        context.add_cookies([{"name": "shashki_session", "value": cookie, "url": server.url}])
    return context


def visit(context, server, path: str):
    page = context.new_page()
    errors: list[str] = []
    page.on("pageerror", lambda error: errors.append(str(error)))
    page.goto(server.url + path)
    page.wait_for_selector("body[data-ready]")
    page.errors = errors
    return page


def box(page, selector: str) -> dict:
    found = page.locator(selector).first.bounding_box()
    assert found is not None, f"{selector} is not shown"
    return found


def looks_of(page) -> dict:
    return page.evaluate(
        "() => { const root = document.documentElement;"
        " return {theme: root.dataset.theme, board: root.dataset.board, pieces: root.dataset.pieces,"
        " background: getComputedStyle(root).backgroundColor}; }"
    )


# -- phones ---------------------------------------------------------------------------------------------


def test_on_a_phone_the_board_fills_the_width_and_the_clocks_and_moves_fold_under_it(
    browser, server, artifacts
):
    white, black, game = start_game(server, time_control={"minutes": 5, "increment": 3})
    context = open_context(browser, server, player=white)
    page = visit(context, server, f"/game/{game['id']}")
    wait_for_turn(page)
    board = box(page, "svg.board")
    assert board["width"] >= PHONE_SMALL["width"] - 2 and board["x"] <= 1, board
    # The opponent's clock right above the board, the player's right below it, as on lichess's phones.
    top, bottom = box(page, ".player-bar.top .clock"), box(page, ".player-bar.bottom .clock")
    assert top["y"] + top["height"] <= board["y"] + 1 and board["y"] - (top["y"] + top["height"]) < 20
    assert bottom["y"] >= board["y"] + board["height"] - 1
    assert bottom["y"] - (board["y"] + board["height"]) < 20
    # The move list and the actions below the board, not beside it; nothing wider than the screen.
    moves = box(page, ".move-list")
    assert moves["y"] > board["y"] + board["height"] and moves["width"] <= PHONE_SMALL["width"]
    assert page.evaluate("document.documentElement.scrollWidth") <= PHONE_SMALL["width"]
    page.screenshot(path=str(artifacts / "game-phone.png"), full_page=True)
    # On a laptop the move list stands beside the board.
    page.set_viewport_size(DESKTOP_LAPTOP)
    board, moves = box(page, "svg.board"), box(page, ".move-list")
    assert moves["x"] >= board["x"] + board["width"] and moves["y"] < board["y"] + board["height"]
    page.screenshot(path=str(artifacts / "game-desktop.png"))
    assert not page.errors
    context.close()
    white.close()
    black.close()


# The lobby in the default run; the other pages with the slow tests.
@pytest.mark.parametrize(
    "path",
    ["/"]
    + [
        pytest.param(p, marks=pytest.mark.slow)
        for p in ("/rules/russian-giveaway", "/settings", "/@/{name}", "/#login")
    ],
)
def test_no_page_is_wider_than_a_phone_and_the_navigation_folds_behind_the_menu_button(
    browser, server, artifacts, path
):
    player = Player(server)
    context = open_context(browser, server, player=None if path == "/#login" else player)
    page = visit(context, server, path.format(name=player.name))
    assert page.evaluate("document.documentElement.scrollWidth") <= PHONE_SMALL["width"], path
    menu = page.locator("#menu-toggle")
    assert menu.is_visible() and menu.get_attribute("aria-expanded") == "false"
    assert not page.locator("#nav").is_visible()
    menu.click()
    assert menu.get_attribute("aria-expanded") == "true"
    page.locator("#nav a[href='/rules']").click()
    page.wait_for_selector("#nav a.active[href='/rules']", state="attached")
    # Following a link folds the menu again.
    page.locator("#nav").wait_for(state="hidden")
    assert menu.get_attribute("aria-expanded") == "false"
    page.goto(server.url + path.format(name=player.name))
    page.wait_for_selector("body[data-ready]")
    named = {"/": "lobby", "/@/{name}": "profile", "/#login": "login"}
    slug = named.get(path, path.strip("/").replace("/", "-"))
    page.screenshot(path=str(artifacts / f"phone-{slug}.png"))
    # On a laptop the navigation is always shown and the button is not.
    page.set_viewport_size(DESKTOP_LAPTOP)
    assert page.locator("#nav").is_visible() and not menu.is_visible()
    assert not page.errors
    context.close()
    player.close()


def test_a_piece_is_dragged_by_touch_on_a_phone(browser, server):
    white, black, game = start_game(server)
    context = open_context(browser, server, player=white, touch=True)
    page = visit(context, server, f"/game/{game['id']}")
    wait_for_turn(page)

    def centre(square: str) -> tuple[float, float]:
        found = box(page, f'svg.board [data-square="{square}"]')
        return found["x"] + found["width"] / 2, found["y"] + found["height"] / 2

    # Real touch input (Chromium turns it into pointer events of type "touch"), finger down on c3,
    # moved in steps to d4, lifted there.
    cdp = context.new_cdp_session(page)
    (x0, y0), (x1, y1) = centre("c3"), centre("d4")
    cdp.send("Input.dispatchTouchEvent", {"type": "touchStart", "touchPoints": [{"x": x0, "y": y0}]})
    for i in range(1, 9):
        x, y = x0 + (x1 - x0) * i / 8, y0 + (y1 - y0) * i / 8
        cdp.send("Input.dispatchTouchEvent", {"type": "touchMove", "touchPoints": [{"x": x, "y": y}]})
    assert page.locator("svg.board .piece.dragged").count() == 1
    cdp.send("Input.dispatchTouchEvent", {"type": "touchEnd", "touchPoints": []})
    page.wait_for_selector('#moves li.ply[data-ply="1"]')
    assert page.locator("#moves li.ply").first.inner_text().strip() == "c3-d4"
    # The page did not scroll under the finger.
    assert page.evaluate("window.scrollY") == 0
    assert not page.errors
    context.close()
    white.close()
    black.close()


# -- themes and styles ------------------------------------------------------------------------------------

LIGHT_BACKGROUND, DARK_BACKGROUND = "rgb(244, 241, 234)", "rgb(22, 21, 18)"


@pytest.mark.parametrize(
    "scheme, theme, background", [("light", "light", LIGHT_BACKGROUND), ("dark", "dark", DARK_BACKGROUND)]
)
def test_a_new_visitor_gets_the_theme_of_the_system(browser, server, scheme, theme, background):
    context = open_context(browser, server, viewport=DESKTOP_LAPTOP, scheme=scheme)
    page = visit(context, server, "/")
    assert looks_of(page) == {"theme": theme, "board": "wood", "pieces": "ringed", "background": background}
    context.close()


def square_fill(page, square: str) -> str:
    return page.locator(f'svg.board [data-square="{square}"]').first.evaluate("e => getComputedStyle(e).fill")


def test_a_visitors_choices_are_kept_in_the_browser_and_set_before_the_page_script_runs(
    browser, server, artifacts
):
    context = open_context(browser, server, viewport=DESKTOP_LAPTOP, scheme="light")
    page = visit(context, server, "/settings")
    wood = square_fill(page, "c3")
    assert page.locator("#settings-theme input[value='auto']").is_checked()
    page.locator("#settings-theme label:has(input[value='dark'])").click()
    page.locator("#settings-board label:has(input[value='marine'])").click()
    page.locator("#settings-pieces label:has(input[value='flat'])").click()
    page.wait_for_selector("#settings-saved:text('Saved in this browser.')")
    assert looks_of(page) == {
        "theme": "dark",
        "board": "marine",
        "pieces": "flat",
        "background": DARK_BACKGROUND,
    }
    assert square_fill(page, "c3") != wood
    # The rings of the ringed men are gone from the flat ones.
    assert page.locator("svg.board .piece .rim").first.evaluate("e => getComputedStyle(e).display") == "none"
    page.screenshot(path=str(artifacts / "settings-dark-marine-flat.png"))
    # Without the page's modules at all (so before any of them could run), the next visit is already dark:
    # the looks come from the small script in <head>, which runs before the body is painted.
    page.route("**/static/js/main.js", lambda route: route.abort())
    page.goto(server.url + "/rules")
    page.wait_for_load_state("load")
    assert looks_of(page) == {
        "theme": "dark",
        "board": "marine",
        "pieces": "flat",
        "background": DARK_BACKGROUND,
    }
    assert not page.errors
    context.close()


def test_an_accounts_choices_follow_it_to_another_browser(browser, server):
    player = Player(server)
    first = open_context(browser, server, viewport=DESKTOP_LAPTOP, player=player, scheme="light")
    page = visit(first, server, "/settings")
    page.locator("#settings-theme label:has(input[value='dark'])").click()
    page.wait_for_selector("#settings-saved:text('Saved to your account.')")
    page.locator("#settings-pieces label:has(input[value='flat'])").click()
    page.wait_for_selector("#settings-saved:text('Saved to your account.')")
    saved = player.http.get("/api/account/preferences").json()["preferences"]
    assert saved == {"theme": "dark", "board": "wood", "pieces": "flat"}
    # Another browser, its localStorage empty, with a light system theme: the account's looks win.
    second = open_context(browser, server, viewport=DESKTOP_LAPTOP, player=player, scheme="light")
    other = visit(second, server, "/")
    assert looks_of(other) == {
        "theme": "dark",
        "board": "wood",
        "pieces": "flat",
        "background": DARK_BACKGROUND,
    }
    # And they stay in that browser for its next first paint.
    assert "dark" in other.evaluate("localStorage.getItem('shashki.looks')")
    assert not page.errors and not other.errors
    first.close()
    second.close()
    player.close()
