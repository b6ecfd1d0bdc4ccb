"""Computer analyses of games: one review per game, its progress and its result.

Revision ID: 0003_reviews
Revises: 0003_explorer
"""

import sqlalchemy as sa
from alembic import op

revision = "0003_reviews"
down_revision = "0003_explorer"
branch_labels = None
depends_on = None


def upgrade() -> None:
    op.create_table(
        "game_reviews",
        sa.Column("game_id", sa.String(length=12), nullable=False),
        sa.Column("status", sa.String(length=12), nullable=False),
        sa.Column("done_plies", sa.Integer(), nullable=False),
        sa.Column("total_plies", sa.Integer(), nullable=False),
        sa.Column("requested_by", sa.Integer(), nullable=True),
        sa.Column("requested_at", sa.DateTime(timezone=True), nullable=False),
        sa.Column("finished_at", sa.DateTime(timezone=True), nullable=True),
        sa.Column("result", sa.Text(), nullable=True),
        sa.PrimaryKeyConstraint("game_id", name=op.f("pk_game_reviews")),
    )


def downgrade() -> None:
    op.drop_table("game_reviews")
