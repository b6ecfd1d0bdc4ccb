"""Whole tournaments on the real server, watched and played in a real browser (issue 13, "Done when").

Scripted players (tests/server's Player: the HTTP API, each in a thread of its own) join, play a few
moves of each game they are paired in and then the weaker of the two resigns, so that the standings move
and an arena's streaks happen; a browser watches the tournament's page — the countdown, the players
joining, the standings changing without a reload, the podium at the end — and in one arena a browser
player takes part: joins on the page, is sent to their game when paired, plays and resigns there, and goes
back to the tournament.

Tournaments are kept short: one-minute arenas and a Swiss of three rounds, starting a few seconds after
they are created.
"""

from __future__ import annotations

import contextlib
import re
import threading
import time
from datetime import UTC, datetime, timedelta

import httpx
import pytest
from playwright.sync_api import Error as PlaywrightError
from playwright.sync_api import expect
from server.helpers import Player, eventually

pytestmark = pytest.mark.slow

START_IN_SECONDS = 6
# Waits on the server's own schedule: the start, a one-minute arena with its last games, the rounds.
TOURNAMENT_MS = 150_000


def create(player: Player, **terms) -> dict:
    starts_at = datetime.now(UTC) + timedelta(seconds=START_IN_SECONDS)
    body = {
        "name": terms.pop("name", "Test event"),
        "variant": "russian-giveaway",
        "clock": {"initial": 60, "increment": 1},
        "starts_at": starts_at.isoformat().replace("+00:00", "Z"),
        "rated": True,
        "password": None,
        "min_rating": None,
        "min_games": None,
        "max_players": None,
        "double": False,
        **terms,
    }
    r = player.post("/api/tournaments", body)
    assert r.status_code == 201, r.text
    return r.json()


class ScriptedPlayer(threading.Thread):
    """A player who plays whatever game the tournament pairs them in: a few moves, then the weaker resigns.

    `strength` orders the players (the higher wins); `strengths` is everyone's, by user id. A game against
    someone without a strength (the browser player) is played on, move by move, and never resigned.
    """

    def __init__(
        self,
        server,
        tournament_id: str,
        strength: int,
        strengths: dict[int, int],
        stop: threading.Event,
        pace: float = 0.0,
    ):
        super().__init__(daemon=True)
        self.pace = pace  # seconds to think before each move: a round that lasts long enough to be watched
        self.player = Player(server)
        self.tid = tournament_id
        self.strength = strength
        self.strengths = strengths
        strengths[self.player.id] = strength
        self.stop_event = stop
        self.games: set[str] = set()
        self.errors: list[str] = []

    def enter(self, password: str | None = None) -> None:
        """Join the tournament (over the API, as a bot or a script would)."""
        r = self.player.post(f"/api/tournaments/{self.tid}/join", {"password": password})
        assert r.status_code == 200, r.text

    def run(self) -> None:
        http = self.player.http
        while not self.stop_event.is_set():
            try:
                tour = http.get(f"/api/tournaments/{self.tid}").json()
                if tour["status"] == "finished":
                    return
                game_id = (tour.get("me") or {}).get("game") or self.paired_in(tour)
                if game_id and game_id not in self.games:
                    self.play_through(game_id)
                    self.games.add(game_id)
                else:
                    time.sleep(0.3)
            except httpx.HTTPError as e:  # a slow answer on a busy machine: try again
                self.errors.append(repr(e))

    def paired_in(self, tour: dict) -> str | None:
        """The running game of the round that names this player (a Swiss round lists all its games)."""
        for p in tour.get("pairings") or []:
            if p["status"] == "started" and p["game"] and self.player.name in (p["white"], p["black"]):
                return p["game"]
        return None

    def play_through(self, game_id: str) -> None:
        """Play the game to its end: a move on each turn, or resign to a stronger player after a few."""
        http = self.player.http
        while not self.stop_event.is_set():
            game = http.get(f"/api/games/{game_id}").json()["game"]
            if game["status"] != "started":
                return
            color = "white" if game["white"].get("id") == self.player.id else "black"
            if game["side_to_move"] != color or not game["legal_moves"]:
                time.sleep(0.1)
                continue
            opponent = game["black" if color == "white" else "white"].get("id")
            stronger = self.strengths.get(opponent)
            if game["ply"] >= 4 and stronger is not None and stronger > self.strength:
                http.post(f"/api/games/{game_id}/resign", json={})
            else:
                move = game["legal_moves"][0]["move"]
                time.sleep(self.pace)
                http.post(f"/api/games/{game_id}/move", json={"move": move, "ply": game["ply"]})


