"""The authorization matrix (issue 10): every state-changing route of the app × who asks — the owner of
the thing it changes, the other player, a spectator (logged in, not a player), an anonymous client (no
session at all), an anonymous visitor's session (issue 16: casual play without an account), a narrow token
(`read` only) — answers as the table says, and a refused request changes nothing.

The routes are enumerated from the app's own OpenAPI description, so a new state-changing route fails
this test until it is given its row.
"""

from __future__ import annotations

import itertools
import tempfile
from dataclasses import dataclass, field
from pathlib import Path

import httpx
import pytest

from shashki.server.app import create_app
from shashki.server.config import Settings

from .helpers import PASSWORD, Player

STATE_CHANGING = {"post", "put", "patch", "delete"}
ROLES = ("other", "spectator", "anonymous", "visitor", "narrow")
OWN = "own"  # the role acts on its own behalf (its own seek, its own challenge): not a refusal to test


@dataclass(frozen=True)
class Row:
    """Who owns the thing (`white`, the challenger and seeker, or `black`, the challenged), the body to
    send, and the answer expected of each other role: a status, or OWN."""

    refusals: dict[str, int | str]
    owner: str = "white"
    body: dict | None = None
    data: dict | None = None  # a form, as lidraughts' clients send
    owner_check: bool = True  # False: the owner's success is proved elsewhere (the note says where)
    anonymous: int | str = 401
    visitor: int | str = 403  # an anonymous visitor's session: refused what needs an account
    narrow: int | str = 403
    notes: str = ""
    expected: dict[str, int | str] = field(init=False)

    def __post_init__(self) -> None:
        object.__setattr__(
            self,
            "expected",
            {"anonymous": self.anonymous, "visitor": self.visitor, "narrow": self.narrow, **self.refusals},
        )


ANYONE = {"other": OWN, "spectator": OWN}
PLAYERS = {"other": OWN, "spectator": 403}  # either player may; a spectator may not
SEEK_CLOCKS = itertools.count(1)
SEEK = {"time_control": {"minutes": 5, "increment": 0}}
TOURNAMENT = {"name": "Matrix", "system": "arena", "clock": {"initial": 60, "increment": 0}, "minutes": 30}
SIMUL = {"name": "Matrix", "clock": {"initial": 60, "increment": 0}}
BOT = "the Bot API serves bot accounts: tests/server/test_bot_api.py plays through every route"

