"""The browser client's files and what the server serves for it, checked without a browser.

- Every page address answers the client's one HTML page; its files are served; nothing comes from
  another site (no CDN: the page must work offline from this server alone).
- The three catalogues (English, Russian, Vietnamese) have the same keys with the same placeholders, and
  every text the client asks for exists — including one sentence for every way the rules can end a game
  and one description for every draw rule, so a new rule cannot reach players without its words.
- The positions the client steps through are the rules' own replay of the game.
- The lists the client offers (quick pairing, decline reasons, levels, variants) are the server's own, from
  one answer (`GET /api/meta`); the modules import each other without a circle and none grows too long.
"""

from __future__ import annotations

import json
import re
import shutil
import subprocess
from pathlib import Path

import httpx
import pytest
from game_lines import GIVEAWAY_WIN_FOR_WHITE  # tests/game_lines.py
from server.helpers import Player

from shashki.engine import LEVELS
from shashki.rules import VARIANTS, DrawRule, Game, Precedence, PromotionInCapture
from shashki.rules import game as rules_game
from shashki.server.lobby import QUICK_PAIRING
from shashki.server.lobby.service import DECLINE_REASONS

WEB = Path(__file__).resolve().parents[2] / "shashki" / "web"
LANGUAGES = ("en", "ru", "vi")
PLACEHOLDER = re.compile(r"\{(\w+)\}")


def catalogue(lang: str) -> dict[str, str]:
    return json.loads((WEB / "i18n" / f"{lang}.json").read_text(encoding="utf-8"))


def scripts() -> dict[str, str]:
    return {path.name: path.read_text(encoding="utf-8") for path in sorted((WEB / "js").glob("*.js"))}


# -- pages and files ----------------------------------------------------------------------------------


@pytest.mark.parametrize(
    "path",
    [
        "/",
        "/game/abcd1234",
        "/@/somebody",
        "/rules",
        "/rules/russian-giveaway",
        "/tournaments",
        "/tournament/ab12cd34",
        "/simuls",
        "/simul/ab12cd34",
    ],
)
def test_every_page_address_answers_the_client_page(server, path):
    r = httpx.get(server.url + path)
    assert r.status_code == 200 and r.headers["content-type"].startswith("text/html")
    assert '<script type="module" src="/static/js/main.js">' in r.text


def test_the_client_files_are_served_and_load_nothing_from_other_sites(server):
    for name in ["js/main.js", "style.css", "favicon.svg", "i18n/ru.json"]:
        r = httpx.get(f"{server.url}/static/{name}")
        assert r.status_code == 200, name
        assert r.headers.get("cache-control") == "no-cache"
    for path in WEB.rglob("*"):
        if path.suffix in {".html", ".js", ".css"}:
            text = path.read_text(encoding="utf-8")
            assert not re.search(
                r"""(src|href)=["']https?://|import\s.*["']https?://|url\(["']?https?://""", text
            ), f"{path.name} loads something from another site"


def test_variants_json_describes_every_variant_board_and_notation(server):
    data = httpx.get(f"{server.url}/web/variants.json").json()
    assert data["default"] == "russian-giveaway"
    described = {v["key"]: v for v in data["variants"]}
    assert set(described) == set(VARIANTS)
    assert described["international"]["board_size"] == 10 and described["international"]["squares"] == 50
    assert described["italian"]["mirrored"] and not described["italian"]["algebraic"]
    assert described["russian-giveaway"]["algebraic"] and described["russian-giveaway"]["giveaway"]
    assert described["russian-giveaway"]["options"] == ["double-diagonal"]


def test_the_lists_the_client_offers_are_the_servers_own(server):
    r = httpx.get(f"{server.url}/api/meta")
    assert r.status_code == 200 and r.headers.get("cache-control") == "no-cache"
    meta = r.json()
    presets = meta["quick_pairing"]
    assert [p["preset"] for p in presets] == list(QUICK_PAIRING)
    for p in presets:
        clock = QUICK_PAIRING[p["preset"]]
        assert (p["minutes"], p["increment"]) == (clock.minutes, clock.increment)
    # The speed under each button is the ratings' own category of that clock (3+2 is blitz, 15+15 classical).
    assert {p["preset"]: p["speed"] for p in presets}["3+2"] == "blitz"
    assert {p["preset"]: p["speed"] for p in presets}["15+15"] == "classical"
    # A person declines for any reason but the two about bots (those answer challenges through the Bot API).
    assert meta["decline_reasons"] == [r for r in DECLINE_REASONS if r not in ("no_bot", "only_bot")]
    assert meta["levels"] == list(LEVELS)
    assert meta["variants"] == httpx.get(f"{server.url}/web/variants.json").json()


