"""A player's games counted as they happen, and found by status (issue 11: reads that grew with a player's
games):
- `player_game_counts`: a row per player with their games, in play, finished rated, won, lost and drawn
  (games/tally.py), which the profile counted over every game of the player at each view; filled from
  the games stored;
- each seat's games by (player, status), in place of the player alone: a player's games in play (the Bot
  API's list of games in play, "your turn", the profile) found without reading every game they played.
  Reads by the player alone use them, or the (player, created_at, id) indexes of 0006.

Revision ID: 0008_player_tally
Revises: 0007_puzzle_draw
"""

import sqlalchemy as sa
from alembic import op

revision = "0008_player_tally"
down_revision = "0007_puzzle_draw"
branch_labels = None
depends_on = None

FILL = "/* migration fill */"
COUNTS = ("games", "playing", "rated", "won", "lost", "drawn")
COUNTED = """
SELECT user_id, count(*),
       sum(CASE WHEN status = 'started' THEN 1 ELSE 0 END),
       sum(CASE WHEN status = 'finished' AND rated THEN 1 ELSE 0 END),
       sum(CASE WHEN status = 'finished' AND winner = seat THEN 1 ELSE 0 END),
       sum(CASE WHEN status = 'finished' AND winner IS NOT NULL AND winner <> seat THEN 1 ELSE 0 END),
       sum(CASE WHEN status = 'finished' AND winner IS NULL THEN 1 ELSE 0 END)
FROM (SELECT white_id AS user_id, 'white' AS seat, status, rated, winner FROM games WHERE white_id IS NOT NULL
      UNION ALL
      SELECT black_id, 'black', status, rated, winner FROM games WHERE black_id IS NOT NULL) AS seats
GROUP BY user_id
"""


def upgrade() -> None:
    op.create_table(
        "player_game_counts",
        sa.Column("user_id", sa.Integer(), nullable=False),
        *(sa.Column(name, sa.Integer(), nullable=False) for name in COUNTS),
        sa.ForeignKeyConstraint(
            ["user_id"], ["users.id"], name=op.f("fk_player_game_counts_user_id_users"), ondelete="CASCADE"
        ),
        sa.PrimaryKeyConstraint("user_id", name=op.f("pk_player_game_counts")),
    )
    counted = " ".join(COUNTED.split())  # one line: a trace of the statements shows it as one
    columns = ", ".join(("user_id", *COUNTS))
    op.get_bind().execute(sa.text(f"{FILL} INSERT INTO player_game_counts ({columns}) {counted}"))
    op.drop_index("ix_games_white_id", table_name="games")
    op.drop_index("ix_games_black_id", table_name="games")
    op.create_index("ix_games_white_status", "games", ["white_id", "status"], unique=False)
    op.create_index("ix_games_black_status", "games", ["black_id", "status"], unique=False)


def downgrade() -> None:
    op.drop_index("ix_games_black_status", table_name="games")
    op.drop_index("ix_games_white_status", table_name="games")
    op.create_index("ix_games_black_id", "games", ["black_id"], unique=False)
    op.create_index("ix_games_white_id", "games", ["white_id"], unique=False)
    op.drop_table("player_game_counts")
