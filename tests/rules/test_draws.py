"""The automatic draw rules (RULES.md §3, §4; shashki.rules.draws), each proved twice: a game that
triggers it exactly when the rule says, and one that just misses it (one ply short, or reset by a
capture, a man move, a promotion, or a condition that stops holding).

"N moves" means N moves by each side: 2N plies counted while the rule's condition holds. Long quiet
stretches are played by `wander`, which picks king moves in a fixed order such that nobody is ever
forced to capture and no position repeats, so that only the rule under test can end the game.
"""

from __future__ import annotations

import random

import pytest

from shashki.rules import VARIANTS, DrawRule, Move, Position, UnavailableOption, get_variant
from shashki.rules.draws import Material, Repetition, draw_counters
from shashki.rules.game import Game


def _key(pos: Position) -> tuple[int, int, int, bool]:
    return (pos.white, pos.black, pos.kings, pos.white_to_move)


def _safe(after: Position) -> bool:
    """The opponent has a move, and not a capture (so the material stays as it is)."""
    replies = after.legal_moves()
    return bool(replies) and not replies[0].is_capture


def plan(game: Game, plies: int, rule: DrawRule, keep=lambda pos: True, goal=None) -> list[Move]:
    """`plies` quiet king moves from the game's position: never a capture for either side, never a
    position seen before in the game, `keep(position)` true after each (`goal(position)` instead after
    the last one, when given). A depth-first search with a fixed pseudo-random move order, so that the
    pieces spread over the board and a run is repeatable."""
    seen = {_key(p) for p in game.positions}
    order = random.Random(plies)
    moves: list[Move] = []

    def search(pos: Position, left: int) -> bool:
        if left == 0:
            return True
        candidates = [m for m in pos.legal_moves() if not m.is_capture and pos.kings >> m.path[0] & 1]
        order.shuffle(candidates)
        for move in candidates:
            after = pos.play(move)
            key = _key(after)
            wanted = goal if goal is not None and left == 1 else keep
            if key in seen or not wanted(after) or not _safe(after):
                continue
            seen.add(key)
            moves.append(move)
            if search(after, left - 1):
                return True
            moves.pop()
            seen.discard(key)
        return False

    if not search(game.position, plies):
        raise AssertionError(f"{rule.value} fixture: no {plies} quiet king moves from ply {game.ply}\n"
                             f"{game.position}")
    return moves


def wander(game: Game, plies: int, rule: DrawRule, keep=lambda pos: True, goal=None) -> None:
    """Play `plies` quiet king moves (see `plan`); the game must go on after each of them."""
    for move in plan(game, plies, rule, keep, goal):
        game.play(move)
        assert_going_on(game, rule)


def assert_going_on(game: Game, rule: DrawRule) -> None:
    assert game.outcome is None, f"{rule.value}: the game ended too early, at ply {game.ply}: {game.outcome}"


def _man_moves(pos: Position, promote: bool) -> list[Move]:
    """Quiet man moves (promotions only if `promote`) that leave the opponent no capture."""
    moves = sorted(pos.legal_moves(), key=lambda m: m.path)
    return [
        m for m in moves
        if not (m.is_capture or pos.kings >> m.path[0] & 1) and m.promotes == promote and _safe(pos.play(m))
    ]


def can_advance(pos: Position) -> bool:
    return bool(_man_moves(pos, False))


def can_promote(pos: Position) -> bool:
    return bool(_man_moves(pos, True))


def advance_man(game: Game, rule: DrawRule, promote: bool = False) -> None:
    """Play one quiet man move (a promotion only if `promote`) that leaves the opponent no capture."""
    moves = _man_moves(game.position, promote)
    assert moves, f"{rule.value} fixture: no man move at ply {game.ply}\n{game.position}"
    game.play(moves[0])
    assert_going_on(game, rule)


def assert_drawn_by(game: Game, rule: DrawRule) -> None:
    assert game.outcome is not None, f"{rule.value}: not drawn at ply {game.ply} (counters {game.counters})"
    assert game.outcome.result == "1/2-1/2" and game.outcome.reason == rule.value, (
        f"{rule.value}: expected a draw by this rule at ply {game.ply}, got {game.outcome}"
    )



def capture(game: Game, rule: DrawRule) -> None:
    """Play the first capture (the side to move must have one) that leaves the opponent no capture."""
    for move in sorted(game.legal_moves(), key=lambda m: m.path):
        if move.is_capture and _safe(game.position.play(move)):
            game.play(move)
            assert_going_on(game, rule)
            return
    raise AssertionError(f"{rule.value} fixture: no quiet capture at ply {game.ply}\n{game.position}")


