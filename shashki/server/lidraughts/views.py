"""lidraughts' JSON of challenges, games and accounts, built from what the domain services answer.

Shapes follow lidraughts' modules/bot/JsonView (gameFull, gameState), modules/challenge/JsonView and the
event stream's gameStart/gameFinish objects (lichess's `nowPlaying` entries).
"""

from __future__ import annotations

from typing import Any

from shashki.server.accounts import AccountService
from shashki.server.accounts.models import User
from shashki.server.errors import NotFound
from shashki.server.games.service import GameService
from shashki.server.lidraughts.facts import WHITE, GameFacts, StateView, facts, other
from shashki.server.lidraughts.moves import MoveStrings
from shashki.server.lidraughts.shapes import (
    CHALLENGE_STATUS,
    NO_CLOCK_MS,
    STATUS_IDS,
    camel,
    speed_title,
    status_name,
    time_control_json,
    user_json,
    variant_json,
)
from shashki.server.lobby import DECLINE_REASONS
from shashki.server.lobby.models import Challenge
from shashki.server.ratings import RatingService, speed_of

Json = dict[str, Any]


def start_fen(game: GameFacts, fen_of_start: str) -> str:
    """lidraughts' `initialFen`: "startpos", or the FEN the game starts from. A variant whose first
    mover is Black (English, Pool) shows its start FEN: clients (pydraughts) take "startpos" as White to
    move."""
    if game.initial_fen:
        return game.initial_fen
    return "startpos" if fen_of_start.startswith("W") else fen_of_start


def has_moved(moves: MoveStrings, color: str) -> bool:
    """Whether the player has made a move: the first of the game, or the second, by who moved first (Black
    in English and Pool, or the side to move of a set-up position)."""
    first = moves.game.start.side_to_move.value
    return moves.played > (0 if color == first else 1)


