"""Every page in English, Russian and Vietnamese, and a test that finds untranslated strings (issue 16,
point 8). Each failure names the key, the file and line, or the page and the text:

(a) every key the client asks for (`t("...")`, `has("...")`, a key-shaped literal of a known namespace,
    a template key such as `t(\\`game.hint.${kind}\\`)`) has its text in en, ru and vi;
(b) no key is in one catalogue but missing from another;
(c) no Russian or Vietnamese text is the English one left as it was (names and notation excepted, below);
(d) no text a player reads is written into the JavaScript or the HTML instead of the catalogues;
(e) in a real browser, a page switched to Russian or Vietnamese shows no English text of the catalogue.
"""

from __future__ import annotations

import json
import re
from html.parser import HTMLParser
from pathlib import Path

import httpx
import pytest
from server.helpers import Player

from .conftest import TIMEOUT_MS
from .helpers import DESKTOP_LAPTOP, wait_for_turn
from .js_strings import literals, shown, words

WEB = Path(__file__).resolve().parents[2] / "shashki" / "web"
LANGUAGES = ("en", "ru", "vi")
KEY = re.compile(r"[a-z][A-Za-z]*(?:\.[A-Za-z0-9_-]+)+")
PLACEHOLDER = re.compile(r"\{\w+\}")

# (c) Keys whose Russian and Vietnamese texts may be the English one: nothing in them to translate.
# ("{name}" and the like pass anyway: they have no words.) The tie-breaks bear their inventors' names,
# and their short forms are the ones tournament tables print everywhere.
SAME_IN_EVERY_LANGUAGE: set[str] = {
    "tournament.tiebreak.buchholz",
    "tournament.tiebreak.sonneborn_berger",
    "tournament.tiebreakShort.buchholz",
    "tournament.tiebreakShort.buchholz_cut1",
    "tournament.tiebreakShort.sonneborn_berger",
}
# (d) Words that are the same in every language: the site's name.
NAMES = {"Shashki", "FEN", "PDN"}  # and the draughts notations' names
# (d) Texts written into the client on purpose, with why.
WRITTEN_ON_PURPOSE = {
    (
        "main.js",
        "Shashki could not start: {}",
    ): "shown only when the client cannot start, catalogues included",
}
HTML_ON_PURPOSE = {
    "English": "the language menu names each language in itself",
    "Tiếng Việt": "the language menu names each language in itself",
    "Shashki needs JavaScript to play.": "<noscript>: without JavaScript there are no catalogues",
    "Menu": "the menu button's first label, replaced in the player's language when the client starts",
    "Language": "the language menu's first label, replaced in the player's language when the client starts",
}


def catalogue(lang: str) -> dict[str, str]:
    return json.loads((WEB / "i18n" / f"{lang}.json").read_text(encoding="utf-8"))


def scripts() -> dict[str, str]:
    return {p.name: p.read_text(encoding="utf-8") for p in sorted((WEB / "js").glob("*.js"))}


def keys_asked() -> list[tuple[str, int, str]]:
    """(file, line, key) for every key the client asks for; a template key has "{}" where it varies."""
    namespaces = {key.split(".")[0] for lang in LANGUAGES for key in catalogue(lang)}
    asked = []
    for name, source in scripts().items():
        for literal in literals(source):
            direct = literal.callee in ("t", "has") and literal.argument == 0
            shaped = KEY.fullmatch(literal.text) and literal.text.split(".")[0] in namespaces
            if direct or shaped:
                asked.append((name, literal.line, literal.text))
    return asked


# -- (a) and (b): the catalogues ------------------------------------------------------------------------


def test_the_scan_finds_the_keys_a_module_asks_for():
    source = 'h("p", {}, t(ok ? "game.yourTurn" : "game.over"), t(`game.hint.${k}`), has("x.y"));'
    found = {lit.text for lit in literals(source) if lit.callee in ("t", "has")}
    assert {"game.yourTurn", "game.over", "game.hint.{}", "x.y"} <= found
    assert ("main.js", "settings.menu") in {(name, key) for name, _, key in keys_asked()}


def test_every_key_the_client_asks_for_has_its_text_in_every_language():
    missing = []
    for lang in LANGUAGES:
        texts = catalogue(lang)
        for name, line, key in keys_asked():
            if "{}" in key:
                pattern = re.compile(re.escape(key).replace(r"\{\}", r"[\w.-]+"))
                if not any(pattern.fullmatch(k) for k in texts):
                    missing.append(f"{name}:{line}: no key of the form {key!r} in {lang}.json")
            elif key not in texts:
                missing.append(f"{name}:{line}: {key!r} is not in {lang}.json")
    assert not missing, "\n".join(missing)


