# Two commands set everything up on a fresh machine: `make run` and `make test`.
PYTHON ?= python3
VENV := .venv
BIN := $(VENV)/bin
STAMP := $(VENV)/.installed

.PHONY: run test test-fast test-slow bench lint clean chromium

# Reinstalling also recompiles the hot paths (setup.py's COMPILED) when their source changes.
COMPILED := shashki/rules/moves.py shashki/rules/captures.py shashki/rules/position.py \
	shashki/engine/evaluation.py shashki/engine/patterns.py shashki/engine/transposition.py \
	shashki/engine/moveorder.py shashki/engine/alphabeta.py shashki/engine/counts.py shashki/engine/tbmoves.py \
	shashki/engine/tbbuild.py shashki/engine/tbprobe.py
$(STAMP): pyproject.toml setup.py $(COMPILED)
	test -x $(BIN)/python || $(PYTHON) -m venv $(VENV)
	$(BIN)/python -m pip install -q --upgrade pip
	$(BIN)/python -m pip install -q -e '.[test]'
	touch $(STAMP)

# The whole service on http://127.0.0.1:8000 (SQLite under ./data, in-process events).
run: $(STAMP)
	$(BIN)/shashki serve

# The browser tests (tests/web) drive Debian's headless Chromium: installed here when missing and apt-get
# exists (`playwright install` downloads browsers, which this project never does).
chromium:
	@if [ ! -x /usr/bin/chromium ] && command -v apt-get >/dev/null; then \
		apt-get update -qq && apt-get install -y -qq -o DPkg::Lock::Timeout=300 chromium; \
	fi

# The whole suite: the fast tests, then the slow ones (deep perft, long random comparisons, browser games).
test: $(STAMP) chromium
	$(BIN)/python -m pytest -m 'not slow'
	$(BIN)/python -m pytest -m slow; rc=$$?; [ $$rc -eq 0 ] || [ $$rc -eq 5 ]

test-fast: $(STAMP)
	$(BIN)/python -m pytest

bench: $(STAMP)
	$(BIN)/python benchmarks/perft.py

lint: $(STAMP)
	$(BIN)/ruff check .
	$(BIN)/mypy

clean:
	rm -rf $(VENV) build *.egg-info
