"""Puzzles: the puzzles with their ratings, players' puzzle ratings, attempts, daily puzzles.

Revision ID: 0004_puzzles
Revises: 0003_social
"""

import sqlalchemy as sa
from alembic import op

revision = "0004_puzzles"
down_revision = "0003_social"
branch_labels = None
depends_on = None


def upgrade() -> None:
    op.create_table(
        "puzzles",
        sa.Column("id", sa.String(length=16), nullable=False),
        sa.Column("variant", sa.String(length=40), nullable=False),
        sa.Column("fen", sa.String(length=400), nullable=False),
        sa.Column("solution", sa.Text(), nullable=False),
        sa.Column("themes", sa.String(length=200), nullable=False),
        sa.Column("verified", sa.String(length=12), nullable=False),
        sa.Column("game_id", sa.String(length=12), nullable=True),
        sa.Column("ply", sa.Integer(), nullable=True),
        sa.Column("rating", sa.Float(), nullable=False),
        sa.Column("deviation", sa.Float(), nullable=False),
        sa.Column("volatility", sa.Float(), nullable=False),
        sa.Column("plays", sa.Integer(), nullable=False),
        sa.Column("created_at", sa.DateTime(timezone=True), nullable=False),
        sa.PrimaryKeyConstraint("id", name=op.f("pk_puzzles")),
    )
    op.create_index("ix_puzzles_variant_rating", "puzzles", ["variant", "rating"], unique=False)
    op.create_table(
        "puzzle_ratings",
        sa.Column("user_id", sa.Integer(), nullable=False),
        sa.Column("variant", sa.String(length=40), nullable=False),
        sa.Column("rating", sa.Float(), nullable=False),
        sa.Column("deviation", sa.Float(), nullable=False),
        sa.Column("volatility", sa.Float(), nullable=False),
        sa.Column("attempts", sa.Integer(), nullable=False),
        sa.Column("solved", sa.Integer(), nullable=False),
        sa.Column("updated_at", sa.DateTime(timezone=True), nullable=False),
        sa.ForeignKeyConstraint(
            ["user_id"], ["users.id"], name=op.f("fk_puzzle_ratings_user_id_users"), ondelete="CASCADE"
        ),
        sa.PrimaryKeyConstraint("user_id", "variant", name=op.f("pk_puzzle_ratings")),
    )
    op.create_table(
        "puzzle_attempts",
        sa.Column("id", sa.Integer(), nullable=False),
        sa.Column("user_id", sa.Integer(), nullable=False),
        sa.Column("puzzle_id", sa.String(length=16), nullable=False),
        sa.Column("variant", sa.String(length=40), nullable=False),
        sa.Column("solved", sa.Boolean(), nullable=False),
        sa.Column("rated", sa.Boolean(), nullable=False),
        sa.Column("at", sa.DateTime(timezone=True), nullable=False),
        sa.Column("rating_before", sa.Float(), nullable=False),
        sa.Column("rating_after", sa.Float(), nullable=False),
        sa.ForeignKeyConstraint(
            ["user_id"], ["users.id"], name=op.f("fk_puzzle_attempts_user_id_users"), ondelete="CASCADE"
        ),
        sa.ForeignKeyConstraint(
            ["puzzle_id"],
            ["puzzles.id"],
            name=op.f("fk_puzzle_attempts_puzzle_id_puzzles"),
            ondelete="CASCADE",
        ),
        sa.PrimaryKeyConstraint("id", name=op.f("pk_puzzle_attempts")),
    )
    op.create_index("ix_puzzle_attempts_user_at", "puzzle_attempts", ["user_id", "at"], unique=False)
    op.create_index(
        "ix_puzzle_attempts_user_puzzle", "puzzle_attempts", ["user_id", "puzzle_id"], unique=False
    )
    op.create_table(
        "puzzle_daily",
        sa.Column("variant", sa.String(length=40), nullable=False),
        sa.Column("day", sa.String(length=10), nullable=False),
        sa.Column("puzzle_id", sa.String(length=16), nullable=False),
        sa.ForeignKeyConstraint(
            ["puzzle_id"], ["puzzles.id"], name=op.f("fk_puzzle_daily_puzzle_id_puzzles"), ondelete="CASCADE"
        ),
        sa.PrimaryKeyConstraint("variant", "day", name=op.f("pk_puzzle_daily")),
    )


def downgrade() -> None:
    op.drop_table("puzzle_daily")
    op.drop_index("ix_puzzle_attempts_user_puzzle", table_name="puzzle_attempts")
    op.drop_index("ix_puzzle_attempts_user_at", table_name="puzzle_attempts")
    op.drop_table("puzzle_attempts")
    op.drop_table("puzzle_ratings")
    op.drop_index("ix_puzzles_variant_rating", table_name="puzzles")
    op.drop_table("puzzles")
