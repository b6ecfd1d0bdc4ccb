"""The puzzles' draw and counts (issue 11: reads that grew with the puzzle collection):
- `puzzle_themes`: a row per puzzle and theme, and one under `any`, with the puzzle's rating band (50
  points), indexed by (variant, theme, band, puzzle id): the next puzzle is drawn from a random point of
  a band, not counted and offset into;
- `puzzle_counts`: the puzzles of each variant and theme (`any`: all) per band: the draw's choice of a
  band, and the themes page, which counted every puzzle at each request.
Both are filled from the puzzles stored (statements marked `/* migration fill */`: read once, whole;
tests/server/test_reads_stay_flat.py leaves them out).

Revision ID: 0007_puzzle_draw
Revises: 0006_history_indexes
"""

import sqlalchemy as sa
from alembic import op

revision = "0007_puzzle_draw"
down_revision = "0006_history_indexes"
branch_labels = None
depends_on = None

CHUNK = 5000
BAND = 50  # puzzles/draw.py
FILL = "/* migration fill */"


def upgrade() -> None:
    themes = op.create_table(
        "puzzle_themes",
        sa.Column("puzzle_id", sa.String(length=16), nullable=False),
        sa.Column("theme", sa.String(length=40), nullable=False),
        sa.Column("variant", sa.String(length=40), nullable=False),
        sa.Column("band", sa.Integer(), nullable=False),
        sa.ForeignKeyConstraint(
            ["puzzle_id"], ["puzzles.id"], name=op.f("fk_puzzle_themes_puzzle_id_puzzles"), ondelete="CASCADE"
        ),
        sa.PrimaryKeyConstraint("puzzle_id", "theme", name=op.f("pk_puzzle_themes")),
    )
    op.create_index(
        "ix_puzzle_themes_draw", "puzzle_themes", ["variant", "theme", "band", "puzzle_id"], unique=False
    )
    op.create_table(
        "puzzle_counts",
        sa.Column("variant", sa.String(length=40), nullable=False),
        sa.Column("theme", sa.String(length=40), nullable=False),
        sa.Column("band", sa.Integer(), nullable=False),
        sa.Column("count", sa.Integer(), nullable=False),
        sa.PrimaryKeyConstraint("variant", "theme", "band", name=op.f("pk_puzzle_counts")),
    )
    bind = op.get_bind()
    rows = bind.execute(sa.text(f"{FILL} SELECT id, variant, themes, rating FROM puzzles ORDER BY id"))
    while chunk := rows.fetchmany(CHUNK):
        op.bulk_insert(
            themes,
            [
                {"puzzle_id": id_, "theme": theme, "variant": variant, "band": int(rating // BAND)}
                for id_, variant, stored, rating in chunk
                for theme in ("any", *(t for t in stored.split(",") if t))
            ],
        )
    bind.execute(
        sa.text(
            f'{FILL} INSERT INTO puzzle_counts (variant, theme, band, "count") '
            "SELECT variant, theme, band, count(*) FROM puzzle_themes GROUP BY variant, theme, band"
        )
    )


def downgrade() -> None:
    op.drop_table("puzzle_counts")
    op.drop_index("ix_puzzle_themes_draw", table_name="puzzle_themes")
    op.drop_table("puzzle_themes")