def scripted(
    server, tid: str, count: int, pace: float = 0.0
) -> tuple[list[ScriptedPlayer], threading.Event]:
    stop = threading.Event()
    strengths: dict[int, int] = {}
    players = [ScriptedPlayer(server, tid, strength, strengths, stop, pace) for strength in range(count)]
    return players, stop


def finish(players: list[ScriptedPlayer], stop: threading.Event) -> None:
    stop.set()
    for p in players:
        if p.is_alive():
            p.join(10)


def name_of(user) -> str:
    return user if isinstance(user, str) else user["username"]


def watch_until_finished(watcher, tid: str) -> None:
    """The watcher's page shows the end by itself: the podium of the three best, no reload."""
    watcher.locator(f'.tournament-page[data-tournament-id="{tid}"][data-status="finished"]').wait_for(
        timeout=TOURNAMENT_MS
    )
    expect(watcher.locator("#podium li.place")).to_have_count(3)


def final_standings(server, tid: str) -> list[dict]:
    r = httpx.get(f"{server.url}/api/tournaments/{tid}/results")
    assert r.status_code == 200, r.text
    return r.json()["players"]


def test_an_arena_played_by_scripted_players_is_watched_live_to_its_podium(pages, server, artifacts):
    organiser = Player(server)
    lobby = pages("/")
    lobby.locator("#lobby-tournaments li").first.wait_for()  # the list as it was before
    tour = create(organiser, name="Watched arena", system="arena", minutes=1)
    tid = tour["id"]
    # The lobby lists it as soon as it is created (the lobby channel's nudge), and its link leads to it.
    lobby.locator(f'#lobby-tournaments li[data-tournament-id="{tid}"]').wait_for()
    expect(lobby.locator(f'#lobby-tournaments li[data-tournament-id="{tid}"]')).to_contain_text(
        "Watched arena"
    )
    watcher = pages(f"/tournament/{tid}")
    expect(watcher.locator("#tournament-countdown")).to_contain_text("Starts in")

    players, stop = scripted(server, tid, 4)
    for p in players:
        p.enter()
    # The players joining show on the watching page at once.
    expect(watcher.locator("#standings tr.standing")).to_have_count(4)
    expect(watcher.locator("#tournament-facts")).to_contain_text("4 players")
    for p in players:
        p.start()
    try:
        watcher.locator('.tournament-page[data-status="started"]').wait_for(timeout=30_000)
        expect(watcher.locator("#tournament-countdown")).to_contain_text("left")
        # Games in play appear with a small board each; points are scored without a reload.
        watcher.locator("#running-games .mini-game svg.board.mini").first.wait_for(timeout=30_000)
        watcher.locator('#standings tr.standing:not([data-score="0"])').first.wait_for(timeout=30_000)
        # The strongest wins every game: two wins in a row put them on a streak, marked with a flame.
        strongest = players[-1].player.name
        watcher.locator(f'#standings tr[data-user="{strongest}"] .streak').wait_for(timeout=60_000)
        watcher.screenshot(path=str(artifacts / "tournament-arena.png"))
        watch_until_finished(watcher, tid)
    finally:
        finish(players, stop)
    standings = final_standings(server, tid)
    assert name_of(standings[0]["user"]) == strongest
    expect(watcher.locator("#podium li.first")).to_have_attribute("data-user", strongest)
    assert all(not p.errors for p in players), [p.errors for p in players]


