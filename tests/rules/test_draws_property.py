"""No draw rule fires one move early or late: random games played to the end against a plain count.

The reference below is written from the rule texts (RULES.md §4 and the articles cited in
shashki.rules.draws), not from that module: after every ply it walks back over the whole history to
the position where each rule's condition began to hold unchanged, counts the moves each side has made
since, and says which rule, if any, ends the game now (the first of the variant's rules in order,
threefold repetition included). The game must be drawn by that rule on exactly that ply, and not
before. A rule of "N moves of each side" fires once both sides have made N moves; a rule of the side
that must win ("by his 15th move") once that side has; with a king against a king, once either has.

Games start from endings of kings and men and are played by a seeded random player that mostly avoids
giving the opponent a capture, so that the endings last long enough for their counts to run out.
"""

from __future__ import annotations

import random
from dataclasses import dataclass

import pytest

from shashki.rules import DrawRule, Move, Position, get_variant
from shashki.rules.game import Game

LONG_DIAGONAL = ("a1", "b2", "c3", "d4", "e5", "f6", "g7", "h8")

EIGHT = [
    "W:WKa1,Kc1,e3,g3:BKh8,b6,d6",
    "B:WKc1,Kb2,Ke1,Kb8:BKh8",
    "W:WKa1,Kb2,Kc1,e3:BKh6",
    "W:WKg1,Kb8,Kf8:BKe7,Kh8",
    "W:WKe1,a3,c3:BKd8,h6,f6",
    "B:WKa3,e1,g3:BKh8",
    "W:WKa1,Kb8,f4:BKh6,Kd8",
    "B:WKa1,c3:BKh6,f8",
    "W:WKa1,Kb8,Kh8:BKe1",
    "B:WKa1,Kh8,Kb8,Kf4:BKh6",
    "W:WKa1,Kb8:BKh6",
]
STARTS = {
    "russian": EIGHT,
    "brazilian": EIGHT,
    "pool": EIGHT,
    "english": ["B:WKa1,Kc1,a3,c3:BKh8,Kf8,h6,f6", "W:WKb2,Kd2:BKg7,Ke7", "B:WKa1,c3:BKh8,f6"],
    "international": [
        "W:WK47,31,35,36:BK4,11,15,16",
        "W:WK47,36,45:BK4",
        "B:WK47,31,35,28:BK4",
        "W:WK46,K47,K48:BK1,K2",
        "B:WK47,K1,33:BK4,18",
    ],
}


@dataclass(frozen=True)
class Material:
    men: int
    kings: int

    @property
    def pieces(self) -> int:
        return self.men + self.kings


def side(pos: Position, white: bool) -> Material:
    pieces = pos.white if white else pos.black
    kings = bin(pieces & pos.kings).count("1")
    return Material(bin(pieces).count("1") - kings, kings)


def lone_king_side(pos: Position) -> bool | None:
    """The colour (True = White) that has exactly one piece, a king, against a bigger force; for a
    king against a king, White (the caller decides whose moves count)."""
    for white in (False, True):
        mine, theirs = side(pos, white), side(pos, not white)
        if mine == Material(0, 1) and theirs.pieces >= 1:
            return white
    return None


# --- what each rule's text says about one position -----------------------------------------------
# (key, count): None when the condition does not hold; else the configuration (a change starts the
# count again) and whose moves count: "each", "either" (a king against a king), or a colour.


def three_kings(pos: Position, lone_squares: int, exactly: bool = False) -> tuple | None:
    lone = lone_king_side(pos)
    if lone is None:
        return None
    strong = side(pos, not lone)
    if strong.men or strong.kings < 3:  # kings and nothing else, three or more (FMJD-64 7.2.4)
        return None
    if exactly and strong.kings != 3:  # APCA: "3 kings v 1 king"
        return None
    return (strong.kings, lone), (not lone)


def long_diagonal(pos: Position, lone_squares: int) -> tuple | None:
    lone = lone_king_side(pos)
    if lone is None:
        return None
    strong = side(pos, not lone)
    lone_king = pos.white if lone else pos.black
    if strong.pieces != 3 or not strong.kings or not lone_king & lone_squares:
        return None
    return (strong.pieces, lone), (not lone)


def ending(pos: Position, sizes: range, each: bool) -> tuple | None:
    lone = lone_king_side(pos)
    if lone is None:
        return None
    strong = side(pos, not lone)
    if strong.pieces not in sizes or not strong.kings:
        return None
    if each:
        return (strong.pieces, lone), "each"
    return (strong.pieces, lone), ("either" if strong == Material(0, 1) else (not lone))


def no_progress(pos: Position) -> tuple | None:
    white, black = side(pos, True), side(pos, False)
    if not (white.kings and black.kings) or not 4 <= white.pieces + black.pieces <= 7:
        return None
    return (white, black), "each"


