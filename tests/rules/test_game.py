"""The Game (RULES.md §3): moves and history, how a game ends, and ends decided off the board.

The draw rules themselves are proved in test_draws.py; here: the win (no legal move loses, and wins in
giveaway), the win checked before any draw, `finish`, and the errors.
"""

from __future__ import annotations

import pickle
import random

import pytest

from shashki.rules import VARIANTS, Color, DrawRule, IllegalMove, Position, RulesError, get_variant
from shashki.rules.game import Game, Outcome

# --- Outcome -----------------------------------------------------------------------------------------


def test_outcome_results_name_the_winner_white_first():
    assert Outcome.win(Color.WHITE, "resignation") == Outcome("1-0", Color.WHITE, "resignation")
    assert Outcome.win(Color.BLACK, "time").result == "0-1"
    draw = Outcome.draw("agreement")
    assert (draw.result, draw.winner, draw.is_draw) == ("1/2-1/2", None, True)
    assert (Outcome.aborted().result, Outcome.aborted().reason) == ("*", "aborted")
    assert str(Outcome.win(Color.WHITE, "no-legal-move")) == "1-0 (no-legal-move)"


@pytest.mark.parametrize(
    "result, winner, reason",
    [("1-0", Color.BLACK, "time"), ("0-1", None, "time"), ("1/2-1/2", Color.WHITE, "agreement"),
     ("2-0", None, "time"), ("1-0", Color.WHITE, "")],
)
def test_outcome_refuses_a_result_that_contradicts_its_winner(result, winner, reason):
    with pytest.raises(ValueError):
        Outcome(result, winner, reason)


# --- Moves and history -------------------------------------------------------------------------------


def test_game_starts_from_the_default_variant_start_position():
    game = Game()
    assert game.variant.key == "russian-giveaway"
    assert game.start == game.position == Position.start(get_variant("russian-giveaway"))
    assert (game.positions, game.moves, game.ply) == ([game.start], [], 0)
    assert (game.outcome, game.is_over) == (None, False)
    assert game.counters == {DrawRule.THREEFOLD: 1}
    assert len(game.legal_moves()) == 7


def test_play_records_the_move_and_the_position():
    game = Game("russian")
    move = game.play("c3d4")
    assert move in Position.start(game.position.variant).legal_moves()
    assert game.moves == [move] and game.ply == 1
    assert game.positions == [game.start, game.start.play(move)]
    game.play(game.legal_moves()[0])
    assert game.notations() == ["c3-d4", game.moves[1].notation(game.variant)]


def test_play_takes_a_move_made_elsewhere_by_its_key_and_plays_the_games_own():
    game = Game("russian")
    elsewhere = Position.start(get_variant("russian")).parse_move("c3-d4")
    played = game.play(elsewhere)
    assert played.key == elsewhere.key
    assert any(played is m for m in game.start.legal_moves())


def test_replay_plays_a_list_of_moves():
    game = Game.replay(["c3-d4", "f6-g5", "d4-e5"], "russian")
    assert game.notations() == ["c3-d4", "f6-g5", "d4-e5"]
    assert game.ply == 3 and not game.is_over


def test_game_from_a_fen_or_a_position():
    fen = "W:WKc1:BKf8"
    game = Game("russian", fen)
    assert game.start == Position.from_fen(fen, "russian")
    assert Game("russian", game.start).start == game.start
    with pytest.raises(ValueError):
        Game("international", game.start)


def test_a_game_pickles_with_its_counters():
    # The engine's process pool and the server may send games between processes.
    game = Game.replay(["c1-d2", "f8-g7", "d2-c1"], "russian", "W:WKc1:BKf8")
    copy = pickle.loads(pickle.dumps(game))
    assert copy.notations() == game.notations() and copy.position == game.position
    assert copy.counters == game.counters
    copy.play("g7-f8")
    assert copy.counters[DrawRule.THREEFOLD] == 2


def test_double_diagonal_option_reaches_the_variant():
    assert Game("poddavki", double_diagonal=True).variant.double_diagonal
    assert not Game("poddavki").variant.double_diagonal
    assert DrawRule.DOUBLE_DIAGONAL in Game(double_diagonal=True).counters