MATRIX: dict[tuple[str, str], Row] = {
    ("POST", "/api/auth/register"): Row(
        ANYONE,
        anonymous=OWN,
        visitor=OWN,
        narrow=OWN,
        owner_check=False,
        notes="open to all: it makes a new account",
    ),
    ("POST", "/api/auth/login"): Row(
        ANYONE,
        anonymous=OWN,
        visitor=OWN,
        narrow=OWN,
        owner_check=False,
        notes="open to all: it checks a password",
    ),
    ("POST", "/api/auth/logout"): Row(
        ANYONE,
        anonymous=OWN,
        visitor=OWN,
        narrow=OWN,
        owner_check=False,
        notes="ends the caller's own session only",
    ),
    ("POST", "/api/account/bot"): Row(
        ANYONE, narrow=403, owner_check=False, notes="the caller's own account (test_accounts.py)"
    ),
    ("POST", "/api/account/tokens"): Row(ANYONE, body={"scopes": ["read"]}),
    # The account's security: the caller's own account, from its browser session only (a token, even
    # white's own, is refused: 403 session_required). Closing is refused (409) while white plays.
    ("POST", "/api/account/password"): Row(
        ANYONE, body={"current_password": PASSWORD, "new_password": "another horse battery"}
    ),
    ("POST", "/api/account/sessions/end"): Row(ANYONE, notes="test_account_security.py"),
    ("POST", "/api/account/close"): Row(
        ANYONE, body={"password": PASSWORD}, notes="refused while white plays: test_account_security.py"
    ),
    ("DELETE", "/api/account/tokens/{token_id}"): Row({"other": 404, "spectator": 404}),
    ("PUT", "/api/account/preferences"): Row(
        ANYONE, body={"theme": "dark"}, notes="the caller's own looks (test_preferences.py)"
    ),
    ("POST", "/api/seeks"): Row(ANYONE, body=SEEK, visitor=OWN),
    ("POST", "/api/seeks/{seek_id}/accept"): Row(
        ANYONE, owner="black", visitor=OWN, notes="anyone but the seeker may accept a seek"
    ),
    ("POST", "/api/auth/anonymous"): Row(
        ANYONE, anonymous=OWN, visitor=OWN, narrow=OWN, owner_check=False, notes="test_anonymous_play.py"
    ),
    ("DELETE", "/api/seeks/{seek_id}"): Row({"other": 404, "spectator": 404}, visitor=404),
    ("POST", "/api/quick-pairing"): Row(ANYONE, body={"preset": "5+0"}, visitor=OWN),
    ("POST", "/api/challenges"): Row(ANYONE, body={"username": "{black}"}),
    ("POST", "/api/challenges/{challenge_id}/accept"): Row(
        {"other": 403, "spectator": 404}, owner="black", visitor=404
    ),
    ("POST", "/api/challenges/{challenge_id}/decline"): Row(
        {"other": 403, "spectator": 404}, owner="black", visitor=404
    ),
    ("POST", "/api/challenges/{challenge_id}/cancel"): Row({"other": 403, "spectator": 404}, visitor=404),
    ("POST", "/api/challenges/open"): Row(ANYONE, body=SEEK, visitor=OWN),
    ("POST", "/api/challenges/open/{link}/accept"): Row(
        {"other": 409, "spectator": OWN}, owner="black", visitor=OWN, notes="anyone but its creator"
    ),
    ("POST", "/api/challenges/open/{link}/cancel"): Row({"other": 403, "spectator": 403}),
    ("POST", "/api/computer-games"): Row(ANYONE, body={"level": 1}, visitor=OWN),
    ("POST", "/api/games/{game_id}/move"): Row({"other": 409, "spectator": 403}, body={"move": "c3-d4"}),
    ("POST", "/api/games/{game_id}/resign"): Row(PLAYERS),
    ("POST", "/api/games/{game_id}/draw/offer"): Row(PLAYERS),
    ("POST", "/api/games/{game_id}/draw/accept"): Row(PLAYERS),
    ("POST", "/api/games/{game_id}/draw/decline"): Row(PLAYERS),
    ("POST", "/api/games/{game_id}/abort"): Row(PLAYERS),
    ("POST", "/api/games/{game_id}/claim-victory"): Row(PLAYERS),
    ("POST", "/api/games/{game_id}/claim-draw"): Row(PLAYERS),
    ("POST", "/api/games/{game_id}/moretime"): Row(PLAYERS),
    ("POST", "/api/games/{game_id}/takeback/offer"): Row(PLAYERS),
    ("POST", "/api/games/{game_id}/takeback/accept"): Row(PLAYERS),
    ("POST", "/api/games/{game_id}/takeback/decline"): Row(PLAYERS),
    ("POST", "/api/games/{game_id}/chat"): Row(PLAYERS, body={"text": "hello", "room": "player"}),
    ("POST", "/api/games/{game_id}/chat/spectators"): Row(PLAYERS, body={"mode": "close"}),
    ("POST", "/api/games/{game_id}/analysis"): Row(
        ANYONE, owner_check=False, notes="any account may ask (its own limit): tests/server/test_reviews.py"
    ),
    ("POST", "/api/games/{game_id}/rematch"): Row(PLAYERS),
    ("POST", "/api/games/{game_id}/rematch/accept"): Row(PLAYERS),
    ("POST", "/api/games/{game_id}/rematch/decline"): Row(PLAYERS),
    ("POST", "/api/bot/account/upgrade"): Row(ANYONE, owner_check=False, notes=BOT),
    ("POST", "/api/challenge/{username}"): Row(ANYONE, data={"clock.limit": "300"}),
    ("POST", "/api/challenge/{challenge_id}/accept"): Row({"other": 403, "spectator": 404}, owner="black"),
    ("POST", "/api/challenge/{challenge_id}/decline"): Row({"other": 403, "spectator": 404}, owner="black"),
    ("POST", "/api/challenge/{challenge_id}/cancel"): Row({"other": 403, "spectator": 404}),
    ("POST", "/api/notifications/read"): Row(ANYONE, notes="marks the caller's own notifications only"),
    ("POST", "/api/notifications/{notification_id}/read"): Row(
        {"other": 404, "spectator": 404}, owner="black"
    ),
    # Tournaments: white has joined the world's arena (it starts in two minutes); withdrawing and pausing
    # act on the caller's own entry, so another's attempt finds none (409) and changes nothing.
    ("POST", "/api/tournaments"): Row(ANYONE, body=TOURNAMENT),
    ("POST", "/api/tournaments/{tournament_id}/join"): Row(ANYONE),
    ("POST", "/api/tournaments/{tournament_id}/withdraw"): Row({"other": 409, "spectator": 409}),
    ("POST", "/api/tournaments/{tournament_id}/pause"): Row({"other": 409, "spectator": 409}),
    ("POST", "/api/tournaments/{tournament_id}/berserk"): Row(
        {"other": 403, "spectator": 403},
        body={"game": "{game}"},
        owner_check=False,
        notes="berserk is for an arena game of one's own: test_tournaments_arena.py",
    ),
    # Simuls: white hosts one (not started) which black has asked to play; the host's answers are the
    # host's alone; withdrawing acts on the caller's own request, so a spectator's finds none (409).
    ("POST", "/api/simuls"): Row(ANYONE, body=SIMUL),
    ("POST", "/api/simuls/{simul_id}/join"): Row(ANYONE),
    ("POST", "/api/simuls/{simul_id}/withdraw"): Row({"other": OWN, "spectator": 409}, owner="black"),
    ("POST", "/api/simuls/{simul_id}/accept/{username}"): Row({"other": 403, "spectator": 403}),
    ("POST", "/api/simuls/{simul_id}/unaccept/{username}"): Row({"other": 403, "spectator": 403}),
    ("POST", "/api/simuls/{simul_id}/remove/{username}"): Row({"other": 403, "spectator": 403}),
    ("POST", "/api/simuls/{simul_id}/start"): Row(
        {"other": 403, "spectator": 403},
        owner_check=False,
        notes="the host starts once a player is accepted: tests/server/test_simuls.py",
    ),
    ("POST", "/api/simuls/{simul_id}/cancel"): Row({"other": 403, "spectator": 403}),
    ("POST", "/api/board/seek"): Row(
        ANYONE, owner_check=False, notes="a stream: test_bot_api.py's seek test holds it open"
    ),
    # The analysis board changes nothing stored and needs no account (tests/server/test_analysis.py).
    ("POST", "/api/analysis/position"): Row(
        ANYONE, anonymous=OWN, narrow=OWN, visitor=OWN, body={"variant": "russian"}
    ),
    ("POST", "/api/analysis/lines"): Row(
        ANYONE,
        anonymous=OWN,
        narrow=OWN,
        visitor=OWN,
        body={"variant": "russian", "lines": 1, "seconds": 0.2},
    ),
    ("POST", "/api/analysis/pdn"): Row(
        ANYONE, anonymous=OWN, narrow=OWN, visitor=OWN, body={"pdn": "1. c3-d4 *"}
    ),
    # A puzzle attempt is the caller's own, open to all (rated for members: test_puzzles_http.py).
    ("POST", "/api/puzzles/{puzzle_id}/move"): Row(
        ANYONE, anonymous=OWN, narrow=OWN, visitor=OWN, owner_check=False, notes="test_puzzles_http.py"
    ),
    ("POST", "/api/puzzles/{puzzle_id}/solution"): Row(
        ANYONE, anonymous=OWN, narrow=OWN, visitor=OWN, owner_check=False, notes="test_puzzles_http.py"
    ),
    # Following and blocking act for the caller alone: the name in the path is the other player's.
    ("POST", "/api/rel/follow/{username}"): Row(ANYONE),
    ("POST", "/api/rel/unfollow/{username}"): Row(ANYONE),
    ("POST", "/api/rel/block/{username}"): Row(ANYONE),
    ("POST", "/api/rel/unblock/{username}"): Row(ANYONE),
}
for _kind in ("bot", "board"):
    for _action in ("move/{move}", "draw/{accept}", "resign", "abort", "claim-victory", "claim-draw", "chat"):
        MATRIX[("POST", f"/api/{_kind}/game/{{game_id}}/{_action}")] = Row(
            # Through the session a person is refused the Bot API (403 not_a_bot) and a spectator the game.
            {"other": OWN, "spectator": 403},
            data={"text": "hello", "room": "player"} if _action == "chat" else None,
            owner_check=_kind == "board",
            notes=BOT if _kind == "bot" else "",
        )
