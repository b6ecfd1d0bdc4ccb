"""Games: moves, clocks, draw offers, resignation, abort, time-outs, the computer opponent."""
