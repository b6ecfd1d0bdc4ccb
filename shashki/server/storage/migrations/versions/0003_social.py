"""Social: who follows whom and who blocks whom.

Revision ID: 0003_social
Revises: 0003_tcore
"""

import sqlalchemy as sa
from alembic import op

revision = "0003_social"
down_revision = "0003_tcore"
branch_labels = None
depends_on = None


def upgrade() -> None:
    op.create_table(
        "follows",
        sa.Column("follower_id", sa.Integer(), nullable=False),
        sa.Column("followed_id", sa.Integer(), nullable=False),
        sa.Column("created_at", sa.DateTime(timezone=True), nullable=False),
        sa.ForeignKeyConstraint(
            ["follower_id"], ["users.id"], name=op.f("fk_follows_follower_id_users"), ondelete="CASCADE"
        ),
        sa.ForeignKeyConstraint(
            ["followed_id"], ["users.id"], name=op.f("fk_follows_followed_id_users"), ondelete="CASCADE"
        ),
        sa.PrimaryKeyConstraint("follower_id", "followed_id", name=op.f("pk_follows")),
    )
    op.create_index("ix_follows_followed", "follows", ["followed_id"], unique=False)
    op.create_table(
        "blocks",
        sa.Column("blocker_id", sa.Integer(), nullable=False),
        sa.Column("blocked_id", sa.Integer(), nullable=False),
        sa.Column("created_at", sa.DateTime(timezone=True), nullable=False),
        sa.ForeignKeyConstraint(
            ["blocker_id"], ["users.id"], name=op.f("fk_blocks_blocker_id_users"), ondelete="CASCADE"
        ),
        sa.ForeignKeyConstraint(
            ["blocked_id"], ["users.id"], name=op.f("fk_blocks_blocked_id_users"), ondelete="CASCADE"
        ),
        sa.PrimaryKeyConstraint("blocker_id", "blocked_id", name=op.f("pk_blocks")),
    )
    op.create_index("ix_blocks_blocked", "blocks", ["blocked_id"], unique=False)


def downgrade() -> None:
    op.drop_index("ix_blocks_blocked", table_name="blocks")
    op.drop_table("blocks")
    op.drop_index("ix_follows_followed", table_name="follows")
    op.drop_table("follows")