def test_no_key_is_in_one_language_and_missing_from_another():
    keys = {lang: set(catalogue(lang)) for lang in LANGUAGES}
    everywhere = set.union(*keys.values())
    missing = [
        f"{key!r} is in {', '.join(f'{o}.json' for o in LANGUAGES if key in keys[o])} but not in {lang}.json"
        for key in sorted(everywhere)
        for lang in LANGUAGES
        if key not in keys[lang]
    ]
    assert not missing, "\n".join(missing)


def test_russian_and_vietnamese_texts_are_not_the_english_ones_left_as_they_were():
    english = catalogue("en")
    untranslated = []
    for lang in LANGUAGES[1:]:
        for key, text in catalogue(lang).items():
            if key in SAME_IN_EVERY_LANGUAGE or not words(PLACEHOLDER.sub("{}", text)):
                continue
            if text == english.get(key):
                untranslated.append(f"{lang}.json: {key!r} is still the English {text!r}")
            # Russian is written in Cyrillic: a Russian text of Latin words alone is English (or a slip).
            if lang == "ru" and not re.search(r"[А-Яа-яЁё]", text) and text != english.get(key):
                untranslated.append(f"ru.json: {key!r} has no Russian word: {text!r}")
    assert not untranslated, "\n".join(untranslated)


# -- (d): text written into the code --------------------------------------------------------------------


def untranslated_literal(text: str) -> bool:
    for name in NAMES:
        text = text.replace(name, " ")
    return words(text)


def test_the_scan_finds_text_written_into_a_module():
    source = "\n".join(
        [
            'h("p", { class: "lead wide" }, "Hello there");',
            'el.textContent = "Oops";',
            'toast("Saved", "error");',
            'const b = h("button", { title: "Close", "aria-label": t("x.y") }, "↻");',
            "fill(view, `Welcome ${name}`);",
            'if (status === "started") h("p", {}, t("a.b"));',
        ]
    )
    found = sorted(lit.text for lit in literals(source) if shown(lit) and untranslated_literal(lit.text))
    assert found == ["Close", "Hello there", "Oops", "Saved", "Welcome {}"]


def test_no_module_writes_a_text_players_read_instead_of_asking_the_catalogue():
    written = []
    for name, source in scripts().items():
        for literal in literals(source):
            if not (shown(literal) and untranslated_literal(literal.text)):
                continue
            if (name, literal.text) in WRITTEN_ON_PURPOSE:
                continue
            written.append(
                f"{name}:{literal.line}: {literal.text!r} is shown as it is: use t() and the catalogues"
            )
    assert not written, "\n".join(written)


class ShownText(HTMLParser):
    """The text nodes and the shown attributes of an HTML page, outside <script> and <style>."""

    ATTRIBUTES = {"aria-label", "title", "alt", "placeholder", "value"}

    def __init__(self) -> None:
        super().__init__()
        self.texts: list[tuple[int, str]] = []
        self.skip = 0

    def handle_starttag(self, tag, attrs):
        if tag in ("script", "style"):
            self.skip += 1
        for name, value in attrs:
            if name in self.ATTRIBUTES and value and not (tag == "option" and name == "value"):
                self.texts.append((self.getpos()[0], value))

    def handle_endtag(self, tag):
        if tag in ("script", "style"):
            self.skip -= 1

    def handle_data(self, data):
        if not self.skip and data.strip():
            self.texts.append((self.getpos()[0], data.strip()))


def test_the_html_page_has_no_text_that_is_not_a_name_or_replaced_by_the_client():
    written = []
    for path in sorted(WEB.rglob("*.html")):
        parser = ShownText()
        parser.feed(path.read_text(encoding="utf-8"))
        for line, text in parser.texts:
            if text in HTML_ON_PURPOSE or not untranslated_literal(text):
                continue
            written.append(
                f"{path.name}:{line}: {text!r} is written into the page: the client should set it with t()"
            )
    assert not written, "\n".join(written)


# -- (e): the pages in a real browser ---------------------------------------------------------------------


def english_fragments(lang: str) -> list[tuple[str, str]]:
    """(key, fragment): the pieces of English texts (between placeholders and line breaks) that the other
    language does not share, long enough to be words of a sentence rather than notation."""
    english, other = catalogue("en"), catalogue(lang)
    theirs = "\n".join(other.values())
    fragments = []
    for key, text in english.items():
        if other.get(key) == text:
            continue
        for piece in re.split(r"\{\w+\}|\n", text):
            piece = piece.strip(" .,:;!?—–-()«»\"'")
            if re.search(r"[A-Za-z]{3,}", piece) and piece not in theirs:
                fragments.append((key, piece))
    return fragments