def play_out(game: Game, plies: int, rule: DrawRule, keep=lambda pos: True) -> None:
    """Quiet king moves: the game goes on for plies - 1 of them and is drawn by `rule` on the last."""
    start, counted = game.ply, game.counters[rule]
    *before, last = plan(game, plies, rule, keep)
    for move in before:
        game.play(move)
        assert_going_on(game, rule)
    assert game.counters[rule] == counted + plies - 1, f"{rule.value}: counted {game.counters[rule]} plies"
    game.play(last)
    assert_drawn_by(game, rule)
    assert game.ply == start + plies


def on(squares: tuple[str, ...], color: str = "black"):
    """keep(): the pieces of `color` stand on `squares` only."""
    mask = 0
    board = get_variant("russian").board
    for name in squares:
        mask |= 1 << board.by_name[name]

    def keep(pos: Position) -> bool:
        pieces = pos.black if color == "black" else pos.white
        return not pieces & ~mask

    return keep


LONG_DIAGONAL = ("a1", "b2", "c3", "d4", "e5", "f6", "g7", "h8")
OFF_LONG_DIAGONAL = tuple(n for n in get_variant("russian").board.by_name if n not in LONG_DIAGONAL)


# --- Threefold repetition (FMJD-64 7.2.3, FMJD 6.1, RULES.md §3) ------------------------------------

KINGS_SHUTTLE = "W:WKc1:BKf8"
SHUTTLE = ["c1-d2", "f8-g7", "d2-c1", "g7-f8"]


@pytest.mark.parametrize("variant", ["russian-giveaway", "russian", "brazilian", "english", "pool"])
def test_threefold_repetition_draws_at_the_third_occurrence_counting_the_start(variant):
    rule = DrawRule.THREEFOLD
    game = Game.replay(SHUTTLE * 2, variant, KINGS_SHUTTLE)  # the start position, ply 4, ply 8
    assert_drawn_by(game, rule)
    assert game.ply == 8
    short = Game.replay((SHUTTLE * 2)[:7], variant, KINGS_SHUTTLE)  # c1-d2 at plies 1 and 5 only
    assert_going_on(short, rule)
    assert short.counters[rule] == 2


def test_threefold_repetition_needs_the_same_side_to_move():
    rule = DrawRule.THREEFOLD
    # The start pieces recur twice with White to move, then with Black to move (White's king goes
    # c1-d2-e3-c1): only two occurrences of the same position.
    triangle = ["c1-d2", "f8-g7", "d2-e3", "g7-f8", "e3-c1"]
    game = Game.replay(SHUTTLE + triangle, "russian-giveaway", KINGS_SHUTTLE)
    assert (game.position.white, game.position.black) == (game.start.white, game.start.black)
    assert not game.position.white_to_move
    assert_going_on(game, rule)
    assert game.counters[rule] == 1


def test_threefold_repetition_keys_positions_by_their_pieces_not_their_hash():
    variant = get_variant("russian-giveaway")
    board = variant.board
    a = Position(variant, 1 << board.by_name["c1"], 1 << board.by_name["f8"], 0, True, hash=42)
    b = Position(variant, 1 << board.by_name["d2"], 1 << board.by_name["f8"], 0, True, hash=42)
    rule = Repetition()
    rule.start(a, Material.of(a))
    king_move = a.legal_moves()[0]
    for pos in (b, b, a):
        rule.update(pos, king_move, True, Material.of(pos))
    assert rule.count == 2 and not rule.drawn, "threefold-repetition: positions sharing a hash counted as one"


def test_threefold_repetition_forgets_positions_before_a_man_move_or_a_capture():
    # Neither can be undone, so no earlier position can recur: the table keeps only what can.
    variant = get_variant("russian-giveaway")
    start = Position.from_fen("W:WKc1,a3:BKf8", variant)
    rule = Repetition()
    rule.start(start, Material.of(start))
    pos = start
    for text in ["c1-d2", "f8-g7", "d2-c1", "g7-f8", "a3-b4"]:
        move = pos.parse_move(text)
        king_move = bool(pos.kings >> move.path[0] & 1)
        pos = pos.play(move)
        rule.update(pos, move, king_move, Material.of(pos))
    assert (rule.count, len(rule.seen)) == (1, 1), "threefold-repetition: table not emptied after a man move"


