"""Exports through a real server: one game and a player's games as PDN (replayed by the real
`shashki pdn check` to the recorded results) and as JSON / NDJSON.
"""

from __future__ import annotations

import json
import subprocess
import sys
import time
from pathlib import Path

from .helpers import eventually
from .test_games import GIVEAWAY_WIN_FOR_WHITE, KINGS_SHUFFLE, KINGS_SHUFFLE_FEN

SHASHKI = Path(sys.executable).parent / "shashki"


def play(player, gid: str, moves: list[str], start_ply: int = 0) -> None:
    for ply, move in enumerate(moves, start_ply):
        r = player[ply % 2].post(f"/api/games/{gid}/move", {"move": move, "ply": ply})
        assert r.status_code == 200, r.text


def pdn_check(tmp_path: Path, text: str, name: str) -> list[str]:
    path = tmp_path / name
    path.write_text(text)
    command = [str(SHASHKI), "pdn", "check", str(path)]
    done = subprocess.run(command, capture_output=True, text=True, timeout=60)
    assert done.returncode == 0, done.stdout + done.stderr
    return done.stdout.splitlines()


def checked_result(line: str) -> tuple[str, str]:
    """(result, reason) of a `pdn check` line `N RESULT REASON`."""
    _, result, reason = line.split()[:3]
    return result, reason