# Names players chose (a tournament's) are marked translate="no" and are not the catalogue's to translate.
SHOWN_TEXT = """() => {
  const texts = [document.title, document.body.innerText];
  for (const el of document.querySelectorAll("[aria-label], [title], [placeholder], [alt]")) {
    for (const name of ["aria-label", "title", "placeholder", "alt"]) {
      if (el.hasAttribute(name) && el.getClientRects().length) texts.push(el.getAttribute(name));
    }
  }
  let shown = texts.join("\\n");
  for (const el of document.querySelectorAll('[translate="no"]')) {
    if (el.innerText.trim()) shown = shown.split(el.innerText.trim()).join(" ");
  }
  return shown;
}"""


@pytest.fixture(scope="module")
def visits(server):
    """The pages to read: a visitor's and a player's, a game in progress and a finished one."""
    alice, bob = Player(server), Player(server)
    live = alice.challenge(bob, time_control={"minutes": 10, "increment": 5})
    for ply, (player, move) in enumerate([(alice, "c3-d4"), (bob, "f6-e5")]):
        assert player.post(f"/api/games/{live['id']}/move", {"move": move, "ply": ply}).status_code == 200
    done = alice.challenge(bob)
    assert bob.post(f"/api/games/{done['id']}/resign").status_code == 200
    arena = {
        "name": "Arena Swiss", "system": "arena", "variant": "russian-giveaway", "minutes": 30,
        "clock": {"initial": 60, "increment": 0}, "starts_at": None, "rated": False,
    }
    r = alice.post("/api/tournaments", arena)
    assert r.status_code == 201, r.text
    tournament = r.json()["id"]
    r = alice.post("/api/simuls", {"name": "Evening simul", "clock": {"initial": 600, "increment": 5}})
    assert r.status_code == 201, r.text
    simul = r.json()["id"]
    for player, action in ((bob, "join"), (alice, f"accept/{bob.name}"), (alice, "start")):
        assert player.post(f"/api/simuls/{simul}/{action}").status_code == 200
    link = bob.post("/api/challenges/open", {}).json()["challenge"]["link"]
    yield {
        "player": alice,
        "visitor": {
            "lobby and login": "/#login",
            "rules": "/rules",
            "settings": "/settings",
            "analysis board": "/analysis",
            "tournaments": "/tournaments",
            "simuls": "/simuls",
            "TV": "/tv",
            "puzzles": "/puzzles",
            "leaderboard": "/leaderboard",
        },
        "logged in": {
            "lobby": "/",
            "game in progress": f"/game/{live['id']}",
            "finished game": f"/game/{done['id']}",
            "profile": f"/@/{alice.name}",
            "poddavki rules": "/rules/russian-giveaway",
            "international rules": "/rules/international",
            "settings": "/settings",
            "analysis board": "/analysis",
            "tournaments": "/tournaments",
            "tournament": f"/tournament/{tournament}",
            "simuls": "/simuls",
            "simul": f"/simul/{simul}",
            "challenge link": f"/challenge/{link}",
            "puzzles": "/puzzles",
            "puzzle history": "/puzzles/history",
        },
    }
    alice.close()
    bob.close()


# Russian in the default run, Vietnamese with the slow tests.
@pytest.mark.parametrize("lang", ["ru", pytest.param("vi", marks=pytest.mark.slow)])
def test_a_page_in_russian_or_vietnamese_shows_no_english_text_of_the_catalogue(
    browser, server, visits, lang
):
    fragments = english_fragments(lang)
    assert len(fragments) > 100  # the check does look for the English texts
    shown_english = []
    for who in ("visitor", "logged in"):
        context = browser.new_context(viewport=DESKTOP_LAPTOP, locale=lang)
        context.set_default_timeout(TIMEOUT_MS)
        context.add_init_script(f"localStorage.setItem('shashki.language', '{lang}')")
        if who == "logged in":
            cookie = visits["player"].http.cookies.get("shashki_session")
            context.add_cookies([{"name": "shashki_session", "value": cookie, "url": server.url}])
        page = context.new_page()
        for name, path in visits[who].items():
            page.goto(server.url + path)
            page.wait_for_selector("body[data-ready]")
            if name == "game in progress":
                wait_for_turn(page)
            assert page.evaluate("document.documentElement.lang") == lang
            text = page.evaluate(SHOWN_TEXT)
            for key, fragment in fragments:
                if re.search(rf"(?<![\w]){re.escape(fragment)}(?![\w])", text):
                    shown_english.append(
                        f"{lang} {name} ({path}, {who}): the English of {key!r}: {fragment!r}"
                    )
        context.close()
    assert not shown_english, "\n".join(shown_english)


