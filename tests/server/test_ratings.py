"""Ratings, profiles and leaderboards through a real server, against an independent Glicko-2 reference.

The reference below is written from Glickman's paper ("Example of the Glicko-2 system") separately from
shashki.server.ratings.glicko2, and finds the new volatility by bisection instead of the paper's Illinois
iteration, so that a shared mistake is unlikely.
"""

from __future__ import annotations

import asyncio
import doctest
import math
import random

import pytest

import shashki.server.ratings.glicko2
import shashki.server.ratings.speed
from shashki.server.ratings.glicko2 import Rating, rate

from .helpers import first_moves

TAU = 0.75  # the server's system constant (lichess's)
BLITZ = {"minutes": 3, "increment": 2}  # 180 s + 40 × 2 s = 260 s: blitz


def reference_update(player: tuple, opponent: tuple, score: float, tau: float = TAU) -> tuple:
    """(rating, RD, volatility) after one game, steps 2 to 8 of Glickman's example."""
    q = 173.7178
    r, rd, sigma = player
    mu, phi = (r - 1500) / q, rd / q
    mu_j, phi_j = (opponent[0] - 1500) / q, opponent[1] / q
    g = 1 / math.sqrt(1 + 3 * phi_j**2 / math.pi**2)
    e = 1 / (1 + math.exp(-g * (mu - mu_j)))
    v = 1 / (g**2 * e * (1 - e))
    delta = v * g * (score - e)
    a = math.log(sigma**2)

    def f(x):
        return (math.exp(x) * (delta**2 - phi**2 - v - math.exp(x))) / (
            2 * (phi**2 + v + math.exp(x)) ** 2
        ) - (x - a) / tau**2

    low, high = a - 20, a + 20  # f decreases through its one root: f(low) > 0 > f(high)
    assert f(low) > 0 > f(high)
    for _ in range(200):
        middle = (low + high) / 2
        if f(middle) > 0:
            low = middle
        else:
            high = middle
    new_sigma = math.exp((low + high) / 4)
    phi_star = math.sqrt(phi**2 + new_sigma**2)
    new_phi = 1 / math.sqrt(1 / phi_star**2 + 1 / v)
    new_mu = mu + new_phi**2 * g * (score - e)
    return (q * new_mu + 1500, q * new_phi, new_sigma)


def test_glicko2_reproduces_glickmans_worked_example():
    # A 1500/200/0.06 player beats 1400/30, loses to 1550/100 and to 1700/300 (τ = 0.5).
    opponents = [(Rating(1400, 30), 1), (Rating(1550, 100), 0), (Rating(1700, 300), 0)]
    new = rate(Rating(1500, 200, 0.06), opponents, tau=0.5)
    # The paper prints 1464.06 / 151.52 / 0.05999 (its r' comes from μ' already rounded to -0.2069).
    assert new.rating == pytest.approx(1464.06, abs=0.01)
    assert new.deviation == pytest.approx(151.52, abs=0.005)
    assert new.volatility == pytest.approx(0.05999, abs=0.00001)
    assert new.mu == pytest.approx(-0.2069, abs=0.00005) and new.phi == pytest.approx(0.8722, abs=0.00005)


def test_glicko2_without_games_only_widens_the_deviation():
    new = rate(Rating(1500, 200, 0.06), [])
    assert new.rating == 1500 and new.volatility == 0.06
    assert new.deviation == pytest.approx(173.7178 * math.sqrt((200 / 173.7178) ** 2 + 0.06**2))


def test_the_reference_agrees_with_the_module_on_single_games():
    for player, opponent, score in [
        ((1500, 350, 0.06), (1500, 350, 0.06), 1),
        ((1720, 80, 0.059), (1390, 200, 0.061), 0),
        ((1300, 45, 0.07), (1700, 60, 0.05), 0.5),
    ]:
        expected = reference_update(player, opponent, score)
        got = rate(Rating(*player), [(Rating(*opponent), score)], tau=TAU)
        assert (got.rating, got.deviation, got.volatility) == pytest.approx(expected, abs=1e-6)


@pytest.mark.parametrize("module", [shashki.server.ratings.glicko2, shashki.server.ratings.speed])
def test_docstring_examples(module):
    assert doctest.testmod(module).failed == 0


def play_rated(white, black, outcome: str, **terms) -> str:
    """A game white vs black, ended after each side's first move: by resignation of the loser, or by
    agreed draw."""
    terms = {"rated": True, "time_control": BLITZ, **terms}
    game = white.challenge(black, **terms)
    gid = game["id"]
    first_moves(gid, white, black)
    if outcome == "white":
        r = black.post(f"/api/games/{gid}/resign")
    elif outcome == "black":
        r = white.post(f"/api/games/{gid}/resign")
    else:
        assert white.post(f"/api/games/{gid}/draw/offer").status_code == 200
        r = black.post(f"/api/games/{gid}/draw/accept")
    assert r.status_code == 200 and r.json()["game"]["status"] == "finished", r.text
    return gid


