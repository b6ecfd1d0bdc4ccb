"""Initial schema: users, sessions, API tokens, seeks, challenges, games and their moves.

Revision ID: 0001
Revises:
"""

import sqlalchemy as sa
from alembic import op

revision = "0001"
down_revision = None
branch_labels = None
depends_on = None


def upgrade() -> None:
    op.create_table(
        "users",
        sa.Column("id", sa.Integer(), nullable=False),
        sa.Column("username", sa.String(length=30), nullable=False),
        sa.Column("username_key", sa.String(length=30), nullable=False),
        sa.Column("password_hash", sa.Text(), nullable=False),
        sa.Column("is_bot", sa.Boolean(), nullable=False),
        sa.Column("created_at", sa.DateTime(timezone=True), nullable=False),
        sa.PrimaryKeyConstraint("id", name=op.f("pk_users")),
        sa.UniqueConstraint("username_key", name=op.f("uq_users_username_key")),
    )
    op.create_table(
        "api_tokens",
        sa.Column("id", sa.Integer(), nullable=False),
        sa.Column("token_hash", sa.String(length=64), nullable=False),
        sa.Column("user_id", sa.Integer(), nullable=False),
        sa.Column("description", sa.String(length=100), nullable=False),
        sa.Column("scopes", sa.String(length=200), nullable=False),
        sa.Column("created_at", sa.DateTime(timezone=True), nullable=False),
        sa.Column("revoked_at", sa.DateTime(timezone=True), nullable=True),
        sa.ForeignKeyConstraint(
            ["user_id"], ["users.id"], name=op.f("fk_api_tokens_user_id_users"), ondelete="CASCADE"
        ),
        sa.PrimaryKeyConstraint("id", name=op.f("pk_api_tokens")),
        sa.UniqueConstraint("token_hash", name=op.f("uq_api_tokens_token_hash")),
    )
    with op.batch_alter_table("api_tokens", schema=None) as batch_op:
        batch_op.create_index(batch_op.f("ix_api_tokens_user_id"), ["user_id"], unique=False)

    op.create_table(
        "challenges",
        sa.Column("id", sa.Integer(), nullable=False),
        sa.Column("challenger_id", sa.Integer(), nullable=False),
        sa.Column("dest_user_id", sa.Integer(), nullable=False),
        sa.Column("variant", sa.String(length=40), nullable=False),
        sa.Column("double_diagonal", sa.Boolean(), nullable=False),
        sa.Column("clock_initial_ms", sa.BigInteger(), nullable=True),
        sa.Column("clock_increment_ms", sa.BigInteger(), nullable=False),
        sa.Column("rated", sa.Boolean(), nullable=False),
        sa.Column("color", sa.String(length=8), nullable=False),
        sa.Column("initial_fen", sa.Text(), nullable=True),
        sa.Column("status", sa.String(length=12), nullable=False),
        sa.Column("decline_reason", sa.String(length=20), nullable=True),
        sa.Column("game_id", sa.String(length=12), nullable=True),
        sa.Column("created_at", sa.DateTime(timezone=True), nullable=False),
        sa.ForeignKeyConstraint(
            ["challenger_id"],
            ["users.id"],
            name=op.f("fk_challenges_challenger_id_users"),
            ondelete="CASCADE",
        ),
        sa.ForeignKeyConstraint(
            ["dest_user_id"], ["users.id"], name=op.f("fk_challenges_dest_user_id_users"), ondelete="CASCADE"
        ),
        sa.PrimaryKeyConstraint("id", name=op.f("pk_challenges")),
    )
    with op.batch_alter_table("challenges", schema=None) as batch_op:
        batch_op.create_index(batch_op.f("ix_challenges_challenger_id"), ["challenger_id"], unique=False)
        batch_op.create_index(batch_op.f("ix_challenges_dest_user_id"), ["dest_user_id"], unique=False)
        batch_op.create_index(batch_op.f("ix_challenges_status"), ["status"], unique=False)

    op.create_table(
        "games",
        sa.Column("id", sa.String(length=12), nullable=False),
        sa.Column("variant", sa.String(length=40), nullable=False),
        sa.Column("double_diagonal", sa.Boolean(), nullable=False),
        sa.Column("white_id", sa.Integer(), nullable=True),
        sa.Column("black_id", sa.Integer(), nullable=True),
        sa.Column("computer_level", sa.Integer(), nullable=True),
        sa.Column("initial_fen", sa.Text(), nullable=True),
        sa.Column("rated", sa.Boolean(), nullable=False),
        sa.Column("clock_initial_ms", sa.BigInteger(), nullable=True),
        sa.Column("clock_increment_ms", sa.BigInteger(), nullable=False),
        sa.Column("white_ms", sa.BigInteger(), nullable=True),
        sa.Column("black_ms", sa.BigInteger(), nullable=True),
        sa.Column("turn_started_at", sa.DateTime(timezone=True), nullable=False),
        sa.Column("ply", sa.Integer(), nullable=False),
        sa.Column("version", sa.Integer(), nullable=False),
        sa.Column("status", sa.String(length=12), nullable=False),
        sa.Column("draw_offer", sa.String(length=8), nullable=True),
        sa.Column("result", sa.String(length=8), nullable=True),
        sa.Column("winner", sa.String(length=8), nullable=True),
        sa.Column("reason", sa.String(length=40), nullable=True),
        sa.Column("created_at", sa.DateTime(timezone=True), nullable=False),
        sa.Column("finished_at", sa.DateTime(timezone=True), nullable=True),
        sa.ForeignKeyConstraint(["black_id"], ["users.id"], name=op.f("fk_games_black_id_users")),
        sa.ForeignKeyConstraint(["white_id"], ["users.id"], name=op.f("fk_games_white_id_users")),
        sa.PrimaryKeyConstraint("id", name=op.f("pk_games")),
    )
    with op.batch_alter_table("games", schema=None) as batch_op:
        batch_op.create_index(batch_op.f("ix_games_black_id"), ["black_id"], unique=False)
        batch_op.create_index(batch_op.f("ix_games_status"), ["status"], unique=False)
        batch_op.create_index(batch_op.f("ix_games_white_id"), ["white_id"], unique=False)

    op.create_table(
        "seeks",
        sa.Column("id", sa.Integer(), nullable=False),
        sa.Column("user_id", sa.Integer(), nullable=False),
        sa.Column("variant", sa.String(length=40), nullable=False),
        sa.Column("double_diagonal", sa.Boolean(), nullable=False),
        sa.Column("clock_initial_ms", sa.BigInteger(), nullable=True),
        sa.Column("clock_increment_ms", sa.BigInteger(), nullable=False),
        sa.Column("rated", sa.Boolean(), nullable=False),
        sa.Column("color", sa.String(length=8), nullable=False),
        sa.Column("status", sa.String(length=12), nullable=False),
        sa.Column("game_id", sa.String(length=12), nullable=True),
        sa.Column("created_at", sa.DateTime(timezone=True), nullable=False),
        sa.ForeignKeyConstraint(
            ["user_id"], ["users.id"], name=op.f("fk_seeks_user_id_users"), ondelete="CASCADE"
        ),
        sa.PrimaryKeyConstraint("id", name=op.f("pk_seeks")),
    )
    with op.batch_alter_table("seeks", schema=None) as batch_op:
        batch_op.create_index(batch_op.f("ix_seeks_status"), ["status"], unique=False)
        batch_op.create_index(batch_op.f("ix_seeks_user_id"), ["user_id"], unique=False)

    op.create_table(
        "sessions",
        sa.Column("id", sa.Integer(), nullable=False),
        sa.Column("token_hash", sa.String(length=64), nullable=False),
        sa.Column("user_id", sa.Integer(), nullable=False),
        sa.Column("csrf_token", sa.String(length=64), nullable=False),
        sa.Column("created_at", sa.DateTime(timezone=True), nullable=False),
        sa.Column("expires_at", sa.DateTime(timezone=True), nullable=False),
        sa.ForeignKeyConstraint(
            ["user_id"], ["users.id"], name=op.f("fk_sessions_user_id_users"), ondelete="CASCADE"
        ),
        sa.PrimaryKeyConstraint("id", name=op.f("pk_sessions")),
        sa.UniqueConstraint("token_hash", name=op.f("uq_sessions_token_hash")),
    )
    with op.batch_alter_table("sessions", schema=None) as batch_op:
        batch_op.create_index(batch_op.f("ix_sessions_user_id"), ["user_id"], unique=False)

    op.create_table(
        "moves",
        sa.Column("id", sa.Integer(), nullable=False),
        sa.Column("game_id", sa.String(length=12), nullable=False),
        sa.Column("ply", sa.Integer(), nullable=False),
        sa.Column("notation", sa.String(length=200), nullable=False),
        sa.Column("clock_ms", sa.BigInteger(), nullable=True),
        sa.Column("played_at", sa.DateTime(timezone=True), nullable=False),
        sa.ForeignKeyConstraint(
            ["game_id"], ["games.id"], name=op.f("fk_moves_game_id_games"), ondelete="CASCADE"
        ),
        sa.PrimaryKeyConstraint("id", name=op.f("pk_moves")),
        sa.UniqueConstraint("game_id", "ply", name="uq_moves_game_id_ply"),
    )


