# Two commands do all the set-up on a fresh machine:
#   make run   — the main job (server with house bots, SQLite default)
#   make test  — the whole test suite
# Both create (or reuse) the virtualenv in .venv and install the project into it.

PYTHON ?= python3
VENV   := .venv
BIN    := $(VENV)/bin
STAMP  := $(VENV)/.installed

.PHONY: run test venv lint golden bench clean

$(STAMP): pyproject.toml
	@test -x $(BIN)/python || $(PYTHON) -m venv $(VENV)
	$(BIN)/python -m pip install --quiet --upgrade pip
	$(BIN)/python -m pip install --quiet -e '.[test,dev]'
	@touch $(STAMP)

venv: $(STAMP)

run: $(STAMP)
	$(BIN)/arena run $(ARGS)

# The suite runs on TEST_WORKERS processes (pytest-xdist; most tests wait on sockets,
# browsers and subprocesses, so two workers on two cores take about two thirds of the time
# of one). TEST_WORKERS=0 runs it in this process.
TEST_WORKERS ?= 2

test: $(STAMP)
	$(BIN)/python -m pytest -n $(TEST_WORKERS) $(PYTEST_ARGS)

lint: $(STAMP)
	$(BIN)/ruff check engine protocol server bots clients tools tests
	$(BIN)/mypy

golden: $(STAMP)
	$(BIN)/arena golden --write

bench: $(STAMP)
	$(BIN)/arena bench engine

clean:
	rm -rf $(VENV) .pytest_cache
