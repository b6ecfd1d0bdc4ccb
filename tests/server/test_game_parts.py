"""The parts of the games service on their own, without a server: the storage of outcomes, the state
view, the store's listeners, and moves handed over as rules moves (as the Bot API adapter does)."""

from __future__ import annotations

import asyncio
from datetime import UTC, datetime

import pytest

from shashki.rules import Color, Outcome
from shashki.rules.game import AGREEMENT, RESIGNATION, TIME
from shashki.server.accounts.models import User
from shashki.server.errors import Conflict
from shashki.server.games.computer import RandomOpponent
from shashki.server.games.live import LiveGame
from shashki.server.games.models import GameRecord, GameStatus, outcome_columns, stored_outcome
from shashki.server.games.replay import replay
from shashki.server.games.service import GameService
from shashki.server.games.terms import GameTerms
from shashki.server.redisbus import make_bus
from shashki.server.storage import Database

NOW = datetime(2026, 1, 1, tzinfo=UTC)

STATE_KEYS = {
    "id", "seq", "variant", "double_diagonal", "rated", "status", "white", "black", "ply", "side_to_move",
    "fen", "initial_fen", "moves", "legal_moves", "clocks", "draw_offer", "result", "winner", "reason",
    "mover_disconnected_ms", "claim_victory_after_ms", "rating_diffs", "rematch", "correspondence",
    "tournament", "simul", "first_move_ms", "takeback_offer", "takeback_declined", "draw_again_at",
}  # fmt: skip


def record(**columns) -> GameRecord:
    defaults = dict(
        id="g1",
        variant="russian-giveaway",
        double_diagonal=False,
        white_id=1,
        black_id=2,
        rated=False,
        clock_initial_ms=None,
        clock_increment_ms=0,
        turn_started_at=NOW,
        created_at=NOW,
        ply=0,
        version=1,
        status=GameStatus.STARTED,
    )
    return GameRecord(**(defaults | columns))


@pytest.mark.parametrize(
    "outcome",
    [
        Outcome.win(Color.WHITE, RESIGNATION),
        Outcome.win(Color.BLACK, TIME),
        Outcome.draw(AGREEMENT),
        Outcome.draw("threefold-repetition"),
        Outcome.aborted(),
    ],
    ids=str,
)
def test_an_outcome_is_stored_in_its_columns_and_read_back_the_same(outcome):
    columns = outcome_columns(outcome, NOW)
    stored = record(**columns)
    assert stored_outcome(stored) == outcome
    assert columns["status"] is (GameStatus.ABORTED if outcome == Outcome.aborted() else GameStatus.FINISHED)
    assert columns["result"] == (None if outcome == Outcome.aborted() else outcome.result)


def test_a_game_in_play_has_no_stored_outcome():
    assert stored_outcome(record()) is None


def test_replay_plays_the_stored_moves_and_records_an_end_decided_off_the_board():
    game = replay(record(**outcome_columns(Outcome.win(Color.BLACK, RESIGNATION), NOW)), ["c3-d4"])
    assert game.ply == 1 and game.outcome == Outcome.win(Color.BLACK, RESIGNATION)
    by_the_rules = replay(record(initial_fen="W:WKg1:BKe5"), ["g1-d4", "e5:c3"])
    assert by_the_rules.outcome is not None and by_the_rules.outcome.winner is Color.WHITE


async def _service(tmp_path) -> tuple[Database, GameService]:
    db = await Database(f"sqlite+aiosqlite:///{tmp_path / 'db.sqlite3'}").open()
    async with db.session() as s:
        for user_id, name in ((1, "Anna"), (2, "Boris")):
            key = name.lower()
            s.add(User(id=user_id, username=name, username_key=key, password_hash="-", created_at=NOW))
        await s.commit()
    return db, GameService(db, make_bus(None), engine=RandomOpponent(seed=1), computer_delay_seconds=0)


def test_the_state_view_has_exactly_the_keys_clients_read_with_colours_as_names(tmp_path):
    async def scenario():
        db, games = await _service(tmp_path)
        live = await games.create(white_id=1, black_id=2, terms=GameTerms(clock_initial_ms=60_000))
        state = games.state(live)
        await games.close()
        await db.close()
        return state

    state = asyncio.run(scenario())
    assert set(state) == STATE_KEYS
    assert state["side_to_move"] == "white" and state["status"] == "started"
    assert state["white"] == {"id": 1, "username": "Anna", "bot": False}
    assert state["clocks"]["running"] is None  # the clocks start after each side's first move
    assert {"move": "c3-d4", "path": ["c3", "d4"], "captures": []} in state["legal_moves"]