def test_a_browser_player_joins_an_arena_on_its_page_is_sent_to_each_game_and_comes_back(
    pages, server, artifacts
):
    organiser = Player(server)
    tour = create(organiser, name="Arena with a browser player", system="arena", minutes=1)
    tid = tour["id"]
    me = Player(server)
    page = pages(f"/tournament/{tid}", player=me)
    watcher = pages(f"/tournament/{tid}")
    page.on("dialog", lambda dialog: dialog.accept())  # "Resign?" — yes

    page.click("#tournament-join")
    expect(page.locator("#tournament-joined")).to_be_visible()
    expect(watcher.locator(f'#standings tr[data-user="{me.name}"]')).to_be_visible()

    players, stop = scripted(server, tid, 3)
    for p in players:
        p.enter()
        p.start()
    played: list[str] = []
    try:
        # Paired: the tournament's page opens the game by itself; after it, the next pairing does the same
        # from the finished game's page. The player loses two games.
        while len(played) < 2:
            page.wait_for_url(lambda url: new_game(url, played), timeout=60_000)
            game_id = page.url.rsplit("/", 1)[1]
            page.wait_for_selector(".game-page[data-color]")
            expect(page.locator("#back-to-tournament")).to_have_attribute("href", f"/tournament/{tid}")
            if not played:
                # Berserk before the first move: the player's own clock is halved.
                color = page.locator(".game-page").get_attribute("data-color")
                page.click("#berserk")
                expect(page.locator("#berserk")).to_have_count(0)
                clocks = httpx.get(f"{server.url}/api/games/{game_id}").json()["game"]["clocks"]
                assert clocks[f"{color}_ms"] <= clocks["initial_ms"] / 2
            play_two_moves_and_resign(page, server, game_id)
            played.append(game_id)

        # Back to the tournament by the game's link, and a pause: not paired again until coming back.
        # (A pairing that comes first sends the player to one more game, which they lose too.)
        def mine_now() -> dict:
            return me.http.get(f"/api/tournaments/{tid}").json()["me"]

        while not mine_now()["paused"]:
            if new_game(page.url, played):
                game_id = page.url.rsplit("/", 1)[1]
                page.wait_for_selector(".game-page[data-color]")
                play_two_moves_and_resign(page, server, game_id)
                played.append(game_id)
            with contextlib.suppress(PlaywrightError, AssertionError):  # a pairing came first: play it
                if "/game/" in page.url:
                    page.click("#back-to-tournament", timeout=5_000)
                page.wait_for_selector(f'.tournament-page[data-tournament-id="{tid}"]', timeout=5_000)
                expect(page.locator("#tournament-name")).to_have_text("Arena with a browser player")
                page.click("#tournament-pause", timeout=5_000)
                expect(page.locator("#tournament-join")).to_have_text("Come back", timeout=5_000)
        # A game paired just before the pause is still to be played: the page offers it (or has opened it
        # already); the player loses it too. After the pause, the server pairs them no more.
        pending = mine_now()["game"]
        if pending and pending not in played:
            if f"/game/{pending}" not in page.url:
                with contextlib.suppress(PlaywrightError):
                    page.click("#tournament-my-game", timeout=5_000)
            page.wait_for_url(re.compile(rf"/game/{pending}$"))
            page.wait_for_selector(".game-page[data-color]")
            play_two_moves_and_resign(page, server, pending)
            played.append(pending)
            page.click("#back-to-tournament")
            expect(page.locator("#tournament-join")).to_have_text("Come back")
        mine = watcher.locator(f'#standings tr[data-user="{me.name}"]')
        expect(mine).to_have_class(re.compile(r"\bpaused\b"))
        expect(mine).to_have_attribute("data-score", "0")  # every game lost
        page.screenshot(path=str(artifacts / "tournament-browser-player.png"))
        watch_until_finished(watcher, tid)
    finally:
        finish(players, stop)
    results = {name_of(s["user"]): s for s in final_standings(server, tid)}
    assert results[me.name]["losses"] == len(played)


def new_game(url: str, played: list[str]) -> bool:
    """Whether the page shows a game the player has not played yet (a new pairing)."""
    m = re.search(r"/game/([A-Za-z0-9]+)$", url)
    return bool(m) and m.group(1) not in played


