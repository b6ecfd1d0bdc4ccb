"""Game lines the server and browser tests share."""

# A short Russian giveaway game from the start position: White gives away every piece it can and is left
# without a legal move after Black's 24th ply, so White wins (RULES.md §3: no legal move wins in giveaway).
GIVEAWAY_WIN_FOR_WHITE = [
    "c3-b4",
    "d6-e5",
    "e3-d4",
    "e5:c3:a5",
    "a3-b4",
    "a5:c3",
    "b2:d4",
    "c7-d6",
    "d4-c5",
    "b6:d4",
    "f2-e3",
    "d4:f2:h4",
    "h2-g3",
    "h4:f2",
    "e1:g3",
    "d6-e5",
    "g3-f4",
    "e5:g3",
    "g1-f2",
    "g3:e1:c3",
    "a1-b2",
    "c3:a1",
    "c1-b2",
    "a1:c3",
]
