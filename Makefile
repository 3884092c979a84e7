# Developer commands. `make test` is what CI runs (through .ci/run).
VENV ?= .venv
BIN := $(VENV)/bin

.PHONY: install install-router test lint format typecheck unit docs bench

# What the unit tests need: the SDK with the dev extra (which pulls the cli extra) and the
# demo model's own distribution (demo-model/). No torch: the router's tests skip without it.
install:
	test -x $(BIN)/python || python3 -m venv $(VENV)
	$(BIN)/python -m pip install -q -e ".[dev]" -e ./demo-model

# Adds the embedding router's models (transformers, MiniLM) on the CPU build of torch.
install-router: install
	./scripts/install-torch-cpu.sh $(BIN)/python
	$(BIN)/python -m pip install -q -e ".[dev,router]"

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

# The documentation site, as CI builds it (warnings are errors); `mkdocs serve` to read it.
docs:
	NO_MKDOCS_2_WARNING=1 $(BIN)/mkdocs build --strict -d $${TMPDIR:-/tmp}/toolcall-sdk-site

# What the SDK costs next to the raw openai client and pydantic-ai (docs/performance.md).
bench:
	$(BIN)/python -m pip install -q -e ".[bench]"
	$(BIN)/python benchmarks/overhead.py
