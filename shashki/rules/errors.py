"""Errors of the rules layer: each carries a machine-readable code and a message a player understands."""

from __future__ import annotations

from typing import Any


class RulesError(ValueError):
    """Base class: `code` for programs, `str(error)` for people."""

    code = "rules_error"

    def __init__(self, code: str, message: str) -> None:
        super().__init__(message)
        self.code = code
        self.message = message

    def __reduce__(self):
        # Errors cross process boundaries (the engine's pool): rebuild them from their fields.
        return (_rebuild, (type(self), dict(self.__dict__)))


class IllegalMove(RulesError):
    """A move that is not legal here, with the reason and the legal moves that bear on it.

    Codes: capture_required, capture_incomplete, king_landing, capture_precedence, man_backward,
    no_piece, not_your_piece, illegal_destination, ambiguous, malformed, game_over.
    """

    def __init__(self, code: str, message: str, legal: list[str] | None = None) -> None:
        super().__init__(code, message)
        self.legal = legal or []


class FenError(RulesError):
    """A FEN that cannot be read or describes an impossible position."""

    def __init__(self, message: str) -> None:
        super().__init__("bad_fen", message)


class PdnError(RulesError):
    """A PDN text that cannot be read, or a game in it with an illegal move."""

    def __init__(self, message: str, *, game_index: int | None = None, move_number: int | None = None,
                 code: str = "bad_pdn") -> None:
        super().__init__(code, message)
        self.game_index = game_index
        self.move_number = move_number


def _rebuild(cls: type[RulesError], state: dict[str, Any]) -> RulesError:
    error = cls.__new__(cls)
    RulesError.__init__(error, state.get("code", cls.code), state.get("message", ""))
    error.__dict__.update(state)
    return error
