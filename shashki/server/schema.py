"""The whole schema: every domain's tables on the one `Base.metadata`, for the Alembic migrations and the
test that checks the migrations build exactly these tables (the migrations live in `storage/migrations`).
"""

from __future__ import annotations

from sqlalchemy import MetaData

import shashki.server.accounts.models
import shashki.server.chat.models
import shashki.server.explorer.models
import shashki.server.games.models
import shashki.server.lobby.models
import shashki.server.notifications.models
import shashki.server.puzzles.models
import shashki.server.ratings.models
import shashki.server.reviews.models
import shashki.server.simuls.models
import shashki.server.social.models
import shashki.server.tournaments.models  # noqa: F401  (each module adds its tables to Base.metadata)
from shashki.server.storage.base import Base

metadata: MetaData = Base.metadata