def play_two_moves_and_resign(page, server, game_id: str) -> None:
    """Play the first legal move (typed in the move box) until each side has moved, then resign."""
    while True:
        game = httpx.get(f"{server.url}/api/games/{game_id}").json()["game"]
        if game["status"] != "started":
            return
        if game["ply"] >= 2:
            break
        my_color = page.locator(".game-page").get_attribute("data-color")
        if game["side_to_move"] == my_color:
            page.fill("#move-text", game["legal_moves"][0]["move"])
            page.press("#move-text", "Enter")
            page.locator("#moves li.ply").nth(game["ply"]).wait_for(state="attached")
        else:
            time.sleep(0.2)
    page.click("#resign")
    # The game ends (the page shows the result, unless the next pairing has already opened another game).
    ended = eventually(
        lambda: httpx.get(f"{server.url}/api/games/{game_id}").json()["game"]["status"],
        lambda status: status != "started",
        timeout=10,
    )
    assert ended != "started"


# Kept in the page: every text the countdown shows, in order (window.shownRounds).
RECORD_COUNTDOWN = """() => {
  window.shownRounds = [];
  const note = () => {
    const text = document.getElementById("tournament-countdown")?.textContent || "";
    if (!text.startsWith("Starts in") && window.shownRounds.at(-1) !== text) window.shownRounds.push(text);
  };
  const watched = { childList: true, subtree: true, characterData: true };
  new MutationObserver(note).observe(document.body, watched);
}"""


def test_a_swiss_created_on_the_page_is_played_through_round_by_round_while_a_browser_watches(
    pages, server, artifacts
):
    organiser = Player(server)
    creator = pages("/tournaments", player=organiser)
    creator.fill("#tournament-name", "Swiss in the browser")
    creator.select_option("#tournament-system", "swiss")
    creator.select_option("#tournament-variant", "russian-giveaway")
    creator.fill("#tournament-clock-minutes", "1")
    creator.fill("#tournament-clock-increment", "1")
    creator.fill("#tournament-rounds", "3")
    # The form takes a start to the minute, in the player's own time (the browser's zone is this machine's).
    starts = (datetime.now().astimezone() + timedelta(seconds=25)).replace(second=0, microsecond=0)
    starts += timedelta(minutes=1)
    creator.fill("#tournament-starts-at", starts.strftime("%Y-%m-%dT%H:%M"))
    creator.click("#tournament-create")
    creator.wait_for_url(re.compile(r"/tournament/[A-Za-z0-9_-]+$"))
    tid = creator.url.rsplit("/", 1)[1]
    expect(creator.locator("#tournament-name")).to_have_text("Swiss in the browser")
    watcher = pages(f"/tournament/{tid}")
    expect(watcher.locator("#tournament-countdown")).to_contain_text("Starts in")
    watcher.evaluate(RECORD_COUNTDOWN)

    # Five players: one of them has a bye each round. They take a second over each move, so that every
    # round lasts several of the page's updates (sent at most once a second) even on an idle machine.
    players, stop = scripted(server, tid, 5, pace=1.0)
    for p in players:
        p.enter()
        p.start()
    try:
        watcher.locator('.tournament-page[data-status="started"]').wait_for(timeout=TOURNAMENT_MS)
        expect(watcher.locator("#standings th")).to_have_count(11)  # the tie-break columns
        watcher.locator("#pairings li.pairing").first.wait_for()
        expect(watcher.locator("#round-shown")).to_contain_text("Round")
        watcher.screenshot(path=str(artifacts / "tournament-swiss.png"))
        watch_until_finished(watcher, tid)
        # Round by round, live: every text the countdown showed, in order (a round whose games all end
        # between two updates, which are sent at most once a second, may be skipped).
        shown = watcher.evaluate("() => window.shownRounds")
        rounds = [int(m.group(1)) for text in shown if (m := re.fullmatch(r"Round (\d) of 3", text.strip()))]
        assert len(set(rounds)) >= 2 and rounds == sorted(rounds), shown
        assert shown[-1].strip() == "Finished", shown
    finally:
        finish(players, stop)
    standings = final_standings(server, tid)
    assert len(standings) == 5
    strongest = players[-1].player.name
    expect(watcher.locator("#podium li.first")).to_have_attribute("data-user", strongest)
    assert name_of(standings[0]["user"]) == strongest
    # Every game of the event in one PDN file.
    pdn = httpx.get(f"{server.url}/api/tournaments/{tid}/games.pdn")
    assert pdn.status_code == 200 and pdn.text.count("[Result ") >= 6, pdn.text[:500]