def downgrade() -> None:
    op.drop_table("moves")
    with op.batch_alter_table("sessions", schema=None) as batch_op:
        batch_op.drop_index(batch_op.f("ix_sessions_user_id"))

    op.drop_table("sessions")
    with op.batch_alter_table("seeks", schema=None) as batch_op:
        batch_op.drop_index(batch_op.f("ix_seeks_user_id"))
        batch_op.drop_index(batch_op.f("ix_seeks_status"))

    op.drop_table("seeks")
    with op.batch_alter_table("games", schema=None) as batch_op:
        batch_op.drop_index(batch_op.f("ix_games_white_id"))
        batch_op.drop_index(batch_op.f("ix_games_status"))
        batch_op.drop_index(batch_op.f("ix_games_black_id"))

    op.drop_table("games")
    with op.batch_alter_table("challenges", schema=None) as batch_op:
        batch_op.drop_index(batch_op.f("ix_challenges_status"))
        batch_op.drop_index(batch_op.f("ix_challenges_dest_user_id"))
        batch_op.drop_index(batch_op.f("ix_challenges_challenger_id"))

    op.drop_table("challenges")
    with op.batch_alter_table("api_tokens", schema=None) as batch_op:
        batch_op.drop_index(batch_op.f("ix_api_tokens_user_id"))

    op.drop_table("api_tokens")
    op.drop_table("users")
