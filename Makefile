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

.PHONY: demo test bench check docs serve-docs serve system-deps screenshots clean figures

$(STAMP): pyproject.toml
	$(PYTHON) -m venv $(VENV)
	$(BIN)/python -m pip install --quiet --upgrade pip
	$(BIN)/python -m pip install --quiet -e '.[test,openspiel,pettingzoo,report,dask,web]'
	touch $(STAMP)

demo: $(STAMP)
	$(BIN)/fishrules check rulesets/*.fish
	$(BIN)/fishrules simulate fishfry --games 300 --seed 1
	$(BIN)/fishrules simulate fishfry-keeper --players 4 --games 200 --seed 1
	@echo
	@echo "fishrules is installed as $(BIN)/fishrules. To type just 'fishrules' in this shell:"
	@echo "    source $(BIN)/activate"
	@echo "then try: fishrules play fishfry"

# The tests of `fishrules serve` drive Debian's Chromium with Playwright and start PostgreSQL
# servers of their own: the Debian packages chromium and postgresql are installed when missing
# (as root, as CI runs; otherwise those tests say they are skipped, and why).
system-deps:
	@missing=""; \
	command -v chromium >/dev/null 2>&1 || missing="$$missing chromium"; \
	ls /usr/lib/postgresql/*/bin/initdb >/dev/null 2>&1 || missing="$$missing postgresql"; \
	if [ -n "$$missing" ]; then \
	  if [ "$$(id -u)" = 0 ] && command -v apt-get >/dev/null 2>&1; then \
	    echo "installing the Debian packages$$missing for the browser and database tests"; \
	    apt-get update -qq && DEBIAN_FRONTEND=noninteractive apt-get install -y -qq $$missing >/dev/null; \
	  else \
	    echo "note:$$missing not installed (needs root and apt-get): the tests that need them are skipped"; \
	  fi; \
	fi

# The suite runs in TEST_WORKERS processes (pytest-xdist), a test file to a process (its module-wide
# fixtures, a server or a browser, are started once): more than the cores, as much of it waits on
# the processes it starts.  The files are handed out longest first (tests/conftest.py's list; xdist
# would otherwise order them by their number of tests).  `make test TEST_WORKERS=0` runs it in one
# process.  mypy (15-20 s cold, in a fresh clone) runs beside the tests, its verdict printed after
# theirs; either failing fails the target.  The slowest tests are listed at the end: the whole of
# `make test` must stay under 8 minutes on two cores.
# The tests start hundreds of Python processes that import fishrules: where PYTHONDONTWRITEBYTECODE
# is set (as on CI here), each compiled every module of fishrules again, half of what such a
# process costs (0.35 of 0.7 CPU-s for a command that loads a ruleset), and each of the processes
# of the suite rewrote every test file's asserts again.  So the tests run with Python's default:
# compiled modules are kept in __pycache__ folders (ignored by git).  (Not in a folder of their own,
# PYTHONPYCACHEPREFIX: Python then looks for every compiled module there alone, and compiled the
# installed packages again too.)
TEST_WORKERS ?= 3

test: $(STAMP) system-deps
	$(BIN)/fishrules check rulesets/*.fish
	@typing=$$(mktemp); \
	$(BIN)/python -m mypy >$$typing 2>&1 & mypy=$$!; \
	env -u PYTHONDONTWRITEBYTECODE \
	  $(BIN)/python -m pytest -q -n $(TEST_WORKERS) --dist loadfile --no-loadscope-reorder --durations=25; tests=$$?; \
	wait $$mypy; typed=$$?; echo "mypy:"; cat $$typing; rm -f $$typing; \
	test $$tests = 0 && test $$typed = 0

# The house-rule tutorial's pictures, drawn by the command the tutorial shows.
figures: $(STAMP)
	$(BIN)/python tools/tutorial_figures.py

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

# Tables in the browser at http://127.0.0.1:8000 (`fishrules serve`; tables kept in fishrules.sqlite).
serve: $(STAMP)
	$(BIN)/fishrules serve

# The screenshots of docs/serve.md, taken by the browser tests as they play.
screenshots: $(STAMP) system-deps
	FISHRULES_SCREENSHOTS=$(CURDIR)/docs/images $(BIN)/python -m pytest -q tests/test_web_browser*.py

clean:
	rm -rf $(VENV) .pytest_cache .hypothesis .mypy_cache site