def test_no_list_the_server_owns_is_copied_into_the_client():
    arrays = []
    for source in scripts().values():
        for literal in re.findall(r"\[([^\[\]]*)\]", source):
            items = [item.strip().strip("\"'") for item in literal.split(",") if item.strip()]
            arrays.append(items)
    owned = {
        "quick pairing": list(QUICK_PAIRING),
        "decline reasons": [r for r in DECLINE_REASONS if r not in ("no_bot", "only_bot")],
        "levels": [str(level) for level in LEVELS],
    }
    for name, values in owned.items():
        assert values not in arrays, f"the client copies the server's {name}: fetch them from /api/meta"
    source = "\n".join(scripts().values())
    assert "/api/now-playing" not in source, "the lobby socket pushes the games being played (nowPlaying)"


def imports_of(source: str) -> set[str]:
    """The modules a module imports: statically (`import ... from "./x.js"`, `export ... from`, a bare
    `import "./x.js"`) or on demand (`import("./x.js")`, as main.js loads the pages)."""
    static = re.findall(r"""^\s*(?:import|export)\b[^"';]*?\bfrom\s*["']\./([\w-]+\.js)["']""", source, re.M)
    bare = re.findall(r"""^\s*import\s*["']\./([\w-]+\.js)["']""", source, re.M)
    dynamic = re.findall(r"""\bimport\(\s*["']\./([\w-]+\.js)["']\s*\)""", source)
    return set(static) | set(bare) | set(dynamic)


def import_cycle(graph: dict[str, set[str]]) -> list[str] | None:
    """One circle of imports in `graph`, as the modules along it, or None."""
    done: set[str] = set()

    def visit(name: str, path: list[str]) -> list[str] | None:
        if name in path:
            return path[path.index(name) :] + [name]
        if name in done:
            return None
        for other in sorted(graph.get(name, ())):
            cycle = visit(other, path + [name])
            if cycle:
                return cycle
        done.add(name)
        return None

    for name in sorted(graph):
        cycle = visit(name, [])
        if cycle:
            return cycle
    return None


def test_the_cycle_check_finds_a_circle_of_imports():
    source = "\n".join(
        [
            'import { a } from "./a.js";',
            "import {",
            "  b,",
            '} from "./b-c.js";',
            'const p = () => import("./d.js");',
        ]
    )
    assert imports_of(source) == {"a.js", "b-c.js", "d.js"}
    circle = {"a.js": {"b.js"}, "b.js": {"c.js"}, "c.js": {"a.js"}}
    assert import_cycle(circle) == ["a.js", "b.js", "c.js", "a.js"]
    assert import_cycle({"a.js": {"b.js"}, "b.js": {"c.js"}, "c.js": set()}) is None


def test_the_client_modules_import_each_other_without_a_circle():
    graph = {name: imports_of(source) for name, source in scripts().items()}
    for name, imported in graph.items():
        assert imported <= set(graph), f"{name} imports a module that does not exist: {imported - set(graph)}"
    assert graph["game.js"] and graph["lobby.js"], "the parser found no imports"
    cycle = import_cycle(graph)
    assert cycle is None, f"import circle: {' -> '.join(cycle)}"


def test_no_client_module_is_over_400_lines():
    long = {name: source.count("\n") for name, source in scripts().items() if source.count("\n") > 400}
    assert not long, f"split these modules: {long}"


def test_the_positions_of_a_game_are_the_rules_replay_of_its_moves(server):
    white, black = Player(server), Player(server)
    r = white.post("/api/challenges", {"username": black.name, "color": "white"})
    game = black.post(f"/api/challenges/{r.json()['challenge']['id']}/accept").json()["game"]
    for ply, move in enumerate(["c3-d4", "f6-e5", "d4:f6"]):
        player = white if ply % 2 == 0 else black
        assert player.post(f"/api/games/{game['id']}/move", {"move": move, "ply": ply}).status_code == 200
    data = httpx.get(f"{server.url}/api/games/{game['id']}/positions").json()
    assert data["moves"] == ["c3-d4", "f6-e5", "d4:f6"]
    assert len(data["fens"]) == 4
    assert data["fens"][0] == "W:W21,22,23,24,25,26,27,28,29,30,31,32:B1,2,3,4,5,6,7,8,9,10,11,12"
    assert data["fens"][-1] == httpx.get(f"{server.url}/api/games/{game['id']}").json()["game"]["fen"]
    white.close()
    black.close()


