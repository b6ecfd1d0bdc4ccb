"""A second move generator, written to be read rather than to be fast, to check the real one against.

It implements RULES.md §2 and §4 straight from the text for every variant, and shares no code with
`shashki.rules.position`: it reads only the rule parameters of a `Variant`. The board is a dict from
(row, col) to a `Piece`; row 0 is Black's back row (the top), column 0 is file a, and White moves
towards row 0. Every square reached by a diagonal step from a dark square is dark, so the dict never
needs to know which squares are light.

`routes()` returns every legal capture route (or every quiet move when there is no capture), so that
both perft conventions can be checked: "all paths" compares routes, "distinct" compares `identity`.

    >>> from shashki.rules import get_variant
    >>> rules = ReferenceRules(get_variant("russian"))
    >>> board = {(7, 0): Piece(WHITE, king=True), (5, 2): Piece(BLACK), (4, 5): Piece(BLACK)}
    >>> sorted(route.path for route in rules.routes(board, WHITE))   # W:WKa1:Bc3,f4, the landing rule
    [((7, 0), (3, 4), (5, 6)), ((7, 0), (3, 4), (6, 7))]
"""

from __future__ import annotations

from dataclasses import dataclass

from shashki.rules.variant import Precedence, PromotionInCapture, Variant

WHITE = "white"
BLACK = "black"

Square = tuple[int, int]

# The four diagonal directions as (row step, column step). White's forward is row - 1.
DIAGONALS: tuple[Square, ...] = ((-1, -1), (-1, 1), (1, -1), (1, 1))


@dataclass(frozen=True)
class Piece:
    color: str
    king: bool = False


@dataclass(frozen=True)
class Route:
    """One way to play a move: the squares landed on (start first) and the pieces taken, in order."""

    path: tuple[Square, ...]
    captured: tuple[Square, ...]
    promotes: bool  # a man ends the move as a king
    by_king: bool  # the moving piece was a king when the move began (Italian precedence)
    kings_taken: tuple[bool, ...]  # for each captured piece, whether it was a king (Italian precedence)

    @property
    def identity(self) -> tuple[Square, Square, frozenset[Square], bool]:
        """Two routes are one move when they give the same position (RULES.md §2.10)."""
        return (self.path[0], self.path[-1], frozenset(self.captured), self.promotes)


def other(color: str) -> str:
    return BLACK if color == WHITE else WHITE


