"""No read of the server's walks a table's whole history (issue 11: work that grows with the history).

A real server on SQLite, every statement it runs recorded (tests/server/sql_trace), plays what a player
does — a challenge, a whole game over the sockets, a resignation, the game and player pages, the lists,
the notifications, an analysis asked for, a tournament made and joined, the leaderboard, the puzzles (of
a theme too, and an attempt at one), the explorer, a bot through the Bot API (its event stream, a game's
stream, its lists) — and is then restarted (the start-up's reads). Each
statement is then asked of SQLite's planner (EXPLAIN QUERY PLAN) on the database the run left: none may
read a table from end to end (`SCAN <table>`, through an index or not) or gather and sort rows to keep a
page of them (`TEMP B-TREE` before a LIMIT) — what such a read costs grows with every game, move,
notification or review ever stored, however fast it is on a young database.
"""

from __future__ import annotations

import os
import random
import re
import sqlite3
from pathlib import Path

from .helpers import Player, Server
from .test_bot_api import BLITZ, ApiClient

TRACE = Path(__file__).with_name("sql_trace")
# Reads allowed to walk a whole table, each for its reason.
ALLOWED = {
    # A single row of bookkeeping.
    "alembic_version",
    # A row per variant and theme: as many as the rules have, however many puzzles there are.
    "puzzle_counts",
}
# A count of the games a player's list shows, filtered by colour, variant, speed or opponent ("N games
# found" on the profile's games page): such a filter has no count kept (games/tally.py keeps all, won,
# lost, drawn, rated...). Grows with the player's games, by index.
FILTERED_TOTAL = re.compile(r"^SELECT count\(\*\) AS count_1 FROM \(SELECT games\.id AS id,")
AGGREGATE = re.compile(r"\b(count|sum|avg|total|group_concat)\s*\(", re.IGNORECASE)
# A migration's one-time fill of what it adds from what is stored (a new table, a count) reads it all,
# once: such statements begin with this comment.
MIGRATION_FILL = "/* migration fill */"
# A read of the games in play only ("now playing", TV): an index on the time of the last move would make
# every move's UPDATE move an index entry, a cost on the per-move path for a sort of the games in play.
IN_PLAY = re.compile(
    r"WHERE games\.status = 'started'(?: AND games\.variant = '[\w-]+')?"
    r"(?: AND games\.clock_initial_ms IS NOT NULL)? ORDER BY"  # TV reads those with a clock
)


def _play_to_the_end(white: Player, black: Player, game_id: str, rng: random.Random) -> dict:
    sockets = {"white": white.socket(game_id), "black": black.socket(game_id)}
    try:
        state = sockets["white"].state
        assert state is not None
        while state["status"] == "started":
            mover = sockets[state["side_to_move"]]
            ply = state["ply"]
            state = mover.wait_state(lambda g, ply=ply: g["ply"] == ply)
            move = rng.choice(state["legal_moves"])["move"]
            answer = mover.move(move, ply=ply)
            assert answer["type"] == "ack", answer
            state = mover.wait_state(lambda g, ply=ply: g["ply"] == ply + 1)
        return state
    finally:
        for socket in sockets.values():
            socket.close()


def _statements(trace: Path) -> dict[str, str]:
    """Each statement's shape (its values as ?) and one text of it as run."""
    shapes: dict[str, str] = {}
    for line in trace.read_text(encoding="utf-8").splitlines():
        if line.startswith(MIGRATION_FILL) or "sqlite_master" in line or "_alembic_tmp_" in line:
            continue  # the migrations' fills and their own reads of the schema
        if not re.match(r"(SELECT|UPDATE|DELETE|INSERT|WITH)\b", line, re.IGNORECASE):
            continue
        shape = re.sub(r"\b\d+(\.\d+)?\b", "?", re.sub(r"'(?:[^']|'')*'", "?", line))
        shapes.setdefault(shape, line)
    return shapes