@pytest.mark.parametrize(
    "move, code",
    [("c3-c4", "malformed"), ("c3-b4-a5", "illegal_destination"), ("f6-g5", "not_your_piece"),
     ("d4-e5", "no_piece"), ("c3", "malformed")],
)
def test_illegal_moves_are_refused_and_change_nothing(move, code):
    game = Game("russian")
    with pytest.raises(IllegalMove) as refused:
        game.play(move)
    assert refused.value.code == code
    assert (game.ply, game.positions) == (0, [game.start])


def test_a_move_object_that_is_not_legal_is_refused_with_the_reason():
    game = Game("russian", "W:Wc3,a3:Bd4")  # capture is compulsory (RULES.md §2.3)
    quiet = Position.start(get_variant("russian")).parse_move("a3-b4")
    with pytest.raises(IllegalMove) as refused:
        game.play(quiet)
    assert refused.value.code == "capture_required"
    with pytest.raises(IllegalMove) as refused:
        game.play(42)  # type: ignore[arg-type]
    assert refused.value.code == "malformed"
    assert game.ply == 0


# --- The win: no legal move (RULES.md §3) --------------------------------------------------------------

BLOCKED = "W:Wh2:Bg3,f4"  # RULES.md §7: White to move has no move


def assert_won_by_no_legal_move(game: Game, result: str) -> None:
    winner = Color.WHITE if result == "1-0" else Color.BLACK
    assert game.outcome == Outcome(result, winner, "no-legal-move"), (
        f"no-legal-move in {game.variant.key}: expected {result}, got {game.outcome}"
    )


@pytest.mark.parametrize("variant, result", [("russian", "0-1"), ("russian-giveaway", "1-0")])
def test_a_game_from_a_fen_without_a_legal_move_is_over_at_once(variant, result):
    game = Game(variant, BLOCKED)
    assert_won_by_no_legal_move(game, result)
    assert game.legal_moves() == []


@pytest.mark.parametrize("variant, result", [("russian", "0-1"), ("russian-giveaway", "1-0")])
def test_a_move_that_blocks_the_opponent_ends_the_game(variant, result):
    game = Game(variant, "B:Wh2:Bg3,e5")
    game.play("e5-f4")  # RULES.md §7's blocked position, White to move
    assert_won_by_no_legal_move(game, result)


@pytest.mark.parametrize("variant, result", [("russian", "0-1"), ("russian-giveaway", "1-0")])
def test_losing_all_pieces_wins_in_giveaway_and_loses_otherwise(variant, result):
    # RULES.md §7 "kings, sacrifice wins": after g1-d4 Black must capture, and White has no piece left.
    game = Game(variant, "W:WKg1:BKe5")
    assert len(game.legal_moves()) == 7
    game.play("g1-d4")
    assert game.outcome is None, "Black still has a move (the compulsory capture)"
    game.play(game.legal_moves()[0])
    assert game.position.white == 0
    assert_won_by_no_legal_move(game, result)


def test_capturing_the_last_piece_wins_in_russian():
    game = Game.replay(["e5:c3"], "russian", "B:Wd4:BKe5,a7")
    assert game.outcome == Outcome.win(Color.BLACK, "no-legal-move")


# --- The win comes before any draw rule --------------------------------------------------------------

# Russian: White's king walks a1-h8-g7-h6-f8-a3-c1-d2-e1-a5-d8-h4-e7-c5-a7 while Black's king shuttles
# g1-h2. After 29 plies of king moves, White's 15th king move a7-g1 is the 30th ply (FMJD-64 7.2.5,
# KING_MOVES_15) and it also shuts Black's king in on h2 (g1 taken, g3 guarded by f4).
KING_WALK = "B:WKa1,g3,f4:BKg1"
WHITE_KING_PATH = ["a1", "h8", "g7", "h6", "f8", "a3", "c1", "d2", "e1", "a5", "d8", "h4", "e7", "c5", "a7"]


def _king_walk() -> list[str]:
    moves = []
    black = ["g1", "h2"]
    for i, (frm, to) in enumerate(zip(WHITE_KING_PATH, WHITE_KING_PATH[1:], strict=False)):
        moves += [f"{black[i % 2]}-{black[(i + 1) % 2]}", f"{frm}-{to}"]
    return moves + ["g1-h2"]


