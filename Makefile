# Two entry points, each creating what it needs: `make demo` and `make test`.
# `make docs` builds the documentation site into site/; `make serve-docs` serves it while you edit.
PYTHON ?= python3
VENV   := .venv
BIN    := $(VENV)/bin
STAMP  := $(VENV)/.installed
DOCS_STAMP := $(VENV)/.installed-docs
DOCS_ADDR  ?= 127.0.0.1:8000
# mkdocs-material prints a notice about MkDocs 2 on every build; it is not about this site.
export NO_MKDOCS_2_WARNING := 1

.PHONY: demo test bench check docs serve-docs clean

$(STAMP): pyproject.toml
	$(PYTHON) -m venv $(VENV)
	$(BIN)/python -m pip install --quiet --upgrade pip
	$(BIN)/python -m pip install --quiet -e '.[test,openspiel,pettingzoo,report,dask,web]'
	touch $(STAMP)

demo: $(STAMP)
	$(BIN)/fishrules check rulesets/*.fish
	$(BIN)/fishrules simulate fishfry --games 300 --seed 1
	$(BIN)/fishrules simulate fishfry-keeper --players 4 --games 200 --seed 1

test: $(STAMP)
	$(BIN)/fishrules check rulesets/*.fish
	$(BIN)/python -m mypy
	$(BIN)/python -m pytest -q

bench: $(STAMP)
	$(BIN)/python benchmarks/bench.py

check: $(STAMP)
	$(BIN)/fishrules check rulesets/*.fish

# The `docs` extra (mkdocs, Material, mkdocstrings) on top of the test install, once.
$(DOCS_STAMP): $(STAMP)
	$(BIN)/python -m pip install --quiet -e '.[test,openspiel,pettingzoo,report,dask,web,docs]'
	touch $(DOCS_STAMP)

# --strict: any warning (a broken link or anchor, a page missing from the nav, a docstring that
# does not render) fails the build, and so CI.
docs: $(DOCS_STAMP)
	$(BIN)/mkdocs build --strict

serve-docs: $(DOCS_STAMP)
	$(BIN)/mkdocs serve --dev-addr $(DOCS_ADDR)

clean:
	rm -rf $(VENV) .pytest_cache .hypothesis .mypy_cache site
