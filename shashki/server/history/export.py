"""A stored game as PDN and as JSON (lidraughts' shapes), rebuilt from its record and its moves.

The PDN is written by `shashki.rules.pdn.write_game` from the game replayed through the rules, so that
`shashki pdn check` replays it to the same end: a game the rules ended carries their outcome, a game
ended off the board (resignation, time, agreement, abandonment) its recorded result, a game in progress
`*`. Tags follow lidraughts' exports: Event, Site, Date, Round, White, Black, Result, UTCDate, UTCTime,
WhiteElo, BlackElo and the rating changes of rated games, TimeControl, Termination, then GameType and
Variant (and Options, FEN) from `write_game`.
"""

from __future__ import annotations

from collections.abc import Mapping
from datetime import datetime

from shashki.rules import Color
from shashki.rules.pdn import write_game
from shashki.server.accounts.models import User
from shashki.server.games.models import GameRecord, GameStatus
from shashki.server.games.replay import replay
from shashki.server.lidraughts import speed_title, status_name, user_json, variant_json
from shashki.server.ratings.speed import speed_of

# The Termination tag as lidraughts' (and lichess's) PDN has it, by the game's status: a game lost on time
# or by leaving it (status `timeout`: the opponent claimed the win) is a "Time forfeit", an aborted one
# "Abandoned", a game still going on "Unterminated", any other end "Normal".
TERMINATION = {"time": "Time forfeit", "abandonment": "Time forfeit"}


def ms(moment: datetime | None) -> int | None:
    return None if moment is None else int(moment.timestamp() * 1000)


def player_name(record: GameRecord, color: Color, users: dict[int, User]) -> str:
    user_id = record.player_id(color)
    if user_id is None:
        return f"Computer level {record.computer_level}"
    return users[user_id].username


def time_control(record: GameRecord) -> str:
    if record.clock_initial_ms is None:
        return "-"
    return f"{record.clock_initial_ms // 1000}+{record.clock_increment_ms // 1000}"


def clock_comment(ms: int) -> str:
    """A move's clock as the PGN standard's supplement writes it (`[%clk H:MM:SS]`, lichess's and
    lidraughts' too): the time its player had left once it was made.

    >>> clock_comment(178_950), clock_comment(3_723_000)
    ('[%clk 0:02:58]', '[%clk 1:02:03]')
    """
    seconds = max(0, ms) // 1000
    return f"[%clk {seconds // 3600}:{seconds // 60 % 60:02d}:{seconds % 60:02d}]"


def with_clocks(clocks: list[int | None], comments: Mapping[int, str] | None) -> dict[int, str]:
    """Each timed move's clock comment, before the comment it had (the computer's analysis)."""
    out = dict(comments or {})
    for ply, ms in enumerate(clocks):
        if ms is not None:
            out[ply] = f"{clock_comment(ms)} {out[ply]}" if ply in out else clock_comment(ms)
    return out


def pdn(
    record: GameRecord,
    notations: list[str],
    users: dict[int, User],
    *,
    site: str,
    comments: Mapping[int, str] | None = None,
) -> str:
    speed = speed_of(record.clock_initial_ms, record.clock_increment_ms)
    kind = "Rated" if record.rated else "Casual"
    speed = speed_title(speed)
    started = record.created_at
    tags = {
        "Event": f"{kind} {speed} game",
        "Site": site,
        "Date": started.strftime("%Y.%m.%d"),
        "Round": "-",
        "White": player_name(record, Color.WHITE, users),
        "Black": player_name(record, Color.BLACK, users),
        "UTCDate": started.strftime("%Y.%m.%d"),
        "UTCTime": started.strftime("%H:%M:%S"),
    }
    if record.white_rating is not None:
        tags["WhiteElo"] = str(record.white_rating)
        tags["BlackElo"] = str(record.black_rating)
        tags["WhiteRatingDiff"] = f"{record.white_rating_diff:+d}"
        tags["BlackRatingDiff"] = f"{record.black_rating_diff:+d}"
    tags["TimeControl"] = time_control(record)
    if record.status == GameStatus.STARTED:
        tags["Termination"] = "Unterminated"
    elif record.status == GameStatus.ABORTED:
        tags["Termination"] = "Abandoned"
    else:
        tags["Termination"] = TERMINATION.get(record.reason or "", "Normal")
    return write_game(replay(record, notations), tags, comments)


def game_json(
    record: GameRecord, notations: list[str] | None, users: dict[int, User], *, ratings: dict | None = None
) -> dict:
    """lidraughts' GameJson: players with ratings and rating changes, status, winner, moves, clock.

    Our own fields follow: `variant_key` (our variant key), `result`, `reason`, `ply`, `initialFen`.
    """

    def player(color: Color) -> dict:
        user_id = record.player_id(color)
        if user_id is None:
            return {"aiLevel": record.computer_level}
        out: dict = {"user": user_json(users[user_id])}
        rating = getattr(record, f"{color.value}_rating")
        if rating is not None:
            out["rating"] = rating
            out["ratingDiff"] = getattr(record, f"{color.value}_rating_diff")
            if getattr(record, f"{color.value}_provisional"):  # as lichess writes it: only when true
                out["provisional"] = True
        elif ratings and user_id in ratings:
            out["rating"] = ratings[user_id]["rating"]
            out["provisional"] = ratings[user_id]["provisional"]
        return out

    speed = speed_of(record.clock_initial_ms, record.clock_increment_ms)
    out: dict = {
        "id": record.id,
        "rated": record.rated,
        "variant": variant_json(record.variant)["key"],
        "variant_key": record.variant,
        "double_diagonal": record.double_diagonal,
        "speed": speed,
        "perf": speed,
        "createdAt": ms(record.created_at),
        "lastMoveAt": ms(record.finished_at or record.turn_started_at),
        "status": status_name(record.status, record.reason),
        "players": {"white": player(Color.WHITE), "black": player(Color.BLACK)},
        "result": record.result,
        "reason": record.reason,
        "ply": record.ply,
    }
    if record.winner is not None:
        out["winner"] = record.winner.value
    if notations is not None:
        out["moves"] = " ".join(notations)
    if record.initial_fen:
        out["initialFen"] = record.initial_fen
    if record.clock_initial_ms is not None:
        initial, increment = record.clock_initial_ms // 1000, record.clock_increment_ms // 1000
        out["clock"] = {"initial": initial, "increment": increment, "totalTime": initial + 40 * increment}
    return out
