"""Simultaneous exhibitions: a host plays many players at once (`service.py`, tables in `models.py`)."""

from shashki.server.simuls.service import SimulService, SimulTerms

__all__ = ["SimulService", "SimulTerms"]
