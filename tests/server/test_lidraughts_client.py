"""A scripted client that makes lidraughts-bot's calls, in its order, with its board (issue 12).

lidraughts-bot (AttackingOrDefending/lidraughts-bot, GPL: read, never copied) talks to the server only
through these requests, read from its `lidraughts.py` and `lidraughts-bot.py`:

1. `GET /api/account`: `username`, `id`, `title` ("BOT", else it upgrades with `-u`:
   `POST /api/bot/account/upgrade`, with the same bot:play token);
2. `GET /api/account/playing`: `nowPlaying[].gameId` and `.perf`;
3. `GET /api/stream/event` (NDJSON, empty lines kept alive): `challenge` (`id`, `rated`, `variant.key`,
   `perf.name`, `speed`, `timeControl.limit/.increment`, `challenger.name/.title/.rating`), `gameStart`
   (`game.id`);
4. `POST /api/challenge/{id}/accept`, or `POST /api/challenge/{id}/decline` with the form body
   `reason=<key>` (`variant`, `timeControl`, `noBot`, ...);
5. `GET /api/bot/game/stream/{id}`: `gameFull` (`id`, `speed`, `clock.initial/.increment`, `perf.name`,
   `variant.name`, `white`/`black` `.name/.title/.rating/.provisional/.aiLevel`, `initialFen`, `state`), then
   `gameState` (`moves`, `wtime`, `btime`, `winc`, `binc`, `wdraw`/`bdraw`, `status`, `winner`) and
   `chatLine`. It builds its board as `draughts.Game(variant.name.lower(), initialFen)` (pydraughts 0.5.7,
   whose class is `draughts.core.game.Game` in the pydraughts installed here), plays every entry of
   `moves` with `push_str_move`, and skips a state whose last entry is not four digits;
6. `POST /api/bot/game/{id}/move/{jump}?offeringDraw=false|true`, once per jump of its move;
7. `POST /api/bot/game/{id}/chat` (form `room`, `text`), `/abort`, `/resign`;
8. `GET /game/export/{id}?literate=true` (the game's text, kept when `pgn_directory` is set);
9. every hour `GET /api/users/status?ids={its id}`: `[0].online` (a 404 here made it quit).
"""

from __future__ import annotations

import random

import httpx
import pytest
from draughts.core.game import Game as PydraughtsGame

from .test_bot_api import Stream

PYDRAUGHTS_WHITE = 2


class ScriptedBot:
    """One lidraughts-bot: a token, its config's challenge filter, its own pydraughts board per game."""

    def __init__(self, player, *, variants: list[str], upgrade: bool = False) -> None:
        self.player = player
        token = player.token("bot:play")
        self.http = httpx.Client(
            base_url=player.server.url,
            headers={"Authorization": f"Bearer {token}", "User-Agent": "lidraughts-bot/1.2.0 user:?"},
            timeout=2,  # lidraughts-bot's own timeout on every request but the streams
        )
        self.variants = variants
        profile = self.get("/api/account")
        if profile.get("title") != "BOT":
            assert upgrade, "lidraughts-bot refuses to start on an account that is not a bot"
            assert self.post("/api/bot/account/upgrade") == {"ok": True}
            profile = self.get("/api/account")
        assert profile["title"] == "BOT"
        self.username, self.id = profile["username"], profile["id"]
        assert isinstance(self.get("/api/account/playing")["nowPlaying"], list)
        self.events = Stream(self.http, "GET", "/api/stream/event", timeout=None)

    def get(self, path: str, **params: str) -> dict | list:
        r = self.http.get(path, params=params)
        r.raise_for_status()
        return r.json()

    def post(self, path: str, data: str | dict | None = None, **options) -> dict:
        r = self.http.post(path, content=data, **options) if isinstance(data, str) else self.http.post(
            path, data=data, **options
        )
        assert r.status_code == 200, (path, r.text)
        return r.json()

    def is_online(self) -> bool:
        users = self.get("/api/users/status", ids=self.id)
        return bool(users and users[0].get("online"))

    def handle_challenge(self) -> str | None:
        """Read the next challenge and answer it as lidraughts-bot's filter does; the game id if accepted."""
        challenge = self.events.until("challenge")["challenge"]
        assert challenge["perf"]["name"] and challenge["speed"] and isinstance(challenge["rated"], bool)
        assert challenge["timeControl"].get("increment", -1) >= -1  # -1: no clock (its default)
        assert challenge["challenger"]["title"] == "BOT" and challenge["challenger"]["rating"]
        if challenge["variant"]["key"] not in self.variants:
            form = {"Content-Type": "application/x-www-form-urlencoded"}
            declined = self.post(f"/api/challenge/{challenge['id']}/decline", "reason=variant", headers=form)
            assert declined == {"ok": True}
            return None
        assert self.post(f"/api/challenge/{challenge['id']}/accept") == {"ok": True}
        return self.events.until("gameStart")["game"]["id"]


