"""lidraughts' move strings resolved to rules moves (shashki.server.lidraughts.moves), without a server."""

from __future__ import annotations

import pytest

from shashki.rules import Game
from shashki.server.errors import Invalid
from shashki.server.lidraughts.moves import PendingJumps, move_string

KEY = ("game", 1)
# International: the man on 34 captures four pieces either 34x23x14x3x12x21 or round the loop
# 34x23x12x3x14x23, which ends where the other's first jump lands.
LOOP = "W:W27,28,32,34,37,40,42,43,46,47,49:B1,5,6,8,9,10,11,13,17,18,19,29"


def jumps_of(route: str) -> list[str]:
    return [route[i : i + 4] for i in range(0, len(route) - 2, 2)]


def send(jumps: PendingJumps, game: Game, parts: list[str], *, offering: bool = False):
    for part in parts[:-1]:
        assert jumps.resolve(game.position, KEY, game.ply, part, offering_draw=offering) == (None, offering)
    return jumps.resolve(game.position, KEY, game.ply, parts[-1], offering_draw=offering)


def test_a_capture_sent_jump_by_jump_is_its_first_jump_even_when_those_squares_end_another_capture():
    game = Game("international", LOOP)
    for route in ("342314031221", "342312031423"):
        move, _ = send(PendingJumps(), game, jumps_of(route))
        assert move is not None and move_string(game.variant, move) == route


def test_the_whole_route_and_the_two_ends_name_the_move():
    game = Game("russian-giveaway", "B:W17,18:B15")
    for text in ("152213", "1513"):
        move, offer = PendingJumps().resolve(game.position, KEY, 0, text)
        assert move is not None and move.notation(game.variant) == "e5:c3:a5" and offer is False


def test_a_draw_offer_sent_with_any_jump_goes_with_the_whole_move():
    game = Game("russian-giveaway", "B:W17,18:B15")
    jumps = PendingJumps()
    assert jumps.resolve(game.position, KEY, 0, "1522", offering_draw=True) == (None, True)
    move, offer = jumps.resolve(game.position, KEY, 0, "2213")
    assert move is not None and offer is True


def test_kept_jumps_belong_to_their_ply():
    game = Game("russian-giveaway", "B:W17,18:B15")
    jumps = PendingJumps()
    assert jumps.resolve(game.position, KEY, 0, "1522") == (None, False)
    with pytest.raises(Invalid) as refused:
        jumps.resolve(game.position, KEY, 1, "2213")  # another ply: the first jump is forgotten
    assert refused.value.details["legal"] == ["152213"]


@pytest.mark.parametrize(
    ("text", "code"),
    [("c3d4", "malformed"), ("221", "malformed"), ("9918", "malformed"), ("2319", "capture_required")],
)
def test_refusals_carry_the_rules_reason_and_the_legal_move_strings(text, code):
    game = Game("russian-giveaway")
    for notation in ("c3-d4", "f6-e5"):
        game.play(notation)
    with pytest.raises(Invalid) as refused:
        PendingJumps().resolve(game.position, KEY, game.ply, text)
    assert refused.value.code == code
    if code == "capture_required":
        assert refused.value.details["legal"] == ["1811"]