def blitz_rating(player) -> dict | None:
    profile = player.http.get(f"/api/users/{player.name}").json()
    found = [r for r in profile["ratings"] if (r["variant"], r["speed"]) == ("russian-giveaway", "blitz")]
    return found[0] if found else None


def test_ratings_after_a_series_of_rated_games_match_an_independent_glicko2_reference(players):
    a, b, c = players(), players(), players()
    pairs = [(a, b), (b, c), (c, a)] * 5  # 15 games: ten for each player
    outcomes = random.Random(5).choices(["white", "black", "draw"], k=len(pairs))
    expected = {p.name: (1500.0, 350.0, 0.06) for p in (a, b, c)}
    diffs = []
    game_ids = []
    for (first, second), outcome in zip(pairs, outcomes, strict=True):
        white, black = (first, second) if len(game_ids) % 2 == 0 else (second, first)
        game_ids.append(play_rated(white, black, outcome))
        score = {"white": 1.0, "black": 0.0, "draw": 0.5}[outcome]
        before_w, before_b = expected[white.name], expected[black.name]
        expected[white.name] = reference_update(before_w, before_b, score)
        expected[black.name] = reference_update(before_b, before_w, 1 - score)
        diffs.append(
            (
                round(expected[white.name][0]) - round(before_w[0]),
                round(expected[black.name][0]) - round(before_b[0]),
            )
        )

    for player in (a, b, c):
        rating = blitz_rating(player)
        want = expected[player.name]
        assert rating["games"] == 10 and rating["provisional"] is False
        assert abs(rating["rating"] - want[0]) <= 0.5 + 1e-6, (rating, want)
        assert abs(rating["deviation"] - want[1]) <= 0.5 + 1e-6, (rating, want)
        assert rating["volatility"] == pytest.approx(want[2], abs=2e-6)

    # Each game records the players' ratings before it and their changes (as its export shows).
    for gid, (white_diff, black_diff) in zip(game_ids, diffs, strict=True):
        exported = a.http.get(f"/game/export/{gid}", params={"format": "json"}).json()
        assert abs(exported["players"]["white"]["ratingDiff"] - white_diff) <= 1
        assert abs(exported["players"]["black"]["ratingDiff"] - black_diff) <= 1
    pdn = a.http.get(f"/game/export/{game_ids[-1]}").text
    assert '[WhiteElo "' in pdn and '[BlackRatingDiff "' in pdn and '[Event "Rated Blitz game"]' in pdn

    # The history has a point per rated game, the last one being the current rating.
    history = a.http.get(f"/api/users/{a.name}/rating-history", params={"speed": "blitz"}).json()["history"]
    assert len(history) == 1 and len(history[0]["points"]) == 10
    assert a.http.get(f"/api/users/{a.name}").json()["rating_history"] == history  # the profile shows it
    assert history[0]["points"][-1]["rating"] == blitz_rating(a)["rating"]

    # The leaderboard lists the three (established now), best first.
    board = a.http.get("/api/leaderboards/russian-giveaway/blitz").json()["players"]
    ours = [row["user"]["username"] for row in board if row["user"]["username"] in expected]
    assert ours == sorted(expected, key=lambda name: -expected[name][0])
    assert [row["rank"] for row in board] == list(range(1, len(board) + 1))


def test_casual_untimed_aborted_and_computer_games_leave_ratings_alone(players):
    a, b = players(), players()
    play_rated(a, b, "white", rated=False)
    # Rated was asked, but a game without clocks has no speed to rate: it is casual.
    game = a.challenge(b, rated=True, time_control=None)
    assert game["rated"] is False
    a.post(f"/api/games/{game['id']}/resign")
    # A rated game aborted before both sides moved counts for nothing.
    game = a.challenge(b, rated=True, time_control=BLITZ)
    assert game["rated"] is True
    assert a.post(f"/api/games/{game['id']}/abort").json()["game"]["status"] == "aborted"
    # Nor does a game against the computer.
    computer = a.post("/api/computer-games", {"level": 1, "color": "white"}).json()["game"]
    assert computer["rated"] is False
    a.post(f"/api/games/{computer['id']}/resign")
    for player in (a, b):
        profile = player.http.get(f"/api/users/{player.name}").json()
        assert profile["ratings"] == []
        history = player.http.get(f"/api/users/{player.name}/rating-history").json()["history"]
        assert history == []
    assert a.http.get(f"/api/users/{a.name}").json()["count"]["rated"] == 0