class BotGame:
    """One game as lidraughts-bot follows it: the stream, the board built from `variant.name`."""

    def __init__(self, bot: ScriptedBot, game_id: str) -> None:
        self.bot = bot
        self.id = game_id
        self.stream = Stream(bot.http, "GET", f"/api/bot/game/stream/{game_id}", timeout=None)
        full = self.stream.next()
        assert full["type"] == "gameFull" and full["id"] == game_id
        assert full["clock"]["initial"] > 0 and full["perf"]["name"] and full["speed"]
        self.is_white = full["white"]["name"].lower() == bot.username.lower()
        assert (full["black"] if self.is_white else full["white"])["title"] == "BOT"
        self.variant = full["variant"]
        self.board = PydraughtsGame(self.variant["name"].lower(), full["initialFen"])
        self.seen: list[str] = []
        self.state = full["state"]
        self.update(self.state)

    def update(self, state: dict) -> None:
        self.state = state
        moves = state["moves"].split()
        if moves and len(moves[-1]) != 4:
            return
        for entry in moves[len(self.seen) :]:
            self.board.push_str_move(entry)  # raises if the server's move is not legal on its board
        self.seen = moves

    def next_state(self) -> dict:
        line = self.stream.until("gameState")
        assert {"wtime", "btime", "winc", "binc", "wdraw", "bdraw", "status"} <= line.keys()
        self.update(line)
        return line

    def my_turn(self) -> bool:
        return self.is_white == (self.board.whose_turn() == PYDRAUGHTS_WHITE)

    def move(self, rng: random.Random) -> None:
        moves, _ = self.board.legal_moves()
        steps = rng.choice(moves)
        for a, b in steps:
            self.bot.post(f"/api/bot/game/{self.id}/move/{a:02d}{b:02d}", params={"offeringDraw": "false"})


def play(white: BotGame, black: BotGame, plies: int, seed: int) -> dict:
    """Both bots play from their own boards until the game ends or `plies` moves have been made."""
    rng = random.Random(seed)
    for _ in range(plies):
        if white.state["status"] != "started":
            break
        assert not white.board.is_over(), "pydraughts ends a game that the server goes on with"
        mover = white if white.my_turn() else black
        assert mover.my_turn() and not (black if mover is white else white).my_turn()
        mover.move(rng)
        white.next_state()
        black.next_state()
    assert white.state["moves"] == black.state["moves"]
    return white.state


# Every variant whose moves pydraughts knows, by the key a bot lists in its config.
PLAYABLE = [
    "standard", "antidraughts", "russian", "brazilian", "english", "italian",
    "russian-giveaway", "brazilian-giveaway", "english-giveaway", "italian-giveaway",
]


@pytest.fixture
def two_bots(players):
    made = []

    def make(variants: list[str], *, upgrade: bool = False) -> ScriptedBot:
        made.append(ScriptedBot(players(bot=not upgrade), variants=variants, upgrade=upgrade))
        return made[-1]

    yield make
    for bot in made:
        bot.events.close()
        bot.http.close()