# A person's takebacks (games/takeback.py); a bot's games have none, so the Bot API has no such route.
MATRIX[("POST", "/api/board/game/{game_id}/takeback/{accept}")] = Row({"other": OWN, "spectator": 403})


def state_changing_routes() -> set[tuple[str, str]]:
    description = create_app(Settings(data_dir=Path(tempfile.gettempdir()) / "shashki-matrix")).openapi()
    return {
        (method.upper(), path)
        for path, operations in description["paths"].items()
        for method in operations
        if method in STATE_CHANGING
    }


def test_every_state_changing_route_has_its_row_in_the_matrix():
    routes = state_changing_routes()
    assert not routes - MATRIX.keys(), f"give these routes their row: {sorted(routes - MATRIX.keys())}"
    assert not MATRIX.keys() - routes, f"these rows name no route: {sorted(MATRIX.keys() - routes)}"


class World:
    """White and black in a game (white to move), white's pending challenge to black, white's open seek,
    one of white's tokens, carol the spectator, an anonymous client and a `read` token of white's."""

    def __init__(self, server) -> None:
        self.server = server
        self.white, self.black, self.carol = Player(server), Player(server), Player(server)
        self.game = self.white.challenge(self.black)["id"]
        r = self.white.post("/api/challenges", {"username": self.black.name, "color": "white"})
        assert r.status_code == 201, r.text
        self.challenge = r.json()["challenge"]["id"]
        # A clock nobody else seeks, so that the seek stays open rather than pairing with another's.
        unique = {"time_control": {"minutes": 170 + next(SEEK_CLOCKS) / 100, "increment": 179}}
        r = self.white.post("/api/seeks", unique)
        assert r.status_code == 200 and r.json()["seek"], r.text
        self.seek = r.json()["seek"]["id"]
        # Black's notification of white's challenge.
        self.notification = self.black.http.get("/api/notifications").json()["notifications"][0]["id"]
        r = self.white.post("/api/account/tokens", {"scopes": ["board:play"]})
        self.token = r.json()["id"]
        r = self.white.post("/api/challenges/open", {"color": "white"})
        assert r.status_code == 201, r.text
        self.link = r.json()["challenge"]["link"]
        r = self.white.post("/api/tournaments", TOURNAMENT)
        assert r.status_code == 201, r.text
        self.tournament = r.json()["id"]
        assert self.white.post(f"/api/tournaments/{self.tournament}/join").status_code == 200
        r = self.white.post("/api/simuls", SIMUL)
        assert r.status_code == 201, r.text
        self.simul = r.json()["id"]
        assert self.black.post(f"/api/simuls/{self.simul}/join").status_code == 200
        self.anonymous = httpx.Client(base_url=server.url, timeout=10)
        self.visitor = httpx.Client(base_url=server.url, timeout=10)
        r = self.visitor.post("/api/auth/anonymous")
        assert r.status_code == 201, r.text
        self.visitor.headers["X-CSRF-Token"] = r.json()["csrf_token"]
        narrow = self.white.token("read")
        self.narrow = httpx.Client(
            base_url=server.url, timeout=10, headers={"Authorization": f"Bearer {narrow}"}
        )

    def client(self, role: str, owner: str) -> httpx.Client:
        players = {"white": self.white, "black": self.black}
        if role == "owner":
            return players[owner].http
        if role == "other":
            return players["black" if owner == "white" else "white"].http
        if role == "spectator":
            return self.carol.http
        if role == "visitor":
            return self.visitor
        return self.anonymous if role == "anonymous" else self.narrow

    def url(self, path: str) -> str:
        return path.format(
            game_id=self.game,
            challenge_id=self.challenge,
            seek_id=self.seek,
            link=self.link,
            token_id=self.token,
            notification_id=self.notification,
            username=self.black.name,
            move="2218",
            accept="yes",
            tournament_id=self.tournament,
            simul_id=self.simul,
        )

    def fingerprint(self) -> tuple:
        """What a refused request must leave as it was."""
        white = self.white.http
        game = httpx.get(f"{self.server.url}/api/games/{self.game}").json()["game"]
        game.pop("mover_disconnected_ms", None)  # a clock of presence, not a change
        return (
            game,
            white.get("/api/challenges").json(),
            self.black.http.get("/api/challenges").json(),
            sorted(s["id"] for s in httpx.get(f"{self.server.url}/api/seeks").json()["seeks"]),
            white.get("/api/account/tokens").json(),
            httpx.get(f"{self.server.url}/api/challenges/open/{self.link}").json(),
            white.get("/api/account").json()["user"],
            self.black.http.get("/api/account").json()["user"],
            self.black.http.get("/api/notifications").json(),
            httpx.get(f"{self.server.url}/api/tournaments/{self.tournament}/standings").json(),
            httpx.get(f"{self.server.url}/api/simuls/{self.simul}").json(),
        )

    def close(self) -> None:
        for client in (self.anonymous, self.visitor, self.narrow):
            client.close()
        for player in (self.white, self.black, self.carol):
            player.close()


