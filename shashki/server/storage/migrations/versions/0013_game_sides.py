"""What a game keeps of each side besides its clock, as lichess keeps it: `games.white_berserk` and
`black_berserk` (an arena's berserk halves that side's clock and takes its increment away), the ply of
each side's last draw offer, `white_draw_ply` and `black_draw_ply` (a side that offered a draw offers again
only 20 plies later), and whether each player's rating was provisional when a rated game began,
`white_provisional` and `black_provisional` (written with the ratings at its end; filled here from the
rating history: fewer than ten rated games in its variant and speed before it; statements marked
`/* migration fill */`, read once, whole).

Revision ID: 0013_game_sides
Revises: 0012_heartbeat
"""

import sqlalchemy as sa
from alembic import op

revision = "0013_game_sides"
down_revision = "0012_heartbeat"
branch_labels = None
depends_on = None

FILL = "/* migration fill */"

# A player's rated games before this one in its variant and speed, counted from the rating history (each
# rated game adds a row to it, its id in the order they were written; `{color}` a seat's column prefix).
_BEFORE = """
    (SELECT count(*) FROM rating_history AS earlier JOIN rating_history AS this_game
       ON this_game.game_id = games.id AND this_game.user_id = games.{color}_id
     WHERE earlier.user_id = this_game.user_id AND earlier.variant = this_game.variant
       AND earlier.speed = this_game.speed AND earlier.id < this_game.id)
"""


def upgrade() -> None:
    with op.batch_alter_table("games", schema=None) as batch_op:
        for column in ("white_berserk", "black_berserk"):
            # A plain default ("0": false in SQLite and PostgreSQL) keeps SQLite's ALTER TABLE ... ADD
            # COLUMN: an expression (sa.false()) makes Alembic copy the whole table.
            batch_op.add_column(sa.Column(column, sa.Boolean(), nullable=False, server_default="0"))
        batch_op.add_column(sa.Column("white_draw_ply", sa.Integer(), nullable=True))
        batch_op.add_column(sa.Column("black_draw_ply", sa.Integer(), nullable=True))
        batch_op.add_column(sa.Column("white_provisional", sa.Boolean(), nullable=True))
        batch_op.add_column(sa.Column("black_provisional", sa.Boolean(), nullable=True))
    for color in ("white", "black"):
        op.execute(
            f"{FILL} UPDATE games SET {color}_berserk = true WHERE id IN "
            f"(SELECT game_id FROM tournament_pairings WHERE {color}_berserk AND game_id IS NOT NULL)"
        )
        op.execute(
            f"{FILL} UPDATE games SET {color}_provisional = ({_BEFORE.format(color=color)} < 10) "
            f"WHERE {color}_rating IS NOT NULL AND EXISTS (SELECT 1 FROM rating_history AS this_game "
            f"WHERE this_game.game_id = games.id AND this_game.user_id = games.{color}_id)"
        )


def downgrade() -> None:
    with op.batch_alter_table("games", schema=None) as batch_op:
        for column in ("black_provisional", "white_provisional", "black_draw_ply", "white_draw_ply",
                       "black_berserk", "white_berserk"):  # fmt: skip
            batch_op.drop_column(column)
