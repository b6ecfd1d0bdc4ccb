"""Test-wide settings.

Hypothesis explores new random examples on every local run; on CI (the CI environment variable set) it
runs a fixed, derandomized set, so that a submission's result does not depend on the draw.
"""

import os

from hypothesis import settings

settings.register_profile("ci", derandomize=True, database=None, deadline=None)
settings.register_profile("dev", deadline=None)
settings.load_profile("ci" if os.environ.get("CI") else "dev")