def test_a_move_given_as_a_rules_move_is_played_and_the_listeners_hear_of_it_after_the_commit(tmp_path):
    heard: list[tuple[int, int]] = []

    async def scenario():
        db, games = await _service(tmp_path)
        live = await games.create(white_id=1, black_id=2)
        games.store.add_listener(lambda g: heard.append((g.record.version, g.record.ply)))
        move = live.rules.position.parse_move("c3-d4")
        state = await games.move(1, live.id, move, ply=0)
        await games.resign(2, live.id)
        stored = await games.record(live.id)
        await games.close()
        await db.close()
        return live, state, stored

    live, state, stored = asyncio.run(scenario())
    assert isinstance(live, LiveGame)
    assert state["moves"] == ["c3-d4"] and state["seq"] == 2
    assert heard == [(2, 1), (3, 1)]
    # Resigned before each side had moved: aborted (GameActions.resign), heard as any other change.
    assert stored.status is GameStatus.ABORTED and stored.winner is None and stored.result is None


# The games package's modules in their order: each may import only those before it (ARCHITECTURE.md).
GAMES_ORDER = [
    "models", "statements", "tally", "hooks", "terms", "replay", "clock", "presence", "live", "view",
    "loader", "follow", "queries", "cache", "store",
    "owners", "actions", "takeback", "draws", "computer", "listeners", "heartbeat", "lifecycle", "service",
    "rematch",
]  # fmt: skip


def test_the_games_modules_import_one_way():
    import ast
    from pathlib import Path

    import shashki.server.games as package

    folder = Path(package.__file__).parent
    assert sorted(GAMES_ORDER) == sorted(p.stem for p in folder.glob("*.py") if p.stem != "__init__")
    for position, name in enumerate(GAMES_ORDER):
        tree = ast.parse((folder / f"{name}.py").read_text())
        imported = {
            node.module.rsplit(".", 1)[1]
            for node in ast.walk(tree)
            if isinstance(node, ast.ImportFrom)
            and node.module
            and node.module.startswith("shashki.server.games.")
        }
        later = imported & set(GAMES_ORDER[position:])
        assert not later, f"games.{name} imports {sorted(later)}, which come after it"


def test_a_standing_draw_offer_lapses_when_a_move_ends_the_game(tmp_path):
    async def scenario():
        db, games = await _service(tmp_path)
        live = await games.create(white_id=1, black_id=2, terms=GameTerms(initial_fen="W:WKg1:BKe5"))
        await games.move(1, live.id, "g1-h2")
        await games.move(2, live.id, "e5-f6")
        await games.move(1, live.id, "h2-e5")
        offered = await games.offer_draw(2, live.id)
        # Black's king takes White's last piece: White, without a move, wins at giveaway (RULES.md §3).
        ended = await games.move(2, live.id, "f6:d4")
        await games.close()
        await db.close()
        return offered, ended

    offered, ended = asyncio.run(scenario())
    assert offered["draw_offer"] == "black"
    assert ended["status"] == "finished" and ended["winner"] == "white" and ended["draw_offer"] is None


class HeldOpponent(RandomOpponent):
    """A random mover that thinks until released, counting the moves it was asked for."""

    def __init__(self, free: int = 0) -> None:
        super().__init__(seed=3)
        self.asked = 0
        self.free = free  # moves answered at once, before it holds
        self.release = asyncio.Event()

    async def choose(self, game, level, remaining_ms=None, increment_ms=0):
        self.asked += 1
        if self.asked > self.free:
            await self.release.wait()
        return await super().choose(game, level, remaining_ms, increment_ms)


def test_a_draw_offer_the_computer_declines_does_not_restart_its_thinking(tmp_path):
    """One turn a ply: the offer and its decline change the game but not the position, so the search
    under way goes on and its move is played (found by an audit: each offer threw the search away and
    started it again, and offers sent again and again flagged the computer)."""

    async def scenario():
        db, _ = await _service(tmp_path)
        held = HeldOpponent(free=1)
        games = GameService(db, make_bus(None), engine=held, computer_delay_seconds=0)
        live = await games.create(white_id=1, black_id=None, computer_level=1, clock_initial_ms=60_000)
        await games.move(1, live.id, "c3-d4", ply=0)
        for _ in range(100):  # the computer's first move, at once
            if (await games.get_state(live.id))["ply"] == 2:
                break
            await asyncio.sleep(0.01)
        state = await games.get_state(live.id)
        await games.move(1, live.id, state["legal_moves"][0]["move"], ply=2)
        await asyncio.sleep(0.05)  # the computer's second turn has begun: it is thinking
        offered = await games.offer_draw(1, live.id)
        assert offered["draw_offer"] is None  # declined at once
        for _ in range(2):  # and not offered again for 20 plies (games/draws.py)
            with pytest.raises(Conflict) as again:
                await games.offer_draw(1, live.id)
            assert again.value.code == "draw_offered_recently"
        await asyncio.sleep(0.05)
        asked = held.asked
        held.release.set()
        for _ in range(100):
            if (await games.get_state(live.id))["ply"] == 4:
                break
            await asyncio.sleep(0.01)
        state = await games.get_state(live.id)
        await games.close()
        await db.close()
        return asked, state

    asked, state = asyncio.run(scenario())
    assert asked == 2 and state["ply"] == 4