# --- FMJD-64 (Russian, Brazilian) ----------------------------------------------------------------


def test_kings_3_vs_1_15_draws_when_the_lone_king_survives_15_moves():
    rule = DrawRule.KINGS_3_VS_1_15
    game = Game("russian", "W:WKa1,Kb8,Kh8,g3:BKe1")
    advance_man(game, rule)  # a man move: the 15-king-move count (7.2.5) starts again, this one does not
    play_out(game, 29, rule)
    assert game.ply == 30 and game.counters[DrawRule.KING_MOVES_15] == 29


def test_kings_3_vs_1_15_count_restarts_when_a_capture_makes_the_ending():
    rule = DrawRule.KINGS_3_VS_1_15
    game = Game("russian", "B:WKa1,Kh8,Kb8,f4:BKh6")
    game.play("h6:d2")  # three kings and a man become three kings
    assert game.counters[rule] == 0
    play_out(game, 30, rule)  # ply 31: a count from the start would have drawn at ply 30
    assert game.ply == 31


def test_kings_3_vs_1_15_needs_three_kings():
    rule = DrawRule.KINGS_3_VS_1_15
    game = Game("russian", "W:WKa1,Kb8,g3,c3:BKf8")
    wander(game, 4, rule)
    assert game.counters[rule] == 0


KING_MOVES_FEN = "W:WKe1,a3,c3:BKd8,h6,f6"


@pytest.mark.parametrize("variant", ["russian", "brazilian"])
def test_king_moves_15_draws_after_15_moves_each_of_kings_only(variant):
    play_out(Game(variant, KING_MOVES_FEN), 30, DrawRule.KING_MOVES_15)


def test_king_moves_15_count_restarts_after_a_man_move():
    rule = DrawRule.KING_MOVES_15
    game = Game("russian", KING_MOVES_FEN)
    wander(game, 10, rule, goal=can_advance)
    advance_man(game, rule)
    wander(game, 19, rule)  # ply 30
    assert game.counters[rule] == 19
    play_out(game, 11, rule)
    assert game.ply == 41


def test_no_progress_30_60_draws_after_30_moves_with_4_or_5_pieces():
    rule = DrawRule.NO_PROGRESS_30_60
    game = Game("russian", "W:WKe1,a3:BKd8,h6")
    # Men move now and then (which keeps the 15-king-move rule away), never capturing or promoting.
    wander(game, 25, rule, goal=can_advance)
    advance_man(game, rule)
    wander(game, 24, rule, goal=can_advance)
    advance_man(game, rule)
    play_out(game, 9, rule)
    assert game.ply == 60


def test_no_progress_30_60_draws_after_60_moves_with_6_or_7_pieces():
    rule = DrawRule.NO_PROGRESS_30_60
    game = Game("russian", "W:WKe1,a3,c3:BKd8,h6,f6,f8")
    for plies in (25, 24, 25, 24):  # men of both sides take turns to move
        wander(game, plies, rule, goal=can_advance)
        advance_man(game, rule)
    play_out(game, 18, rule)
    assert game.ply == 120


def test_no_progress_30_60_count_restarts_after_a_promotion():
    rule = DrawRule.NO_PROGRESS_30_60
    game = Game("russian", "W:WKe1,b6:BKh2,h6")
    # Men move now and then (which keeps the 15-king-move rule away).
    wander(game, 24, rule, goal=can_advance)
    advance_man(game, rule)  # ply 25: the white man steps to the seventh row
    wander(game, 9, rule, goal=can_promote)
    advance_man(game, rule, promote=True)  # ply 35: crowned
    assert game.counters[rule] == 0
    wander(game, 24, rule, goal=can_advance)
    advance_man(game, rule)  # ply 60, Black's man
    wander(game, 19, rule, goal=can_advance)
    advance_man(game, rule)  # ply 80
    wander(game, 4, rule)  # ply 84: 84 plies without a capture, 49 since the promotion
    assert game.counters[rule] == 49
    play_out(game, 11, rule)
    assert game.ply == 95


def test_no_progress_30_60_needs_kings_on_both_sides():
    rule = DrawRule.NO_PROGRESS_30_60
    game = Game("russian", "W:WKe1,a3:Bh6,f8")
    for _ in range(2):
        wander(game, 1, rule)
        advance_man(game, rule)
    assert game.counters[rule] == 0, f"{rule.value} counted while Black has no king"