def test_a_profile_lists_the_players_games_paged_and_filtered_and_shows_no_private_data(players):
    a, b = players(), players()
    for outcome in ("white", "white", "black", "draw", "white"):
        play_rated(a, b, outcome, rated=False)
    play_rated(a, b, "white", rated=False, variant="russian")
    profile = a.http.get(f"/api/users/{a.name}").json()
    assert profile["count"] == {"all": 6, "rated": 0, "win": 4, "loss": 1, "draw": 1, "playing": 0}
    assert set(profile["user"]) == {"id", "username", "bot", "created_at", "closed"}
    text = a.http.get(f"/api/users/{a.name}").text
    for secret in ("token", "csrf", "password", "session", "challenge"):
        assert secret not in text.lower()

    page = a.http.get(f"/api/users/{a.name}/games", params={"per_page": 4, "page": 2}).json()
    assert (page["total"], page["pages"], page["page"], len(page["games"])) == (6, 2, 2, 2)
    first = a.http.get(f"/api/users/{a.name}/games", params={"per_page": 4}).json()["games"]
    assert first[0]["variant_key"] == "russian"  # newest first
    wins = a.http.get(f"/api/users/{a.name}/games", params={"result": "win"}).json()
    assert wins["total"] == 4 and all(g["winner"] == "white" for g in wins["games"])
    losses = b.http.get(f"/api/users/{b.name}/games", params={"result": "win"}).json()
    assert losses["total"] == 1
    giveaway_draws = a.http.get(
        f"/api/users/{a.name}/games", params={"variant": "russian-giveaway", "result": "draw"}
    ).json()
    assert giveaway_draws["total"] == 1 and giveaway_draws["games"][0]["status"] == "draw"
    assert a.http.get(f"/api/users/{a.name}/games", params={"variant": "russian"}).json()["total"] == 1
    assert a.http.get(f"/api/users/{a.name}/games", params={"speed": "blitz"}).json()["total"] == 6
    assert a.http.get(f"/api/users/{a.name}/games", params={"speed": "bullet"}).json()["total"] == 0
    bad = a.http.get(f"/api/users/{a.name}/games", params={"result": "maybe"})
    assert bad.status_code == 400 and bad.json()["error"]["code"] == "bad_result"
    assert a.http.get("/api/users/nobody-at-all").status_code == 404


def test_games_being_played_now_are_listed(players):
    a, b = players(), players()
    game = a.challenge(b, time_control=BLITZ)
    a.post(f"/api/games/{game['id']}/move", {"move": "c3-d4"})
    now = a.http.get("/api/now-playing", params={"limit": 100}).json()["games"]
    mine = [g for g in now if g["id"] == game["id"]]
    assert mine and mine[0]["ply"] == 1 and mine[0]["speed"] == "blitz" and mine[0]["side_to_move"] == "black"
    a.post(f"/api/games/{game['id']}/resign")
    now = a.http.get("/api/now-playing", params={"limit": 100}).json()["games"]
    assert all(g["id"] != game["id"] for g in now)


def test_a_closed_account_keeps_its_ratings_but_leaves_the_leaderboard(tmp_path):
    """Ranked are open accounts only: a closed account's established rating is not listed, and the ranks
    close up behind it."""
    from datetime import UTC, datetime

    from shashki.server.accounts.models import User
    from shashki.server.ratings import RatingService
    from shashki.server.ratings.models import PlayerRating
    from shashki.server.ratings.service import PROVISIONAL_GAMES
    from shashki.server.storage import Database

    at = datetime(2024, 1, 1, tzinfo=UTC)
    accounts = [(1, "Anna", None, 1900.0), (2, "Boris", at, 1800.0), (3, "Vera", None, 1700.0)]

    async def scenario():
        db = await Database(f"sqlite+aiosqlite:///{tmp_path / 'db.sqlite3'}").open()
        try:
            async with db.session() as s:
                for user_id, name, closed_at, _ in accounts:
                    s.add(
                        User(
                            id=user_id,
                            username=name,
                            username_key=name.lower(),
                            password_hash="-",
                            created_at=at,
                            closed_at=closed_at,
                        )
                    )
                await s.flush()
                for user_id, _, _, rating in accounts:
                    s.add(
                        PlayerRating(
                            user_id=user_id,
                            variant="russian-giveaway",
                            speed="blitz",
                            rating=rating,
                            deviation=60.0,
                            volatility=0.06,
                            games=PROVISIONAL_GAMES,
                            updated_at=at,
                        )
                    )
                await s.commit()
            ratings = RatingService(db)
            board = await ratings.leaderboard("russian-giveaway", "blitz")
            kept = await ratings.leaderboard("russian-giveaway", "blitz", limit=2)  # two open ones
            return board, kept
        finally:
            await db.close()

    board, kept = asyncio.run(scenario())
    assert [(row["rank"], row["user"]["username"]) for row in board] == [(1, "Anna"), (2, "Vera")]
    assert [row["user"]["username"] for row in kept] == ["Anna", "Vera"]