def test_the_computers_pause_before_it_thinks_is_a_small_share_of_a_short_clock(tmp_path):
    """Its pause runs on its clock: a fixed 0.3 s flagged it in the fastest games (found by an audit)."""
    from shashki.server.games.listeners import DELAY_SHARE, ComputerTurns

    async def scenario():
        db, games = await _service(tmp_path)
        turns = ComputerTurns(games.store, games.actions, games.engine, games._background, delay=0.3)
        pauses = []
        for clock_ms in (15_000, 600_000, None):
            live = await games.create(white_id=None, black_id=1, computer_level=1, clock_initial_ms=clock_ms)
            pauses.append(turns.pause(live))
        await games.close()
        await db.close()
        return pauses

    short, long, untimed = asyncio.run(scenario())
    assert short == pytest.approx(15 * DELAY_SHARE) and short < 0.3
    assert long == untimed == 0.3


def test_the_computers_search_from_before_a_takeback_is_never_played_after_it(tmp_path):
    """A takeback while the computer thinks, and the player's other move back at the same ply: the search
    begun before the takeback is dropped, and the move played is the one searched from the position as it
    now stands (ComputerTurns keys its turn by ply and takebacks: games/takeback.py)."""

    class Recording(HeldOpponent):
        def __init__(self) -> None:
            super().__init__()
            self.chosen: dict[str, str] = {}  # the FEN searched from: the FEN after the move chosen

        async def choose(self, game, level, remaining_ms=None, increment_ms=0):
            start = game.position
            move = await super().choose(game, level, remaining_ms, increment_ms)
            self.chosen[start.fen()] = start.play(move).fen()
            return move

    async def scenario():
        db, _ = await _service(tmp_path)
        held = Recording()
        games = GameService(db, make_bus(None), engine=held, computer_delay_seconds=0)
        live = await games.create(white_id=1, black_id=None, computer_level=1)
        await games.move(1, live.id, "c3-d4", ply=0)
        await asyncio.sleep(0.05)  # the computer is thinking on the position after c3-d4
        taken = await games.offer_takeback(1, live.id)
        assert (taken["ply"], taken["moves"]) == (0, [])
        after = (await games.move(1, live.id, "a3-b4", ply=0))["fen"]
        await asyncio.sleep(0.05)  # and on the position after a3-b4
        held.release.set()
        for _ in range(100):
            if (await games.get_state(live.id))["ply"] == 2:
                break
            await asyncio.sleep(0.01)
        await asyncio.sleep(0.05)  # any stale move would have been played by now
        state = await games.get_state(live.id)
        await games.close()
        await db.close()
        return held, state, after

    held, state, after = asyncio.run(scenario())
    assert held.asked == 2 and state["moves"][0] == "a3-b4" and state["ply"] == 2, state["moves"]
    assert state["fen"] == held.chosen[after]


def test_a_start_shows_no_sign_of_life_before_every_games_turn_is_restarted():
    """A start's first heartbeat, written before the games' turns were restarted, was read by the next
    start (after a crash in between) as the last moment alive: every game not yet restarted was charged
    the whole downtime (found by an audit: 1,000 games lost on time in a crash loop)."""
    import asyncio

    from shashki.server.games import lifecycle

    events: list[str] = []

    class Heartbeat:
        async def last(self):
            events.append("read")
            return None

        def start(self) -> None:
            events.append("beat")

    class Owners:
        async def claim(self, game_id: str) -> bool:
            return True

        async def start(self) -> None:
            events.append("owners")

    class Queries:
        async def started_ids(self) -> list[str]:
            return [f"g{i}" for i in range(450)]  # more than a batch

    class Store:
        queries = Queries()

        async def live_many(self, ids):
            return ids

        async def restart_turn(self, live, alive) -> None:
            events.append("restart")

    resumed = asyncio.run(lifecycle.resume(Store(), Owners(), Heartbeat()))  # type: ignore[arg-type]
    assert resumed == 450
    assert events[0] == "read" and events.count("restart") == 450
    assert events.index("beat") > max(i for i, e in enumerate(events) if e == "restart")
