"""The analysis domain: the analysis board's positions, the engine's lines for them, and PDN import.

- `board`: a position from a variant, a FEN and moves (through the rules), as clients receive it;
- `lines`: the engine's multi-PV lines, deeper and deeper within a budget, in the engine's process pool;
- `pdn_import`: a PDN text's games as trees of positions (variations and comments kept);
- `service`: `AnalysisService`, the facade the HTTP adapter calls.
"""

from shashki.server.analysis.service import AnalysisService

__all__ = ["AnalysisService"]
