"""Ratings and their history, game chat, rematches, and the players' ratings recorded on rated games.

Revision ID: 0002
Revises: 0001
"""

import sqlalchemy as sa
from alembic import op

revision = "0002"
down_revision = "0001"
branch_labels = None
depends_on = None


def upgrade() -> None:
    with op.batch_alter_table("games", schema=None) as batch_op:
        batch_op.add_column(sa.Column("white_rating", sa.Integer(), nullable=True))
        batch_op.add_column(sa.Column("black_rating", sa.Integer(), nullable=True))
        batch_op.add_column(sa.Column("white_rating_diff", sa.Integer(), nullable=True))
        batch_op.add_column(sa.Column("black_rating_diff", sa.Integer(), nullable=True))
        batch_op.add_column(sa.Column("rematch_offer", sa.String(length=8), nullable=True))
        batch_op.add_column(sa.Column("rematch_id", sa.String(length=12), nullable=True))

    op.create_table(
        "ratings",
        sa.Column("id", sa.Integer(), nullable=False),
        sa.Column("user_id", sa.Integer(), nullable=False),
        sa.Column("variant", sa.String(length=40), nullable=False),
        sa.Column("speed", sa.String(length=12), nullable=False),
        sa.Column("rating", sa.Float(), nullable=False),
        sa.Column("deviation", sa.Float(), nullable=False),
        sa.Column("volatility", sa.Float(), nullable=False),
        sa.Column("games", sa.Integer(), nullable=False),
        sa.Column("updated_at", sa.DateTime(timezone=True), nullable=False),
        sa.ForeignKeyConstraint(
            ["user_id"], ["users.id"], name=op.f("fk_ratings_user_id_users"), ondelete="CASCADE"
        ),
        sa.PrimaryKeyConstraint("id", name=op.f("pk_ratings")),
        sa.UniqueConstraint("user_id", "variant", "speed", name="uq_ratings_user_id_variant_speed"),
    )
    op.create_index("ix_ratings_board", "ratings", ["variant", "speed", "rating"], unique=False)

    op.create_table(
        "rating_history",
        sa.Column("id", sa.Integer(), nullable=False),
        sa.Column("user_id", sa.Integer(), nullable=False),
        sa.Column("variant", sa.String(length=40), nullable=False),
        sa.Column("speed", sa.String(length=12), nullable=False),
        sa.Column("game_id", sa.String(length=12), nullable=False),
        sa.Column("rating", sa.Float(), nullable=False),
        sa.Column("deviation", sa.Float(), nullable=False),
        sa.Column("volatility", sa.Float(), nullable=False),
        sa.Column("recorded_at", sa.DateTime(timezone=True), nullable=False),
        sa.ForeignKeyConstraint(
            ["game_id"], ["games.id"], name=op.f("fk_rating_history_game_id_games"), ondelete="CASCADE"
        ),
        sa.ForeignKeyConstraint(
            ["user_id"], ["users.id"], name=op.f("fk_rating_history_user_id_users"), ondelete="CASCADE"
        ),
        sa.PrimaryKeyConstraint("id", name=op.f("pk_rating_history")),
    )
    op.create_index(
        "ix_rating_history_player", "rating_history", ["user_id", "variant", "speed"], unique=False
    )

    op.create_table(
        "chat_lines",
        sa.Column("id", sa.Integer(), nullable=False),
        sa.Column("game_id", sa.String(length=12), nullable=False),
        sa.Column("room", sa.String(length=10), nullable=False),
        sa.Column("user_id", sa.Integer(), nullable=False),
        sa.Column("text", sa.String(length=200), nullable=False),
        sa.Column("created_at", sa.DateTime(timezone=True), nullable=False),
        sa.ForeignKeyConstraint(
            ["game_id"], ["games.id"], name=op.f("fk_chat_lines_game_id_games"), ondelete="CASCADE"
        ),
        sa.ForeignKeyConstraint(
            ["user_id"], ["users.id"], name=op.f("fk_chat_lines_user_id_users"), ondelete="CASCADE"
        ),
        sa.PrimaryKeyConstraint("id", name=op.f("pk_chat_lines")),
    )
    op.create_index("ix_chat_lines_game", "chat_lines", ["game_id", "id"], unique=False)

    op.create_table(
        "chat_settings",
        sa.Column("game_id", sa.String(length=12), nullable=False),
        sa.Column("user_id", sa.Integer(), nullable=False),
        sa.Column("spectators", sa.String(length=8), nullable=False),
        sa.ForeignKeyConstraint(
            ["game_id"], ["games.id"], name=op.f("fk_chat_settings_game_id_games"), ondelete="CASCADE"
        ),
        sa.ForeignKeyConstraint(
            ["user_id"], ["users.id"], name=op.f("fk_chat_settings_user_id_users"), ondelete="CASCADE"
        ),
        sa.PrimaryKeyConstraint("game_id", "user_id", name=op.f("pk_chat_settings")),
    )


def downgrade() -> None:
    op.drop_table("chat_settings")
    op.drop_index("ix_chat_lines_game", table_name="chat_lines")
    op.drop_table("chat_lines")
    op.drop_index("ix_rating_history_player", table_name="rating_history")
    op.drop_table("rating_history")
    op.drop_index("ix_ratings_board", table_name="ratings")
    op.drop_table("ratings")
    with op.batch_alter_table("games", schema=None) as batch_op:
        batch_op.drop_column("rematch_id")
        batch_op.drop_column("rematch_offer")
        batch_op.drop_column("black_rating_diff")
        batch_op.drop_column("white_rating_diff")
        batch_op.drop_column("black_rating")
        batch_op.drop_column("white_rating")