def _walks(db: sqlite3.Connection, text: str) -> tuple[str, list[str]]:
    """The statement's plan, and what in it reads rows it does not keep: a table scanned whole (by an
    index or not), or a
    table's rows gathered and sorted to keep a page of them (a sort before a LIMIT), or every row an
    index finds counted or summed without a bound (a count kept with what it counts, or one that stops
    early, costs the same at any size; `FILTERED_TOTAL` is known to grow). Not counted: a sort
    of everything a read returns, which costs what the answer does (every line of a chat, a player's
    whole rating history); and a sort of rows that a LIMIT already bounded (a subquery's) or that were
    fetched one by one by primary key; and a sort of the games in play (`IN_PLAY`), which grow with the
    play, not the history."""
    rows = list(db.execute("EXPLAIN QUERY PLAN " + text))
    tables = {name for (name,) in db.execute("SELECT name FROM sqlite_master WHERE type = 'table'")}
    found = []
    for _id, _parent, _, detail in rows:
        scanned = re.match(r"SCAN (\w+)(?: USING|$)", detail)  # by an index too: the whole of it
        if scanned and scanned.group(1) in tables - ALLOWED:
            found.append(detail)
    if AGGREGATE.search(text) and not re.search(r"\bLIMIT\b", text) and not FILTERED_TOTAL.search(text):
        for _id, _parent, _, detail in rows:
            # Every row an index finds, counted or summed: as many as the player (or the key) has had.
            searched = re.match(r"SEARCH (\w+)", detail)
            one_row = re.search(r"INDEX sqlite_autoindex_\w+ \(id=\?\)|PRIMARY KEY \(rowid=\?\)", detail)
            if searched and searched.group(1) in tables - ALLOWED and not one_row:
                found.append(f"an aggregate of every row of {detail}")
    if re.search(r"\bLIMIT\b", text) and not IN_PLAY.search(text):
        for node, parent, _, detail in rows:
            # "FOR RIGHT PART OF ORDER BY": rows come in the index's order and only those sharing its
            # leading key are sorted among themselves, up to the LIMIT (a leaderboard's equal ratings).
            if "TEMP B-TREE" not in detail or "RIGHT PART" in detail:
                continue
            sources = [d for n, p, _, d in rows if p == parent and n != node and "TEMP B-TREE" not in d]
            gathered = [
                d
                for d in sources
                if re.match(r"(SEARCH|SCAN) (\w+)", d)
                and re.match(r"(SEARCH|SCAN) (\w+)", d).group(2) in tables  # type: ignore[union-attr]
                and not re.search(r"INDEX sqlite_autoindex_\w+ \(id=\?\)|PRIMARY KEY \(rowid=\?\)", d)
            ]
            if gathered:
                found.append(f"sorts for a page what {gathered} gathers")
    return " / ".join(row[3] for row in rows), found


def _drive_a_bot(server: Server, person: Player) -> None:
    """What a bot program reads through the Bot API: its event stream opened with a challenge waiting (the
    stream's start reads the pending challenges and the games in play), the game's stream, the lists."""
    bot = ApiClient(Player(server, bot=True), "bot:play")
    made = person.post("/api/challenges", {"username": bot.name, "color": "white", "time_control": BLITZ})
    assert made.status_code == 201, made.text
    events = bot.stream("/api/stream/event")
    try:
        challenge = events.until("challenge")["challenge"]
        assert bot.post(f"/api/challenge/{challenge['id']}/accept").json() == {"ok": True}
        game_id = events.until("gameStart")["game"]["id"]
        game = bot.stream(f"/api/bot/game/stream/{game_id}")
        try:
            assert game.next()["type"] == "gameFull"
        finally:
            game.close()
    finally:
        events.close()
    for page in ("/api/account", "/api/account/playing", "/api/challenge", f"/api/games/user/{bot.name}",
                 f"/api/users/status?ids={person.name},{bot.name}", f"/api/users/{bot.name}"):  # fmt: skip
        assert bot.http.get(page).status_code == 200, page
    bot.http.close()