def test_the_win_is_checked_before_the_draw_rules():
    game = Game.replay(_king_walk(), "russian", KING_WALK)
    assert game.ply == 29 and game.outcome is None
    assert game.counters[DrawRule.KING_MOVES_15] == 29
    game.play("a7-g1")
    assert game.counters[DrawRule.KING_MOVES_15] == 30, "the 15-king-move rule holds too"
    assert game.outcome == Outcome.win(Color.WHITE, "no-legal-move"), (
        f"a win must come before a draw rule: got {game.outcome}"
    )


def test_the_same_30th_king_move_without_the_block_is_a_draw():
    game = Game.replay(_king_walk() + ["a7-b8"], "russian", KING_WALK)
    assert game.outcome == Outcome.draw(DrawRule.KING_MOVES_15.value)


# --- Ends decided off the board ---------------------------------------------------------------------


def test_finish_records_an_outcome_decided_off_the_board():
    game = Game("russian")
    game.play("c3-d4")
    game.finish(Outcome.win(Color.WHITE, "resignation"))
    assert game.is_over and game.outcome.reason == "resignation"
    assert game.legal_moves() == []


def test_no_move_is_played_once_the_game_is_over():
    game = Game("russian")
    game.finish(Outcome.draw("agreement"))
    with pytest.raises(IllegalMove) as refused:
        game.play("c3-d4")
    assert refused.value.code == "game_over"
    over = Game("russian", BLOCKED)
    with pytest.raises(IllegalMove) as refused:
        over.play("h2-g3")
    assert refused.value.code == "game_over"


def test_finish_refuses_a_game_already_over():
    game = Game("russian")
    game.finish(Outcome.aborted())
    with pytest.raises(RulesError) as refused:
        game.finish(Outcome.win(Color.BLACK, "time"))
    assert refused.value.code == "game_over"
    assert game.outcome == Outcome.aborted()
    over = Game("russian", BLOCKED)
    with pytest.raises(RulesError):
        over.finish(Outcome.draw("agreement"))
    assert over.outcome.reason == "no-legal-move"
    with pytest.raises(TypeError):
        Game().finish("1-0")  # type: ignore[arg-type]


# --- Random games against a plain reference ---------------------------------------------------------


@pytest.mark.parametrize("key", sorted(VARIANTS))
def test_random_games_end_as_a_plain_reading_of_the_rules_says(key):
    """No legal move and threefold repetition checked from the whole history, ply by ply."""
    variant = get_variant(key)
    rng = random.Random(key)
    kings = "W:WK29,K30,K31:BK1,K2,K3" if variant.board.size == 8 else "W:WK46,K47,K48:BK1,K2,K3"
    for fen in (None, kings):
        for _ in range(3):
            game = Game(variant, fen)
            history = [game.position]
            while not game.is_over and game.ply < 150:
                game.play(rng.choice(game.legal_moves()))
                history.append(game.position)
                pos = game.position
                repeated = sum(p == pos for p in history)
                if not pos.legal_moves():
                    mover = pos.side_to_move
                    expected = Outcome.win(mover if variant.giveaway else mover.other, "no-legal-move")
                    assert game.outcome == expected, f"{key}: no-legal-move at ply {game.ply}: {game.outcome}"
                elif repeated >= 3:
                    assert game.outcome is not None, f"{key}: threefold-repetition missed at ply {game.ply}"
                else:
                    counted = game.counters[DrawRule.THREEFOLD]
                    assert counted == repeated, f"{key}: threefold-repetition counted {counted} at {game.ply}"
                    if variant.giveaway:
                        assert game.outcome is None, f"{key}: ended at ply {game.ply}: {game.outcome}"
            assert game.positions == history


def test_a_copy_plays_on_by_itself():
    # Kings shuffling: the repetition count of the copy goes on from the game's, and neither changes
    # the other.
    game = Game.replay(["a1-b2", "h2-g1", "b2-a1", "g1-h2"], "russian", "W:WKa1:BKh2")
    copy = game.copy()
    for move in ("a1-b2", "h2-g1", "b2-a1", "g1-h2"):
        copy.play(move)
    assert copy.outcome is not None and copy.outcome.reason == "threefold-repetition"
    assert game.outcome is None and game.ply == 4 and len(game.positions) == 5
    game.play("a1-b2")
    assert copy.ply == 8 and copy.moves[4].notation(copy.variant) == "a1-b2"
