# Two entry points, both self-contained on a fresh machine:
#   make demo   set up everything, then run the main job end to end
#   make test   set up everything, then lint, type-check and run the whole test suite (as CI)
# For developers: make test-fast runs every test but those marked `long` (each over about 2 s:
# marked in their file or listed in tests/long_tests.txt): a few minutes (see README.md).
PYTHON ?= python3
VENV   ?= .venv
BIN    := $(VENV)/bin
STAMP  := $(VENV)/.tambench-installed

.PHONY: install demo test test-fast lint typecheck pytest clean

$(STAMP): pyproject.toml scripts/install-system-deps.sh
	bash scripts/install-system-deps.sh
	$(PYTHON) -m venv $(VENV)
	$(BIN)/python -m pip install --quiet --upgrade pip
	$(BIN)/python -m pip install --quiet -e '.[all,dev]'
	touch $(STAMP)

install: $(STAMP)

demo: install
	$(BIN)/tambench demo

lint: install
	$(BIN)/ruff check tambench tests bench

typecheck: install
	$(BIN)/mypy

pytest: install
	$(BIN)/pytest -q

test: lint typecheck pytest

test-fast: install
	$(BIN)/pytest -q -m "not long"

clean:
	rm -rf $(VENV) .mypy_cache .ruff_cache demo-output