def send(world: World, client: httpx.Client, method: str, path: str, row: Row) -> httpx.Response:
    options: dict = {}
    if row.body is not None:
        options["json"] = {
            k: v.format(black=world.black.name, game=world.game) if isinstance(v, str) else v
            for k, v in row.body.items()
        }
    elif row.data is not None:
        options["data"] = row.data
    elif method == "POST":
        options["json"] = {}
    return client.request(method, world.url(path), **options)


def test_every_refusal_in_the_matrix_holds_and_changes_nothing(server):
    world = World(server)
    wrong = []
    before = world.fingerprint()
    for (method, path), row in sorted(MATRIX.items()):
        for role in ROLES:
            expected = row.expected[role]
            if expected == OWN:
                continue
            r = send(world, world.client(role, row.owner), method, path, row)
            if r.status_code != expected:
                wrong.append((method, path, role, expected, r.status_code, r.text[:100]))
        if world.fingerprint() != before:  # every refusal leaves the world as it was
            wrong.append((method, path, "changed something"))
            before = world.fingerprint()
    world.close()
    assert not wrong, "\n".join(map(str, wrong))


def test_the_owner_of_each_route_is_not_refused(server):
    refused = []
    for (method, path), row in sorted(MATRIX.items()):
        if not row.owner_check:
            continue
        world = World(server)  # a fresh one: the owner's action changes it
        r = send(world, world.client("owner", row.owner), method, path, row)
        if r.status_code in (401, 403) or r.status_code >= 500:
            refused.append((method, path, r.status_code, r.text[:100]))
        world.close()
    assert not refused, "\n".join(map(str, refused))


@pytest.mark.parametrize("role", ROLES)
def test_the_matrix_names_an_answer_for_every_role(role):
    assert all(role in row.expected for row in MATRIX.values())
