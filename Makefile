# battlesim — two commands for a fresh machine: `make run` and `make test`.
PYTHON ?= python3
VENV   ?= .venv
BIN    := $(VENV)/bin
SCENARIO ?= scenarios/stone_wall.yaml
OUT    ?= out

FULL   := $(VENV)/.extras
# pip compiles each file it installs to bytecode, one at a time, the packages' own tests
# included: the extras' install took 49 s on 2 cores, 23 s with --no-compile. So they are
# installed so and the venv compiled here on every core without the packages' tests (8 s);
# a test of theirs that is ever imported compiles then, and a file of a package that does
# not compile is left to its import, as pip leaves it.
COMPILE = $(BIN)/python -m compileall -q -j0 -x 'site-packages/.+/tests?/' $(VENV)/lib || \
	echo 'make: compileall did not compile every file; those compile when imported' >&2
.PHONY: help run dev test browser check test-long lint typecheck pytest docs-examples bench bench-floor bench-replay bench-memory bench-batch bench-startup golden screenshots clean

## help: list these targets and what each does
help:
	@sed -n 's/^## //p' $(MAKEFILE_LIST)

# What a battle needs and nothing more (run, verify, show, why, diff, fork, report...).
$(BIN)/battlesim: pyproject.toml
	$(PYTHON) -m venv $(VENV)
	$(BIN)/python -m pip install --quiet --disable-pip-version-check -e .
	@touch $@

# Everything else: batch studies (study extra), Dask, notebooks, the test tools.
$(FULL): $(BIN)/battlesim
	$(BIN)/python -m pip install --quiet --disable-pip-version-check --no-compile -e '.[dev,dask,notebook,study]'
	$(COMPILE)
	@touch $@

## run: install what a battle needs, fight the default scenario headless, print the outcome and the replay path
run: $(BIN)/battlesim
	@mkdir -p $(OUT)
	$(BIN)/battlesim run $(SCENARIO) --out $(OUT)/$(notdir $(basename $(SCENARIO)))-default.jsonl

## dev: install every extra (studies, Dask, notebooks, test tools) into .venv
dev: $(FULL)

## test: install with every extra, then ruff, the browser, mypy --strict and pytest
##   (mypy beside pytest: ~17 CPU seconds from a cold cache, over well before pytest's end)
test: lint browser
	@$(MAKE) --no-print-directory -j2 typecheck pytest

## browser: the system Chromium the viewer's browser tests drive, installed when missing and
##   this is root on Debian with apt-get (.ci/chromium); else one line says those tests will skip
browser:
	@bash .ci/chromium

## lint: ruff check and ruff format --check over engine, sim, tests and benchmarks
lint: $(FULL)
	$(BIN)/ruff check engine sim tests benchmarks
	$(BIN)/ruff format --check engine sim tests benchmarks

## typecheck: mypy --strict (the files pyproject.toml names)
typecheck: $(FULL)
	$(BIN)/mypy

# On every core, 4 at most (pytest-xdist); each test file (or docs section) stays on one worker,
# the longest started first (tests/units.py). `make pytest WORKERS=0` runs in one process.
# The battlesim commands the tests run are forked from a process that has imported battlesim
# (tests/forkserver.py); BATTLESIM_TEST_SUBPROCESS=1 makes each a real process.
WORKERS ?= auto
## pytest: the whole suite on every core, four at most (WORKERS=0: one process)
pytest: $(FULL)
	$(BIN)/python -m compileall -q engine sim  # read by every battlesim the tests start, even under PYTHONDONTWRITEBYTECODE
	$(BIN)/python tests/assert_cache.py  # the test modules' rewritten asserts, written once for every worker
	$(BIN)/pytest -n $(WORKERS) --maxprocesses 4 --dist loadfile

## check: the tests a change touches, for the inner loop (pytest-testmon: those whose Python code
##   changed since they last ran, then the examples of each docs page git sees changed); the first
##   check runs every test once to learn what each one runs. `make test` (CI) runs everything.
check: $(FULL)
	$(BIN)/python -m compileall -q engine sim
	$(BIN)/python tests/assert_cache.py
	$(BIN)/pytest --testmon -n $(WORKERS) --maxprocesses 4 --dist loadfile || [ $$? -eq 5 ]
	@pages="$$($(BIN)/python tests/changed_pages.py)" && { [ -z "$$pages" ] || \
	  $(BIN)/pytest -n $(WORKERS) --maxprocesses 4 --dist loadfile $$pages; }

## docs-examples: rewrite the outputs README.md and docs/*.md show from what their commands print now
docs-examples: $(FULL)
	$(BIN)/python tests/readme_examples.py update --slow

## test-long: the tests too slow for CI (the 200,000-event flat-memory check, ~6 CPU-minutes;
##   issue 30's conduct targets over every shipped musket battle, ~40 CPU-seconds)
test-long: $(FULL)
	BATTLESIM_LONG_TESTS=1 $(BIN)/pytest tests/security/test_flat_memory.py tests/sim/test_conduct_target.py

## bench: the engine against the bare loop, the army-size sweep, start-up (figures, not a test)
bench: $(FULL)
	$(BIN)/python benchmarks/bench_scale.py

## bench-floor: what the framework's fixed pieces (line, chain, draws, build, apply, resumes) cost a resolution
bench-floor: $(FULL)
	$(BIN)/python benchmarks/bench_floor.py

## bench-replay: every replay tool's CPU, wall time and peak memory by replay size
bench-replay: $(FULL)
	$(BIN)/python benchmarks/bench_replay.py

## bench-memory: a large mixed battle's throughput and peak memory against battle length
bench-memory: $(FULL)
	$(BIN)/python benchmarks/bench_engine.py

## bench-batch: the batch-study benchmark (runs/s with 1 and 2 workers, overhead, memory)
bench-batch: $(FULL)
	$(BIN)/python benchmarks/bench_batch.py

## bench-startup: CPU of `battlesim --version`, `--help` and completion against the bare imports
bench-startup: $(FULL)
	$(BIN)/python benchmarks/bench_startup.py

## golden: fight the golden battles again and rewrite the replays whose bytes changed, naming
##   each (an explicit act: review the diff)
golden: $(FULL)
	$(BIN)/python tests/golden.py regenerate

## screenshots: the viewer screenshots docs/viewer.md shows (headless system Chromium)
screenshots: $(FULL)
	$(BIN)/python tests/viewer/screenshots.py

## clean: remove the venv, the replays `make run` wrote (out/ too, once empty), the tools' caches
##   and testmon's data; nothing else in out/, and no benchmark results
clean:
	rm -rf $(VENV) battlesim.egg-info .pytest_cache .mypy_cache .ruff_cache .hypothesis .testmondata*
	rm -f $(OUT)/*-default.jsonl $(OUT)/*-default.jsonl.partial
	@! [ -d $(OUT) ] || rmdir $(OUT) 2>/dev/null || echo "make: $(OUT)/ kept: it holds files make run did not write" >&2