def test_the_browser_check_finds_the_english_texts_on_an_english_page(pages):
    page = pages("/#login")
    text = page.evaluate(SHOWN_TEXT)
    found = {key for key, fragment in english_fragments("ru") if fragment in text}
    assert {"lobby.quick", "auth.login", "nav.rules"} <= found


def test_the_servers_refusals_are_shown_in_the_players_language(pages, server):
    """A move the rules refuse, typed on a Russian or Vietnamese page, is explained in that language with
    the legal moves the server named; an English page keeps the server's own words (found by an audit:
    the refusals were English on every page)."""
    player = Player(server)
    r = player.post("/api/computer-games", {"level": 1, "color": "white", "variant": "russian"})
    assert r.status_code == 201, r.text
    gid = r.json()["game"]["id"]
    expected = {
        "en": ("The piece on c3 cannot go to c5; it can play c3-b4, c3-d4.", "'zz' is not a move"),
        "ru": ("Эта шашка не может туда пойти; возможные ходы: c3-b4, c3-d4.", "Это не ход"),
        "vi": ("Quân này không thể đi đến đó; các nước có thể: c3-b4, c3-d4.", "Đây không phải là nước đi"),
    }
    for lang, (destination, malformed) in expected.items():
        page = pages(f"/game/{gid}", player=player, language=lang)
        wait_for_turn(page)
        for typed, text in (("c3-c5", destination), ("zz", malformed)):
            page.fill("#move-text", typed)
            page.press("#move-text", "Enter")
            page.wait_for_selector("#move-error:not([hidden])")
            assert text in page.locator("#move-error").inner_text(), (lang, typed)
            page.evaluate("document.getElementById('move-error').hidden = true")
    assert httpx.get(f"{server.url}/api/games/{gid}").json()["game"]["ply"] == 0
    player.close()


def test_one_day_is_written_in_the_singular(pages):
    page = pages("/")
    page.click('[data-tab="seek"]')
    options = page.locator("#seek-time option").all_inner_texts()
    assert "1 day/move" in options and "3 days/move" in options and "1 days/move" not in options
    # The count a text's noun goes with is `count`, `n`, or the text's first number.
    texts = page.evaluate(
        """async () => {
            const { t } = await import("/static/js/i18n.js");
            return [t("profile.counts", { all: 1, win: 0, loss: 1, draw: 0 }),
                    t("profile.counts", { all: 2, win: 1, loss: 1, draw: 0 }),
                    t("tournament.podiumLine", { games: 1, wins: 1, performance: 1600 })];
        }"""
    )
    assert texts == ["1 game: 0 won, 1 lost, 0 drawn", "2 games: 1 won, 1 lost, 0 drawn",
                     "1 game, 1 won, performance 1600"]


# Codes the web client never shows (the Bot API's, the API's parameters the pages always send right, the
# server's own bookkeeping): no text needed in the catalogues. Every other code the server raises has its
# error.<code> text in every language (errorText: the refusal in the player's language).
API_ONLY = {
    "already_created", "already_scheduled", "bad_lines", "bad_message", "bad_mode", "bad_origin", "bad_page",
    "bad_preference", "bad_reason", "bad_request", "bad_result", "bad_room", "bad_scope", "bad_seconds",
    "bad_speed", "bad_time", "bad_token", "bot_account", "missing_scope", "no_such_notification",
    "no_such_token", "not_a_bot", "not_waiting", "own_seek_taken", "session_required", "too_many_moves",
    "too_many_streams", "unsupported_body",
}


def test_every_refusal_the_pages_may_show_is_in_every_language():
    raised = set()
    pattern = re.compile(r"\b(?:Conflict|Invalid|Forbidden|NotFound|RateLimited|Unauthorized|StaleCopy|"
                         r"IllegalMove|BadFrame)\(\s*\"([a-z_]+)\"")
    for path in (WEB.parent / "server").rglob("*.py"):
        raised |= set(pattern.findall(path.read_text(encoding="utf-8")))
    for path in (WEB.parent / "rules").rglob("*.py"):
        raised |= set(pattern.findall(path.read_text(encoding="utf-8")))
    assert len(raised) > 80  # the scan does find them
    for lang in LANGUAGES:
        texts = catalogue(lang)
        missing = sorted(c for c in raised - API_ONLY if f"error.{c}" not in texts)
        assert not missing, f"{lang}.json has no error.<code> text for {missing}"