def seconds_left(game: GameFacts, state: StateView, color: str) -> int | None:
    """lidraughts' `secondsLeft`: the player's clock; in a correspondence game the time left of their days,
    all of them while it is not their turn; none in a game without either."""
    if state.clocks is not None:
        return int(getattr(state.clocks, f"{color}_ms") // 1000)
    if game.days_per_move is None:
        return None
    if state.side_to_move == color and state.days_remaining_ms is not None:
        return state.days_remaining_ms // 1000
    return game.days_per_move * 86_400


class Views:
    def __init__(self, games: GameService, ratings: RatingService, accounts: AccountService) -> None:
        self.games = games
        self.ratings = ratings
        self.accounts = accounts

    async def users(self, ids: list[int | None]) -> dict[int, User]:
        return await self.accounts.users_by_id({i for i in ids if i is not None})

    async def challenge_json(self, challenge: Challenge) -> Json:
        dest_id = challenge.dest_user_id
        if dest_id is None:  # a challenge by link (lobby/links.py) is not the Bot API's
            raise NotFound("no_such_challenge", "There is no such challenge.")
        ids = [challenge.challenger_id, dest_id]
        users = await self.users(list(ids))
        speed = speed_of(challenge.clock_initial_ms, challenge.clock_increment_ms)
        ratings = await self.ratings.for_players(list(ids), challenge.variant, speed)
        out: Json = {
            "id": str(challenge.id),
            "status": CHALLENGE_STATUS.get(challenge.status, challenge.status),
            "challenger": user_json(users[challenge.challenger_id], ratings[challenge.challenger_id]),
            "destUser": user_json(users[dest_id], ratings[dest_id]),
            "variant": variant_json(challenge.variant, challenge.initial_fen),
            "rated": challenge.rated,
            "speed": speed,
            "timeControl": time_control_json(
                challenge.clock_initial_ms, challenge.clock_increment_ms, challenge.days_per_move
            ),
            "color": challenge.color,
            "perf": {"icon": "", "name": speed_title(speed)},
        }
        if challenge.initial_fen:
            out["initialFen"] = challenge.initial_fen
        if challenge.status == "declined":
            reason = challenge.decline_reason if challenge.decline_reason in DECLINE_REASONS else "generic"
            out["declineReasonKey"] = camel(reason)
            out["declineReason"] = DECLINE_REASONS[reason]
        if challenge.game_id:
            out["gameId"] = challenge.game_id
        return out

    async def rematch_json(self, game_id: str, offerer_id: int, status: str = "created",
                           reason: str | None = None) -> Json:
        """A rematch offer shown as a challenge, as lidraughts does: its id is the finished game's; a
        declined one with its reason, as a challenge's (found by an audit: it came without)."""
        game = facts(await self.games.live(game_id))
        offerer_color = game.color_of(offerer_id) or WHITE
        dest_id = game.seat(other(offerer_color))
        users = await self.users([offerer_id, dest_id])
        speed = speed_of(game.clock_initial_ms, game.clock_increment_ms)
        ratings = await self.ratings.for_players([offerer_id, dest_id], game.variant, speed)
        out: Json = {
            "id": game_id,
            "status": status,
            "challenger": user_json(users[offerer_id], ratings[offerer_id]),
            "destUser": user_json(users[dest_id], ratings[dest_id]) if dest_id in users else None,
            "variant": variant_json(game.variant, game.initial_fen),
            "rated": game.rated,
            "speed": speed,
            "timeControl": time_control_json(
                game.clock_initial_ms, game.clock_increment_ms, game.days_per_move
            ),
            "color": other(offerer_color),  # the colours swap
            "perf": {"icon": "", "name": speed_title(speed)},
            "rematchOf": game_id,
        }
        if status == "declined":
            reason = reason if reason in DECLINE_REASONS else "generic"
            out["declineReasonKey"] = camel(reason)
            out["declineReason"] = DECLINE_REASONS[reason]
        return out

    @staticmethod
    def state_json(state: StateView, strings: list[str]) -> Json:
        clocks = state.clocks
        out: Json = {
            "type": "gameState",
            "moves": " ".join(strings),
            "wtime": clocks.white_ms if clocks else NO_CLOCK_MS,
            "btime": clocks.black_ms if clocks else NO_CLOCK_MS,
            "winc": clocks.white_increment_ms if clocks else 0,
            "binc": clocks.black_increment_ms if clocks else 0,
            "wdraw": state.draw_offer == "white",
            "bdraw": state.draw_offer == "black",
            "wtakeback": state.takeback_offer == "white",  # lichess's names (games/takeback.py)
            "btakeback": state.takeback_offer == "black",
            "status": status_name(state.status, state.reason),
        }
        if state.winner:
            out["winner"] = state.winner
        if state.rematch_id:
            out["rematch"] = state.rematch_id
        return out

    async def players_json(self, game: GameFacts) -> Json:
        speed = speed_of(game.clock_initial_ms, game.clock_increment_ms)
        ratings = await self.ratings.for_players([game.white_id, game.black_id], game.variant, speed)
        users = await self.users([game.white_id, game.black_id])
        out: Json = {}
        for color in ("white", "black"):
            user_id = game.seat(color)
            if user_id is None:
                out[color] = {"aiLevel": game.computer_level}
            else:
                out[color] = user_json(users[user_id], ratings[user_id])
        return out

    async def game_full(self, game: GameFacts, state: StateView, moves: MoveStrings) -> Json:
        speed = speed_of(game.clock_initial_ms, game.clock_increment_ms)
        clock = None
        if game.clock_initial_ms is not None:
            clock = {"initial": game.clock_initial_ms, "increment": game.clock_increment_ms}
        return {
            "type": "gameFull",
            "id": game.id,
            "variant": variant_json(game.variant, game.initial_fen),
            "clock": clock,
            **({"daysPerTurn": game.days_per_move} if game.days_per_move is not None else {}),
            "speed": speed,
            "perf": {"name": speed_title(speed)},
            "rated": game.rated,
            "createdAt": int(game.created_at.timestamp() * 1000),
            **await self.players_json(game),
            "initialFen": start_fen(game, moves.game.start.fen()),
            "state": self.state_json(state, moves.update(state.moves)),
        }

    async def game_event(self, state: StateView, user_id: int) -> Json:
        """A game as the event stream's gameStart and gameFinish show it, from one player's side."""
        game = facts(await self.games.live(state.id))
        color = game.color_of(user_id) or WHITE
        opponent_id = game.seat(other(color))
        speed = speed_of(game.clock_initial_ms, game.clock_increment_ms)
        moves = MoveStrings(game.variant, game.double_diagonal, game.initial_fen)
        moves.update(state.moves)
        opponent: Json
        if opponent_id is None:
            level = game.computer_level
            opponent = {"id": None, "username": f"Computer level {level}", "ai": level}
        else:
            user = (await self.users([opponent_id]))[opponent_id]
            rating = (await self.ratings.for_players([opponent_id], game.variant, speed))[opponent_id]
            opponent = {"id": user.username_key, "username": user.username, "rating": rating["rating"]}
        status = status_name(state.status, state.reason)
        out: Json = {
            "id": game.id,
            "gameId": game.id,
            "fullId": game.id,
            "color": color,
            "fen": state.fen,
            "hasMoved": has_moved(moves, color),
            "isMyTurn": state.status == "started" and state.side_to_move == color,
            "lastMove": moves.last,
            "opponent": opponent,
            "perf": speed,
            "rated": game.rated,
            "secondsLeft": seconds_left(game, state, color),
            "source": "friend",
            "speed": speed,
            "status": {"id": STATUS_IDS.get(status, 38), "name": status},
            "variant": variant_json(game.variant, game.initial_fen),
            "compat": {"bot": True, "board": True},
        }
        if state.winner:
            out["winner"] = state.winner
        return out

    async def account(self, user: User) -> Json:
        """The account in lidraughts' shape (`/api/account` adds these fields to its own answer)."""
        perfs = {
            f"{r['variant']}.{r['speed']}": {
                "games": r["games"],
                "rating": r["rating"],
                "rd": r["deviation"],
                "prog": 0,
                "prov": r["provisional"],
            }
            for r in await self.ratings.of_user(user.id)
        }
        return {
            "id": user.username_key,
            "username": user.username,
            "title": "BOT" if user.is_bot else None,
            "createdAt": int(user.created_at.timestamp() * 1000),
            "perfs": perfs,
        }
