"""The opening explorer: the moves played from each position, with their results, and the games counted.

Revision ID: 0003_explorer
Revises: 0002
"""

import sqlalchemy as sa
from alembic import op

revision = "0003_explorer"
down_revision = "0002"
branch_labels = None
depends_on = None


def upgrade() -> None:
    op.create_table(
        "explorer_moves",
        sa.Column("variant", sa.String(length=40), nullable=False),
        sa.Column("position", sa.BigInteger(), nullable=False),
        sa.Column("move", sa.String(length=200), nullable=False),
        sa.Column("games", sa.Integer(), nullable=False),
        sa.Column("white", sa.Integer(), nullable=False),
        sa.Column("draws", sa.Integer(), nullable=False),
        sa.Column("black", sa.Integer(), nullable=False),
        sa.Column("rated", sa.Integer(), nullable=False),
        sa.Column("rating_sum", sa.BigInteger(), nullable=False),
        sa.PrimaryKeyConstraint("variant", "position", "move", name=op.f("pk_explorer_moves")),
    )
    op.create_table(
        "explorer_games",
        sa.Column("game_id", sa.String(length=12), nullable=False),
        sa.PrimaryKeyConstraint("game_id", name=op.f("pk_explorer_games")),
    )


def downgrade() -> None:
    op.drop_table("explorer_games")
    op.drop_table("explorer_moves")
