"""Issue 14's browser test of a game's computer analysis: a finished game's page offers the analysis to a
logged-in player, shows its progress, then the evaluation graph, the accuracies and the marked moves; a
visitor without an account sees the same analysis."""

from __future__ import annotations

from game_lines import GIVEAWAY_WIN_FOR_WHITE
from server.helpers import Player


def test_request_a_games_analysis_and_see_the_graph(pages, server):
    white, black = Player(server), Player(server)
    gid = white.challenge(black, variant="russian-giveaway")["id"]
    for ply, move in enumerate(GIVEAWAY_WIN_FOR_WHITE):
        mover = white if ply % 2 == 0 else black
        assert mover.post(f"/api/games/{gid}/move", {"move": move, "ply": ply}).status_code == 200

    page = pages(f"/game/{gid}", player=white)
    page.click("#request-analysis")
    page.wait_for_selector("#review svg.eval-graph", timeout=90_000)
    accuracy = page.text_content("#accuracy")
    assert "White" in accuracy and "%" in accuracy
    points = page.get_attribute("#review svg.eval-graph polygon", "points")
    assert len(points.split()) == len(GIVEAWAY_WIN_FOR_WHITE) + 3  # every position, and the two corners

    visitor = pages(f"/game/{gid}")
    visitor.wait_for_selector("#review svg.eval-graph")
    assert visitor.locator("#request-analysis").count() == 0
    white.close()
    black.close()