# -- languages ----------------------------------------------------------------------------------------


def test_the_three_catalogues_have_the_same_keys_and_placeholders():
    english = catalogue("en")
    for lang in LANGUAGES[1:]:
        other = catalogue(lang)
        assert set(other) == set(english), (
            f"{lang}: missing {set(english) - set(other)}, extra {set(other) - set(english)}"
        )
        for key, text in english.items():
            assert other[key].strip(), f"{lang}: {key} is empty"
            assert set(PLACEHOLDER.findall(other[key])) == set(PLACEHOLDER.findall(text)), f"{lang}: {key}"


def test_every_text_the_client_asks_for_is_in_the_catalogue():
    english = catalogue("en")
    namespaces = {key.split(".")[0] for key in english}
    asked = set()
    for name, source in scripts().items():
        for literal in re.findall(r'"([a-z][A-Za-z]*(?:\.[A-Za-z0-9_-]+)+)"', source):
            if literal.split(".")[0] in namespaces:
                asked.add((name, literal))
    missing = sorted(f"{name}: {key}" for name, key in asked if key not in english)
    assert asked and not missing, missing


def test_every_way_a_game_ends_and_every_draw_rule_has_its_words():
    english = catalogue("en")
    reasons = {
        rules_game.RESIGNATION,
        rules_game.TIME,
        rules_game.AGREEMENT,
        rules_game.ABANDONMENT,
    } | {rule.value for rule in DrawRule}
    for reason in reasons:
        assert f"reason.{reason}" in english, reason
    for rule in DrawRule:
        assert f"draw.{rule.value}" in english, rule
    for key in VARIANTS:
        assert f"variant.{key}" in english, key
    for key in {k.removesuffix("-giveaway") for k in VARIANTS}:
        assert f"rules.about.{key}" in english, key
    for p in Precedence:
        assert f"rules.precedence.{p.value}" in english
    for p in PromotionInCapture:
        assert f"rules.promotion.{p.value}" in english
    for reason in DECLINE_REASONS:
        assert f"decline.{reason}" in english, reason
    for speed in ("bullet", "blitz", "rapid", "classical", "correspondence"):
        assert f"speed.{speed}" in english


def test_the_rules_page_of_poddavki_covers_every_rule_of_rules_md():
    english = catalogue("en")
    for section in [
        "goal",
        "board",
        "moves",
        "compulsory",
        "backward",
        "freeChoice",
        "turkish",
        "landing",
        "promotion",
        "wins",
        "draws",
        "doubleDiagonal",
        "notation",
    ]:
        assert f"rules.poddavki.{section}" in english and f"rules.poddavki.{section}.title" in english
    # RULES.md §3: the double-diagonal rule comes with its note for players.
    assert "not a theoretical draw" in english["rules.poddavki.doubleDiagonal.note"]
    assert "g1–f2–e3–d4–c5–b6–a7" in english["rules.poddavki.doubleDiagonal"]


@pytest.mark.skipif(not shutil.which("node"), reason="no node to check the modules' syntax")
def test_every_module_parses():
    for name in scripts():
        done = subprocess.run(
            ["node", "--check", "--input-type=module"],
            input=(WEB / "js" / name).read_text(encoding="utf-8"),
            capture_output=True,
            text=True,
        )
        assert done.returncode == 0, f"{name}: {done.stderr}"


def test_the_line_the_browser_plays_is_a_giveaway_win_by_no_legal_move_with_multi_captures():
    game = Game("russian-giveaway")
    for move in GIVEAWAY_WIN_FOR_WHITE:
        game.play(move)
    assert game.outcome.winner.value == "white" and game.outcome.reason == rules_game.NO_LEGAL_MOVE
    assert [m for m in GIVEAWAY_WIN_FOR_WHITE if m.count(":") > 1] == ["e5:c3:a5", "d4:f2:h4", "g3:e1:c3"]