def test_the_reads_of_play_pages_and_a_restart_walk_indexes_not_the_history(tmp_path):
    trace = tmp_path / "statements.sql"
    path = os.pathsep.join(p for p in (str(TRACE), os.environ.get("PYTHONPATH", "")) if p)
    server = Server(tmp_path / "data", {"PYTHONPATH": path, "SHASHKI_TEST_SQL_TRACE": str(trace)})
    rng = random.Random(7)
    server.start()
    try:
        anna, boris = Player(server), Player(server)
        played = anna.challenge(boris)
        end = _play_to_the_end(anna, boris, played["id"], rng)
        assert end["status"] != "started"
        resigned = boris.challenge(anna, color="white")
        assert boris.post(f"/api/games/{resigned['id']}/resign").status_code == 200
        assert anna.post(f"/api/games/{played['id']}/analysis").status_code in (200, 202)
        arena = {"name": "Cup", "system": "arena", "clock": {"initial": 60}, "minutes": 30}
        made = anna.post("/api/tournaments", arena)
        assert made.status_code in (200, 201), made.text
        cup = made.json()["id"]
        assert boris.post(f"/api/tournaments/{cup}/join").status_code == 200
        for page in (
            f"/api/games/{played['id']}",
            f"/api/games/{played['id']}/pdn",
            f"/api/games/{played['id']}/analysis",
            f"/api/games/{played['id']}/chat",
            f"/api/games/user/{anna.name}",
            f"/api/users/{anna.name}",
            f"/api/users/{anna.name}/games",
            f"/api/users/{anna.name}/games?result=win",
            f"/api/users/{anna.name}/games?variant=russian-giveaway",
            f"/api/users/{anna.name}/rating-history",
            "/api/account/playing",
            "/api/account/your-turn",
            "/api/notifications",
            "/api/challenges",
            "/api/seeks",
            "/api/tournaments",
            "/api/now-playing",
            "/api/tv",
            "/api/rel/following",
            "/api/rel/blocking",
            "/api/leaderboards/russian-giveaway",
            "/api/puzzles/next?variant=russian-giveaway",
            "/api/puzzles/next?variant=russian-giveaway&theme=endgame",
            "/api/puzzles/next?variant=russian&theme=combination",
            "/api/puzzles/daily?variant=russian-giveaway",
            "/api/puzzles/history",
            "/api/puzzles/me?variant=russian-giveaway",
            "/api/puzzles/themes",
            "/api/explorer?variant=russian-giveaway",
            f"/api/tournaments/{cup}",
            f"/api/tournaments/{cup}/standings",
            "/api/account/tokens",
            "/api/account/preferences",
        ):
            answer = anna.http.get(page)
            assert answer.status_code == 200, (page, answer.text)
        assert anna.post("/api/notifications/read").status_code == 200
        _drive_a_bot(server, anna)
        puzzle = anna.http.get("/api/puzzles/next?variant=russian-giveaway").json()["puzzle"]
        first = puzzle["position"]["legal_moves"][0]["move"]
        attempt = anna.post(f"/api/puzzles/{puzzle['id']}/move", {"line": [first]})
        assert attempt.status_code == 200, attempt.text  # an attempt rates the puzzle: its draw rows too
    finally:
        server.stop()
    server.start()  # what a start reads: the games to resume, the reviews, the tournaments
    try:
        assert Player(server).http.get("/api/tournaments").status_code == 200
    finally:
        server.stop()

    shapes = _statements(trace)
    assert any("FROM moves" in s or 'FROM "moves"' in s for s in shapes), "the trace recorded no game"
    walking = {}
    with sqlite3.connect(server.data / "shashki.sqlite3") as db:
        for shape, text in shapes.items():
            plan, walks = _walks(db, text)
            if walks:
                walking[shape[:300]] = f"{plan}\n    {walks}"
    assert not walking, "\n".join(f"{shape}\n    -> {plan}" for shape, plan in walking.items())