def test_long_diagonal_5_draws_when_the_lone_king_holds_the_long_diagonal_5_moves():
    play_out(Game("russian", "W:WKa3,e1,g3:BKh8"), 10, DrawRule.LONG_DIAGONAL_5, keep=on(LONG_DIAGONAL))


def test_long_diagonal_5_count_stops_when_the_lone_king_leaves_the_long_diagonal():
    rule = DrawRule.LONG_DIAGONAL_5
    game = Game("russian", "W:WKa3,e1,g3:BKh8")
    wander(game, 5, rule, keep=on(LONG_DIAGONAL))
    assert game.counters[rule] == 5
    # Black steps off at ply 6 and back on at ply 10: the count starts again there.
    wander(game, 5, rule, keep=on(OFF_LONG_DIAGONAL), goal=on(LONG_DIAGONAL))
    assert game.counters[rule] == 0
    play_out(game, 10, rule, keep=on(LONG_DIAGONAL))
    assert game.ply == 20


@pytest.mark.parametrize("fen", ["W:WKa1,Kb8:BKh6", "W:WKa1,c3:BKh6", "W:WKa1:BKh6"],
                         ids=["two-kings", "king-and-man", "king"])
@pytest.mark.parametrize("variant", ["russian", "brazilian"])
def test_small_ending_5_draws_after_5_moves(variant, fen):
    play_out(Game(variant, fen), 10, DrawRule.SMALL_ENDING_5)


def test_small_ending_5_count_restarts_when_a_capture_makes_the_ending():
    rule = DrawRule.SMALL_ENDING_5
    game = Game("russian", "B:WKa1,Kb8,f4:BKh6")
    game.play("h6:d2")
    play_out(game, 10, rule)
    assert game.ply == 11


def test_small_ending_5_needs_a_king_on_the_stronger_side():
    game = Game("russian", "W:Wa3,c3:BKh6")
    advance_man(game, DrawRule.SMALL_ENDING_5)
    assert game.counters[DrawRule.SMALL_ENDING_5] == 0


# --- FMJD (International) -------------------------------------------------------------------------

INTERNATIONAL_KINGS = "W:WK47,31,35,36:BK4,11,15,16"


def test_king_moves_25_draws_after_25_moves_each_of_kings_only():
    play_out(Game("international", INTERNATIONAL_KINGS), 50, DrawRule.KING_MOVES_25)


def test_king_moves_25_count_restarts_after_a_man_move():
    rule = DrawRule.KING_MOVES_25
    game = Game("international", INTERNATIONAL_KINGS)
    wander(game, 20, rule, goal=can_advance)
    advance_man(game, rule)
    wander(game, 29, rule)  # ply 50
    assert game.counters[rule] == 29
    play_out(game, 21, rule)
    assert game.ply == 71


def test_ending_16_draws_after_16_moves():
    play_out(Game("international", "W:WK47,31,35:BK4"), 32, DrawRule.ENDING_16)


def test_ending_16_count_goes_on_through_a_promotion():
    rule = DrawRule.ENDING_16
    game = Game("international", "W:WK47,7,35:BK4")
    wander(game, 10, rule, goal=can_promote)
    advance_man(game, rule, promote=True)  # a king and two men become two kings and a man
    play_out(game, 21, rule)
    assert game.ply == 32


def test_ending_16_count_restarts_when_a_capture_makes_the_ending():
    rule = DrawRule.ENDING_16
    game = Game("international", "B:WK47,31,35,28:BK4")
    capture(game, rule)
    assert game.counters[rule] == 0
    play_out(game, 32, rule)
    assert game.ply == 33


@pytest.mark.parametrize("fen", ["W:WK47,K1:BK4", "W:WK47,31:BK4", "W:WK47:BK4"],
                         ids=["two-kings", "king-and-man", "king"])
def test_ending_5_draws_after_5_moves(fen):
    play_out(Game("international", fen), 10, DrawRule.ENDING_5)


def test_ending_5_count_restarts_when_a_capture_makes_the_ending():
    rule = DrawRule.ENDING_5
    game = Game("international", "B:WK47,31,28:BK4")
    capture(game, rule)
    play_out(game, 10, rule)
    assert game.ply == 11


# --- English, Pool --------------------------------------------------------------------------------

ENGLISH_KINGS = "B:WKa1,Kc1,a3,c3:BKh8,Kf8,h6,f6"


def test_forty_moves_draws_after_40_moves_each_without_a_man_move_or_capture():
    play_out(Game("english", ENGLISH_KINGS), 80, DrawRule.FORTY_MOVES)