def start(challenger: ScriptedBot, bot: ScriptedBot, form: dict) -> tuple[BotGame, BotGame] | None:
    """The challenger challenges the bot (white), the bot answers; both follow the game if it starts."""
    made = challenger.post(f"/api/challenge/{bot.username}", {"color": "white", **form})
    game_id = bot.handle_challenge()
    if game_id is None:
        declined = challenger.events.until("challengeDeclined")["challenge"]
        assert declined["id"] == made["id"] and declined["declineReasonKey"] == "variant"
        return None
    assert challenger.events.until("gameStart")["game"]["id"] == game_id
    return BotGame(challenger, game_id), BotGame(bot, game_id)


def test_lidraughts_bot_calls_in_order_upgrade_a_whole_poddavki_game_status_and_export(two_bots):
    bot = two_bots(["russian-giveaway"], upgrade=True)  # started with -u on an ordinary account
    other = two_bots(["russian-giveaway"])
    assert bot.is_online() and other.is_online()  # their event streams are open
    games = start(other, bot, {"variant": "russian-giveaway", "clock.limit": "300", "clock.increment": "3"})
    assert games is not None
    white, black = games
    assert black.variant["key"] == "russian-giveaway" and black.board.board.width == 4  # an 8×8 board
    assert bot.get("/api/account/playing")["nowPlaying"][0]["gameId"] == black.id
    assert bot.post(f"/api/bot/game/{black.id}/chat", {"room": "player", "text": "good luck"})["ok"]
    final = play(white, black, plies=400, seed=12)
    if final["status"] == "started":
        bot.post(f"/api/bot/game/{black.id}/resign")
        final = black.next_state()
    assert final["status"] in ("mate", "variantEnd", "resign")
    assert black.stream.ended()
    r = bot.http.get(f"/game/export/{black.id}", params={"literate": "true"})
    assert r.status_code == 200 and '[Variant "russian-giveaway"]' in r.text
    assert bot.is_online()
    both = bot.get("/api/users/status", ids=f"{bot.id},{other.id}")
    assert [row["id"] for row in both] == [bot.id, other.id]


@pytest.mark.parametrize("variant", PLAYABLE + ["fromPosition"])
def test_an_unmodified_lidraughts_bot_plays_every_variant_pydraughts_knows(two_bots, variant):
    a, b = two_bots(PLAYABLE + ["fromPosition"]), two_bots(PLAYABLE + ["fromPosition"])
    form = {"variant": variant, "clock.limit": "600", "clock.increment": "5"}
    if variant == "fromPosition":
        form["fen"] = "W:W28,32,33,37,38,K45:B8,12,13,K19,23"
    games = start(a, b, form)
    assert games is not None
    final = play(*games, plies=30, seed=len(variant))
    assert len(final["moves"].split()) >= 30 or final["status"] != "started"


def test_a_bot_declines_pool_which_pydraughts_cannot_play(two_bots):
    a, b = two_bots(PLAYABLE), two_bots(PLAYABLE)
    for variant in ("pool", "pool-giveaway"):
        assert start(a, b, {"variant": variant}) is None


def test_a_draw_by_the_rules_ends_with_a_status_lidraughts_bot_survives(two_bots):
    """Once its own board is over, lidraughts-bot reports the result from `status`, and for `draw` asks
    its board `is_fifty_moves()`, which pydraughts 0.5.7 (its pin) does not have: the game's process
    fails, is retried for ten minutes, and the bot never takes another challenge (seen with the real
    client after a threefold repetition). A draw the rules make is `variantEnd` without a winner."""
    bot, other = two_bots(["fromPosition"]), two_bots(["fromPosition"])
    form = {"variant": "fromPosition", "fen": "W:WK47,K49:BK3", "clock.limit": "300", "clock.increment": "3"}
    games = start(other, bot, form)
    assert games is not None
    white, black = games
    for text in ("4742", "0309", "4247", "0903") * 2:  # the start position comes a third time
        mover = white if white.my_turn() else black
        mover.bot.post(f"/api/bot/game/{mover.id}/move/{text}", params={"offeringDraw": "false"})
        white.next_state()
        black.next_state()
    for game in (white, black):
        assert game.board.is_over()  # pydraughts sees the repetition too: the client reads `status` now
        assert game.state["status"] == "variantEnd" and "winner" not in game.state
    finish = bot.events.until("gameFinish")["game"]
    assert finish["status"] == {"id": 60, "name": "variantEnd"} and "winner" not in finish
