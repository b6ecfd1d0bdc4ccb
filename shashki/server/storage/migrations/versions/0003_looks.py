"""The accounts' preferences of the pages' looks: theme, board style and piece style (issue 16, point 5).

Revision ID: 0003_looks
Revises: 0003_reviews
"""

import sqlalchemy as sa
from alembic import op

revision = "0003_looks"
down_revision = "0003_reviews"
branch_labels = None
depends_on = None


def upgrade() -> None:
    op.create_table(
        "account_preferences",
        sa.Column("user_id", sa.Integer(), nullable=False),
        sa.Column("theme", sa.String(length=8), nullable=False),
        sa.Column("board", sa.String(length=12), nullable=False),
        sa.Column("pieces", sa.String(length=12), nullable=False),
        sa.Column("updated_at", sa.DateTime(timezone=True), nullable=False),
        sa.ForeignKeyConstraint(
            ["user_id"], ["users.id"], name=op.f("fk_account_preferences_user_id_users"), ondelete="CASCADE"
        ),
        sa.PrimaryKeyConstraint("user_id", name=op.f("pk_account_preferences")),
    )


def downgrade() -> None:
    op.drop_table("account_preferences")