def test_exported_games_replay_with_pdn_check_to_their_recorded_results(players, tmp_path):
    a, b = players(), players()
    pair = (a, b)
    games = {}

    # 1. A whole giveaway game: White is left without a move and wins (1-0, by the rules).
    gid = a.challenge(b)["id"]
    play(pair, gid, GIVEAWAY_WIN_FOR_WHITE)
    games[gid] = ("1-0", "no-legal-move")
    # 2. Resignation in the middle of a game (decided off the board: the recorded result counts).
    gid = a.challenge(b, time_control={"minutes": 5, "increment": 3}, rated=True)["id"]
    play(pair, gid, GIVEAWAY_WIN_FOR_WHITE[:9])
    a.post(f"/api/games/{gid}/resign")
    games[gid] = ("0-1", "recorded")
    # 3. A draw agreed after a few moves.
    gid = a.challenge(b)["id"]
    play(pair, gid, GIVEAWAY_WIN_FOR_WHITE[:4])
    a.post(f"/api/games/{gid}/draw/offer")
    b.post(f"/api/games/{gid}/draw/accept")
    games[gid] = ("1/2-1/2", "recorded")
    # 4. Threefold repetition from a set-up position (the FEN goes into the PDN).
    gid = a.challenge(b, fen=KINGS_SHUFFLE_FEN)["id"]
    play(pair, gid, KINGS_SHUFFLE * 2)
    games[gid] = ("1/2-1/2", "threefold-repetition")
    # 5. International draughts (10×10, numeric notation), Black resigns.
    gid = a.challenge(b, variant="international")["id"]
    play(pair, gid, ["32-28", "19-23", "28x19", "14x23"])
    b.post(f"/api/games/{gid}/resign")
    games[gid] = ("1-0", "recorded")
    # 6. A flag falls: White's 0.6 s run out after both first moves.
    gid = a.challenge(b, time_control={"minutes": 0.01, "increment": 0})["id"]
    play(pair, gid, ["c3-d4", "f6-g5"])
    time.sleep(0.7)
    final = eventually(
        lambda: a.http.get(f"/api/games/{gid}").json()["game"], lambda g: g["status"] != "started"
    )
    assert (final["winner"], final["reason"]) == ("black", "time")
    games[gid] = ("0-1", "recorded")
    # Not exported with the player's games: an aborted game and one still going on.
    aborted = a.challenge(b)["id"]
    a.post(f"/api/games/{aborted}/abort")
    going = a.challenge(b)["id"]
    play(pair, going, ["c3-d4"])

    # Each game on its own, as lidraughts' /game/export/{id} gives it.
    single = [a.http.get(f"/game/export/{gid}") for gid in games]
    assert all(r.status_code == 200 and r.headers["content-type"].startswith("application/x-draughts-pdn")
               for r in single)
    lines = pdn_check(tmp_path, "\n".join(r.text for r in single), "single.pdn")
    assert [checked_result(line) for line in lines] == list(games.values())
    for r, gid in zip(single, games, strict=True):
        assert f'[Site "{a.server.url}/game/{gid}"]' in r.text
        assert r.text == a.http.get(f"/api/games/{gid}/pdn").text
    assert '[FEN "W:WK30:BK3"]' in single[3].text and '[Variant "international"]' in single[4].text
    assert '[Termination "Time forfeit"]' in single[5].text and '[TimeControl "0+0"]' in single[5].text
    assert '[WhiteRatingDiff "' in single[1].text  # a rated game records its rating changes
    # A timed game's moves carry their clocks, as lichess's export does (an audit: the moves' clocks
    # were stored and never exported); a game without a clock has none, and clocks=false leaves them out.
    assert single[1].text.count("{[%clk ") == 9 and "1. c3-b4 {[%clk 0:05:00]}" in single[1].text
    assert "%clk" not in single[0].text
    # Read back on the analysis board, the clocks are data, not comments (an audit: every move showed its
    # "[%clk 0:05:00]" as a comment).
    tree = a.post("/api/analysis/pdn", {"pdn": single[1].text}).json()["games"][0]
    assert "%clk" not in json.dumps(tree)
    assert "%clk" not in a.http.get(f"/game/export/{list(games)[1]}", params={"clocks": "false"}).text

    # A game in progress exports as unfinished.
    assert pdn_check(tmp_path, a.http.get(f"/game/export/{going}").text, "going.pdn") == ["1 * unfinished"]
    # Termination as lidraughts has it: a game going on is unterminated, an aborted one abandoned.
    assert '[Termination "Unterminated"]' in a.http.get(f"/game/export/{going}").text
    assert '[Termination "Abandoned"]' in a.http.get(f"/game/export/{aborted}").text

    # All of a player's finished games, streamed, newest first.
    with a.http.stream("GET", f"/api/games/user/{b.name}") as r:
        assert r.status_code == 200 and r.headers["content-type"].startswith("application/x-draughts-pdn")
        streamed = "".join(r.iter_text())
    lines = pdn_check(tmp_path, streamed, "all.pdn")
    assert [checked_result(line) for line in lines] == list(reversed(games.values()))
    assert "%clk" not in streamed  # off by default in a player's export, as on lichess
    timed = a.http.get(f"/api/games/user/{b.name}", params={"clocks": "true"}).text
    assert timed.count("{[%clk ") == 9 + 2  # the resigned 5+3 game's nine moves, the flagged game's two

    # The same as NDJSON (Accept header as on lidraughts), with the recorded results and moves.
    r = a.http.get(f"/api/games/user/{a.name}", headers={"Accept": "application/x-ndjson"})
    rows = [json.loads(line) for line in r.text.splitlines()]
    assert [row["id"] for row in rows] == list(reversed(games))
    first = rows[-1]
    assert first["moves"] == " ".join(GIVEAWAY_WIN_FOR_WHITE) and first["status"] == "mate"
    assert first["winner"] == "white" and first["players"]["white"]["user"]["name"] == a.name
    assert rows[-2]["status"] == "resign"
    assert rows[-2]["clock"] == {"initial": 300, "increment": 3, "totalTime": 420}
    assert rows[0]["status"] == "outoftime"

    # Filters: at most N games; by variant; games in progress on request.
    def export(**params) -> str:
        return a.http.get(f"/api/games/user/{a.name}", params={"format": "ndjson", **params}).text

    assert len(export(max=2).splitlines()) == 2
    international = [json.loads(line) for line in export(variant="international").splitlines()]
    assert [row["variant"] for row in international] == ["standard"]
    with_ongoing = export(ongoing="true")
    assert going in with_ongoing and aborted not in with_ongoing
    # lidraughts' other parameters: when the games began (ms, both ends included), moves and tags left out.
    begun = [row["createdAt"] for row in rows]  # newest first
    ids = [row["id"] for row in rows]
    assert [json.loads(line)["id"] for line in export(since=begun[1]).splitlines()] == ids[:2]
    assert [json.loads(line)["id"] for line in export(until=begun[-2]).splitlines()] == ids[-2:]
    assert export(until=begun[-1] - 1) == "" and export(since=begun[0] + 1) == ""
    assert all("moves" not in json.loads(line) for line in export(moves="false").splitlines())
    bare = a.http.get(f"/api/games/user/{a.name}", params={"moves": "false", "tags": "false"}).text
    assert bare.split() == [result for result, _ in reversed(games.values())]
    tagged = a.http.get(f"/api/games/user/{a.name}", params={"moves": "false", "max": 1}).text
    assert tagged.startswith('[Event "') and tagged.rstrip().endswith("\n\n0-1") and "1." not in tagged
    assert a.http.get(f"/api/games/user/{a.name}", params={"since": 10**20}).status_code == 400
    # perfType: speeds, several with commas as on lidraughts (5+3 is blitz, 0.6 s bullet, no clock
    # correspondence).
    def perf(speeds: str) -> list[str]:
        return [json.loads(line)["id"] for line in export(perfType=speeds).splitlines()]

    assert perf("blitz,bullet") == [ids[0], ids[4]]
    assert perf("correspondence") == [ids[1], ids[2], ids[3], ids[5]]
    assert perf("blitz,correspondence") == ids[1:]
    r = a.http.get(f"/api/games/user/{a.name}", params={"perfType": "blitz,slow"})
    assert r.status_code == 400 and r.json()["error"]["code"] == "bad_speed"

    # One game as JSON.
    one = a.http.get(f"/game/export/{list(games)[0]}", headers={"Accept": "application/json"}).json()
    assert one["status"] == "mate" and one["result"] == "1-0" and one["variant"] == "russian-giveaway"


def test_exports_of_unknown_games_and_players_are_404(players):
    a = players()
    assert a.http.get("/game/export/nosuchgm").status_code == 404
    r = a.http.get("/api/games/user/nobody-here-either")
    assert r.status_code == 404 and r.json()["error"]["code"] == "no_such_user"
