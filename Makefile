# Developer commands. `make test` is what CI runs (through .ci/run).
VENV ?= .venv
BIN := $(VENV)/bin

.PHONY: install test lint format typecheck unit

install:
	test -x $(BIN)/python || python3 -m venv $(VENV)
	$(BIN)/python -m pip install -q -e ".[dev]"

test:
	./scripts/test.sh

lint:
	$(BIN)/ruff check .
	$(BIN)/ruff format --check .

format:
	$(BIN)/ruff format .
	$(BIN)/ruff check --fix .

typecheck:
	$(BIN)/mypy

unit:
	$(BIN)/pytest tests/unit -q
