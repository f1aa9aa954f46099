# Two entry points, each creating what it needs: `make demo` and `make test`.
PYTHON ?= python3
VENV   := .venv
BIN    := $(VENV)/bin
STAMP  := $(VENV)/.installed

.PHONY: demo test bench check clean

$(STAMP): pyproject.toml
	$(PYTHON) -m venv $(VENV)
	$(BIN)/python -m pip install --quiet --upgrade pip
	$(BIN)/python -m pip install --quiet -e '.[test]'
	touch $(STAMP)

demo: $(STAMP)
	$(BIN)/fishrules check rulesets/*.fish
	$(BIN)/fishrules simulate fishfry --games 300 --seed 1
	$(BIN)/fishrules simulate fishfry-keeper --players 4 --games 200 --seed 1

test: $(STAMP)
	$(BIN)/fishrules check rulesets/*.fish
	$(BIN)/python -m pytest -q

bench: $(STAMP)
	$(BIN)/python benchmarks/bench.py

check: $(STAMP)
	$(BIN)/fishrules check rulesets/*.fish

clean:
	rm -rf $(VENV) .pytest_cache .hypothesis site