def test_forty_moves_count_restarts_after_a_man_move():
    rule = DrawRule.FORTY_MOVES
    game = Game("english", ENGLISH_KINGS)
    wander(game, 40, rule, goal=can_advance)
    advance_man(game, rule)
    wander(game, 39, rule)  # ply 80
    assert game.counters[rule] == 39


def test_kings_3_vs_1_13_draws_when_the_lone_king_survives_13_moves():
    play_out(Game("pool", "W:WKa1,Kb8,Kh8:BKe1"), 26, DrawRule.KINGS_3_VS_1_13)


def test_kings_3_vs_1_13_count_restarts_when_a_capture_makes_the_ending():
    rule = DrawRule.KINGS_3_VS_1_13
    game = Game("pool", "B:WKa1,Kh8,Kb8,f4:BKh6")
    capture(game, rule)
    play_out(game, 26, rule)
    assert game.ply == 27


# --- Giveaway ---------------------------------------------------------------------------------------


@pytest.mark.parametrize("key", sorted(VARIANTS))
def test_every_active_draw_rule_has_its_counter_in_order(key):
    variant = get_variant(key, double_diagonal=key == "russian-giveaway")
    assert [c.rule for c in draw_counters(variant)] == list(variant.active_draw_rules)


def test_giveaway_variants_have_only_threefold_repetition():
    for key in ("russian-giveaway", "brazilian-giveaway", "international-giveaway", "english-giveaway",
                "italian-giveaway", "pool-giveaway"):
        rules = [c.rule for c in draw_counters(get_variant(key))]
        assert rules == [DrawRule.THREEFOLD], f"{key}: automatic draws {rules}; RULES.md §4: threefold only"


def test_giveaway_has_no_15_king_move_rule():
    # RULES.md §3: such a game is played out or agreed drawn.
    game = Game("russian-giveaway", "W:WKa1,Kc1:BKh8,Kf8")
    wander(game, 40, DrawRule.THREEFOLD)
    assert_going_on(game, DrawRule.THREEFOLD)


# --- Double-diagonal kings (RULES.md §3, russian-giveaway option) ----------------------------------


def test_double_diagonal_draws_kings_on_the_two_double_diagonals():
    rule = DrawRule.DOUBLE_DIAGONAL
    game = Game("russian-giveaway", "W:WKc1:BKd6", double_diagonal=True)
    assert_going_on(game, rule)
    game.play("c1-e3")  # e3 on g1-a7, d6 on h2-b8
    assert_drawn_by(game, rule)


def test_double_diagonal_draws_a_start_position_at_once():
    game = Game("russian-giveaway", "W:WKg1:BKh2", double_diagonal=True)
    assert_drawn_by(game, DrawRule.DOUBLE_DIAGONAL)


def test_double_diagonal_is_off_by_default():
    game = Game.replay(["c1-e3"], "russian-giveaway", "W:WKc1:BKd6")
    assert_going_on(game, DrawRule.DOUBLE_DIAGONAL)
    assert DrawRule.DOUBLE_DIAGONAL not in game.counters


@pytest.mark.parametrize(
    "fen, move, why",
    [
        ("W:WKc1:BKd6", "c1-d2", "d2 is on neither double diagonal"),
        ("W:WKc1:BKd6", "c1-f4", "both kings on h2-b8"),
        ("W:WKc1,a3:BKd6", "c1-e3", "a man is left"),
        ("W:WKc1,Kh8:BKd6", "c1-e3", "two white kings"),
    ],
)
def test_double_diagonal_needs_one_king_each_on_different_double_diagonals(fen, move, why):
    game = Game.replay([move], "russian-giveaway", fen, double_diagonal=True)
    assert game.outcome is None or game.outcome.reason != DrawRule.DOUBLE_DIAGONAL.value, why
    assert game.counters[DrawRule.DOUBLE_DIAGONAL] == 0, why


def test_double_diagonal_option_exists_only_in_russian_giveaway():
    with pytest.raises(ValueError):
        Game("russian", double_diagonal=True)
    for key, variant in VARIANTS.items():
        if key == "russian-giveaway":
            assert get_variant(key, double_diagonal=True).double_diagonal
            continue
        with pytest.raises(UnavailableOption) as info:
            get_variant(variant, double_diagonal=True)
        assert info.value.code == "bad_option"
        assert info.value.message == "The double-diagonal option belongs to Russian giveaway."