class ReferenceRules:
    """The move rules of one variant, read from its parameters."""

    def __init__(self, variant: Variant) -> None:
        self.size = variant.board_size
        self.men_capture_backward = variant.men_capture_backward
        self.flying_kings = variant.flying_kings
        self.precedence = variant.precedence
        self.promotion_in_capture = variant.promotion_in_capture
        self.men_capture_kings = variant.men_capture_kings

    # ------------------------------------------------------------------------------------------
    # Geometry

    def on_board(self, square: Square) -> bool:
        row, col = square
        return 0 <= row < self.size and 0 <= col < self.size

    def forward(self, color: str) -> int:
        return -1 if color == WHITE else 1

    def promotion_row(self, color: str) -> int:
        return 0 if color == WHITE else self.size - 1

    def man_directions(self, color: str, capturing: bool) -> list[Square]:
        if capturing and self.men_capture_backward:
            return list(DIAGONALS)
        return [(dr, dc) for dr, dc in DIAGONALS if dr == self.forward(color)]

    # ------------------------------------------------------------------------------------------
    # Moves

    def routes(self, board: dict[Square, Piece], color: str) -> list[Route]:
        """Every legal route: the captures the precedence rule allows, else every quiet move."""
        captures = []
        for square, piece in board.items():
            if piece.color == color:
                captures.extend(self.piece_captures(board, square))
        if captures:  # capture is compulsory (§2.3)
            return self.apply_precedence(captures)
        return self.quiet_moves(board, color)

    def legal_moves(self, board: dict[Square, Piece], color: str) -> list[Route]:
        """One route per distinct move (same start, end, captured set and promotion: §2.10)."""
        distinct: dict[tuple, Route] = {}
        for route in self.routes(board, color):
            distinct.setdefault(route.identity, route)
        return list(distinct.values())

    def quiet_moves(self, board: dict[Square, Piece], color: str) -> list[Route]:
        moves = []
        for (row, col), piece in board.items():
            if piece.color != color:
                continue
            if piece.king:
                for dr, dc in DIAGONALS:
                    # A flying king goes any number of empty squares; a short king one (§2.2, §4).
                    to = (row + dr, col + dc)
                    while self.on_board(to) and to not in board:
                        moves.append(Route(((row, col), to), (), False, True, ()))
                        if not self.flying_kings:
                            break
                        to = (to[0] + dr, to[1] + dc)
            else:
                for dr, dc in self.man_directions(color, capturing=False):
                    to = (row + dr, col + dc)
                    if self.on_board(to) and to not in board:
                        promotes = to[0] == self.promotion_row(color)
                        moves.append(Route(((row, col), to), (), promotes, False, ()))
        return moves

    def piece_captures(self, board: dict[Square, Piece], start: Square) -> list[Route]:
        """Every complete capture route of the piece on `start`, landing rule included."""
        mover = board[start]
        # The mover's own start square is empty during its move; the pieces it takes stay on the
        # board until the move ends, blocking and unjumpable (Turkish strike, §2.8).
        board = {square: piece for square, piece in board.items() if square != start}
        routes: list[Route] = []

        def finish(path: tuple[Square, ...], captured: tuple[Square, ...], king_now: bool) -> None:
            end_row = path[-1][0]
            promotes = not mover.king and (king_now or end_row == self.promotion_row(mover.color))
            kinds = tuple(board[square].king for square in captured)
            routes.append(Route(path, captured, promotes, mover.king, kinds))

        def extend(square: Square, king_now: bool, path: tuple[Square, ...], captured: tuple[Square, ...]):
            jumps = self.jumps(board, square, mover.color, king_now, captured)
            if not jumps:
                if captured:
                    finish(path, captured, king_now)
                return
            for over, landings in jumps:
                taken = captured + (over,)
                if king_now and self.flying_kings:
                    # Landing rule (§2.5): if the capture can go on from some of the squares behind
                    # the piece, the king must land on one of them.
                    going_on = [
                        land for land in landings if self.jumps(board, land, mover.color, True, taken)
                    ]
                    if going_on:
                        landings = going_on
                for land in landings:
                    here = path + (land,)
                    if not king_now and land[0] == self.promotion_row(mover.color):
                        how = self.promotion_in_capture
                        if how is PromotionInCapture.STOP:
                            finish(here, taken, False)  # the move ends, the man is crowned
                        elif how is PromotionInCapture.CONTINUE_AS_KING:
                            extend(land, True, here, taken)  # crowned at once, goes on as a king
                        else:
                            extend(land, False, here, taken)  # passes as a man
                    else:
                        extend(land, king_now, here, taken)

        extend(start, mover.king, (start,), ())
        return routes

    def jumps(
        self, board: dict[Square, Piece], square: Square, color: str, king: bool, captured: tuple[Square, ...]
    ) -> list[tuple[Square, list[Square]]]:
        """The single captures from `square`: (the piece jumped, the squares one may land on)."""
        found = []
        directions = list(DIAGONALS) if king else self.man_directions(color, capturing=True)
        for dr, dc in directions:
            target = (square[0] + dr, square[1] + dc)
            if king and self.flying_kings:
                while self.on_board(target) and target not in board:
                    target = (target[0] + dr, target[1] + dc)
            if not self.on_board(target) or target not in board:
                continue
            victim = board[target]
            if victim.color == color or target in captured:
                continue  # own piece, or a piece already taken (it cannot be jumped twice)
            if victim.king and not king and not self.men_capture_kings:
                continue  # Italian men cannot capture kings
            landings = []
            land = (target[0] + dr, target[1] + dc)
            while self.on_board(land) and land not in board:
                landings.append(land)
                if not (king and self.flying_kings):
                    break
                land = (land[0] + dr, land[1] + dc)
            if landings:
                found.append((target, landings))
        return found

    # ------------------------------------------------------------------------------------------
    # Which captures may be chosen

    def apply_precedence(self, routes: list[Route]) -> list[Route]:
        if self.precedence is Precedence.FREE:
            return routes  # free choice (§2.7)
        # Quantity (Brazilian, International, and Italian's first criterion): the most pieces, a king
        # counting one.
        most = max(len(route.captured) for route in routes)
        routes = [route for route in routes if len(route.captured) == most]
        if self.precedence is Precedence.QUANTITY:
            return routes
        # Italian (FID), in order: capture with a king rather than a man; take the most kings; take a
        # king earlier, comparing the sequences capture by capture.
        if any(route.by_king for route in routes):
            routes = [route for route in routes if route.by_king]
        most_kings = max(sum(route.kings_taken) for route in routes)
        routes = [route for route in routes if sum(route.kings_taken) == most_kings]
        earliest = max(route.kings_taken for route in routes)
        return [route for route in routes if route.kings_taken == earliest]


def apply_route(board: dict[Square, Piece], route: Route) -> dict[Square, Piece]:
    """The board after a route: the captured pieces leave only now, the man may be crowned."""
    after = dict(board)
    piece = after.pop(route.path[0])
    for square in route.captured:
        del after[square]
    after[route.path[-1]] = Piece(piece.color, piece.king or route.promotes)
    return after


def perft(rules: ReferenceRules, board: dict[Square, Piece], color: str, depth: int, all_paths: bool = False):
    """Leaves of the move tree at `depth` plies (RULES.md §6), every route counted when all_paths."""
    if depth == 0:
        return 1
    routes = rules.routes(board, color) if all_paths else rules.legal_moves(board, color)
    if depth == 1:
        return len(routes)
    return sum(perft(rules, apply_route(board, r), other(color), depth - 1, all_paths) for r in routes)
