"""The rules pages state every automatic draw with its exact count and where it starts (issue 17), in
all three languages: each draw rule a variant applies has its text, each variant its sources note
(which says where two official texts disagree), and rules.js asks for exactly those keys."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from shashki.rules import VARIANTS, DrawRule

WEB = Path(__file__).resolve().parents[2] / "shashki" / "web"


def catalogue(lang: str) -> dict[str, str]:
    return json.loads((WEB / "i18n" / f"{lang}.json").read_text(encoding="utf-8"))


@pytest.mark.parametrize("lang", ["en", "ru", "vi"])
def test_every_draw_rule_and_every_variant_has_its_counting_text(lang):
    texts = catalogue(lang)
    for rule in DrawRule:
        assert texts.get(f"rules.drawRule.{rule.value}", "").strip(), f"{lang}: {rule.value}"
    for base in {key.removesuffix("-giveaway") for key in VARIANTS}:
        assert texts.get(f"rules.draws.note.{base}", "").strip(), f"{lang}: {base}"
    assert texts.get("rules.draws.counting", "").strip()


def test_the_counting_texts_give_each_rules_number_of_moves_and_source():
    texts = catalogue("en")
    for rule, (count, source) in {
        DrawRule.KINGS_3_VS_1_15: ("15th move", "7.2.4"),
        DrawRule.KING_MOVES_15: ("15 moves of each player", "7.2.5"),
        DrawRule.NO_PROGRESS_30_60: ("30 moves of each player", "7.2.6"),
        DrawRule.LONG_DIAGONAL_5: ("5th move", "7.2.7"),
        DrawRule.SMALL_ENDING_5: ("5th move", "7.2.8"),
        DrawRule.KING_MOVES_20: ("20 moves of each player", "item 16"),
        DrawRule.KING_MOVES_25: ("25 moves of each player", "6.2"),
        DrawRule.ENDING_16: ("each player has made 16 moves", "6.3"),
        DrawRule.ENDING_5: ("each player has made 5 moves", "6.4"),
        DrawRule.FORTY_MOVES: ("40 moves of each player", "WCDF"),
        DrawRule.KINGS_3_VS_1_13: ("13th move", "APCA"),
    }.items():
        text = texts[f"rules.drawRule.{rule.value}"]
        assert count in text and source in text, f"{rule.value}: {text}"
    assert "national confederation" in texts["rules.draws.note.brazilian"]


def test_the_rules_page_asks_for_the_counting_texts():
    source = (WEB / "js" / "rules.js").read_text(encoding="utf-8")
    assert "`rules.drawRule.${rule}`" in source
    assert '"rules.draws.counting"' in source and "`rules.draws.note.${base}`" in source


def test_the_brazilian_rules_page_lists_its_two_draws_and_why_in_the_browser(pages):
    page = pages("/rules/brazilian")
    page.wait_for_selector("article.rules table.params")
    english = catalogue("en")
    draws = page.locator("article.rules table.params li")
    assert draws.all_inner_texts() == [
        english["rules.drawRule.threefold-repetition"],
        english["rules.drawRule.twenty-king-moves"],
    ]
    assert page.locator("article.rules p.note").inner_text() == english["rules.draws.note.brazilian"]


@pytest.mark.parametrize("variant", ["international", "english", "italian", "pool", "pool-giveaway"])
def test_a_rules_page_says_capture_is_compulsory_and_its_notation_example_exists_on_its_board(
    pages, variant
):
    """Found by an audit: the English, Italian and Pool pages never said capturing is compulsory, and
    the International pages' example capture (22x15x8) cannot be played on a 10×10 board."""
    import re

    from shashki.rules import get_variant
    from shashki.rules.position import Position

    page = pages(f"/rules/{variant}")
    page.wait_for_selector("article.rules table.params")
    table = page.locator("article.rules table.params")
    names, values = table.locator("th").all_inner_texts(), table.locator("td").all_inner_texts()
    rows = dict(zip(names, values, strict=True))
    english = catalogue("en")
    assert rows[english["rules.param.compulsory"]] == english["rules.compulsory"]
    a, b, c = map(int, re.search(r"(\d+)x(\d+)x(\d+)", rows[english["rules.param.notation"]]).groups())
    v = get_variant(variant)
    board = v.board

    def between(x: int, y: int) -> int:
        ray = next(r for r in board.rays[board.bit_of_number(x)] if board.bit_of_number(y) in r)
        (middle,) = ray[: ray.index(board.bit_of_number(y))]
        return board.number(middle)

    fen = f"W:W{a}:B{between(a, b)},{between(b, c)}"
    notations = [m.notation(v) for m in Position.from_fen(fen, variant).legal_moves()]
    assert f"{a}x{b}x{c}" in notations, (fen, notations)