ENDINGS = {
    DrawRule.KINGS_3_VS_1_15: (15, three_kings),
    DrawRule.KINGS_3_VS_1_13: (13, lambda pos, sq: three_kings(pos, sq, exactly=True)),
    DrawRule.LONG_DIAGONAL_5: (5, long_diagonal),
    DrawRule.SMALL_ENDING_5: (5, lambda pos, sq: ending(pos, range(1, 3), each=False)),
    DrawRule.ENDING_16: (16, lambda pos, sq: ending(pos, range(3, 4), each=True)),
    DrawRule.ENDING_5: (5, lambda pos, sq: ending(pos, range(1, 3), each=True)),
    DrawRule.NO_PROGRESS_30_60: (None, lambda pos, sq: no_progress(pos)),
}
QUIET_KING_MOVES = {
    DrawRule.KING_MOVES_15: 15,
    DrawRule.KING_MOVES_20: 20,
    DrawRule.KING_MOVES_25: 25,
    DrawRule.FORTY_MOVES: 40,
}


def fires(rule: DrawRule, positions: list[Position], moves: list[Move], lone_squares: int) -> bool:
    """Whether `rule` ends the game in the last position of `positions`, counted from the history."""
    now = positions[-1]
    if rule is DrawRule.THREEFOLD:
        same = [p for p in positions if (p.white, p.black, p.kings, p.white_to_move) ==
                (now.white, now.black, now.kings, now.white_to_move)]
        return len(same) >= 3
    if rule in QUIET_KING_MOVES:
        # Walk back over the moves while each was a king's move without a capture.
        run = 0
        for before, move in zip(reversed(positions[:-1]), reversed(moves), strict=True):
            if move.capture_mask or not before.kings >> move.path[0] & 1:
                break
            run += 1
        return run >= 2 * QUIET_KING_MOVES[rule]  # N moves of each side
    moves_needed, condition = ENDINGS[rule]
    found = condition(now, lone_squares)
    if found is None:
        return False
    key, counted = found
    first = len(positions) - 1
    while first > 0:
        earlier = condition(positions[first - 1], lone_squares)
        if earlier is None or earlier[0] != key:
            break
        first -= 1
    if moves_needed is None:  # FMJD-64 7.2.6: 30 moves with 4-5 pieces, 60 with 6-7
        total = side(now, True).pieces + side(now, False).pieces
        moves_needed = 30 if total <= 5 else 60
    made = {True: 0, False: 0}
    for before in positions[first:-1]:
        made[before.white_to_move] += 1
    if counted == "each":
        return min(made.values()) >= moves_needed
    if counted == "either":
        return max(made.values()) >= moves_needed
    return made[counted] >= moves_needed


def expected_draw(game: Game, lone_squares: int) -> str | None:
    for rule in game.variant.draw_rules:
        if fires(rule, game.positions, game.moves, lone_squares):
            return rule.value
    return None


def choose(game: Game, rng: random.Random) -> Move:
    moves = game.legal_moves()
    if rng.random() < 0.85:
        quiet = [m for m in moves if not any(r.is_capture for r in game.position.play(m).legal_moves())]
        if quiet:
            return rng.choice(quiet)
    return rng.choice(moves)


def play_and_check(key: str, seed: int, fired: set[str]) -> None:
    variant = get_variant(key)
    rng = random.Random(f"{key}-{seed}")
    fen = rng.choice(STARTS[key])
    by_name = variant.board.by_name
    lone_squares = 0 if variant.board.size != 8 else sum(1 << by_name[n] for n in LONG_DIAGONAL)
    game = Game(variant, fen)
    while not game.is_over and game.ply < 400:
        game.play(choose(game, rng))
        if not game.position.legal_moves():
            continue  # a win: the game decides it before any draw rule
        expected = expected_draw(game, lone_squares)
        got = game.outcome.reason if game.outcome is not None and game.outcome.is_draw else None
        assert got == expected, (
            f"{key} from {fen}, seed {seed}: at ply {game.ply} expected {expected}, the game says {got}\n"
            f"{' '.join(game.notations())}"
        )
        if got:
            fired.add(got)


COUNTED = ["russian", "brazilian", "international", "english", "pool"]


@pytest.mark.parametrize("key", COUNTED)
def test_random_games_end_on_the_ply_the_draw_rules_name(key):
    fired: set[str] = set()
    for seed in range(40):
        play_and_check(key, seed, fired)
    assert fired - {DrawRule.THREEFOLD.value}, f"{key}: no counted draw rule ended any of the games"


@pytest.mark.slow
@pytest.mark.parametrize("key", COUNTED)
def test_many_random_games_end_on_the_ply_the_draw_rules_name(key):
    fired: set[str] = set()
    for seed in range(40, 1000):
        play_and_check(key, seed, fired)
    counted = {rule.value for rule in get_variant(key).draw_rules} - {DrawRule.THREEFOLD.value}
    assert fired >= counted - {DrawRule.NO_PROGRESS_30_60.value}, f"{key}: only {fired} fired"
