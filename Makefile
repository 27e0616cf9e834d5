# battlesim — two commands for a fresh machine: `make run` and `make test`.
PYTHON ?= python3
VENV   ?= .venv
BIN    := $(VENV)/bin
SCENARIO ?= scenarios/stone_wall.yaml
OUT    ?= out

.PHONY: run test lint typecheck pytest bench bench-floor bench-replay bench-memory bench-batch bench-startup golden screenshots clean

$(BIN)/battlesim: pyproject.toml
	$(PYTHON) -m venv $(VENV)
	$(BIN)/python -m pip install --quiet --upgrade pip
	$(BIN)/python -m pip install --quiet -e '.[dev,dask,notebook,study]'
	@touch $@

## run: install, fight the default scenario headless, print the outcome and the replay path
run: $(BIN)/battlesim
	@mkdir -p $(OUT)
	$(BIN)/battlesim run $(SCENARIO) --out $(OUT)/$(notdir $(basename $(SCENARIO)))-default.jsonl

## test: install with dev extras, then ruff, mypy --strict and pytest
test: lint typecheck pytest

lint: $(BIN)/battlesim
	$(BIN)/ruff check engine sim tests benchmarks
	$(BIN)/ruff format --check engine sim tests benchmarks

typecheck: $(BIN)/battlesim
	$(BIN)/mypy

pytest: $(BIN)/battlesim
	$(BIN)/pytest

## bench: the engine against the bare loop, the army-size sweep, start-up (figures, not a test)
bench: $(BIN)/battlesim
	$(BIN)/python benchmarks/bench_scale.py

## bench-floor: what the framework's fixed pieces (line, chain, draws, build, apply, resumes) cost a resolution
bench-floor: $(BIN)/battlesim
	$(BIN)/python benchmarks/bench_floor.py

## bench-replay: every replay tool's CPU, wall time and peak memory by replay size
bench-replay: $(BIN)/battlesim
	$(BIN)/python benchmarks/bench_replay.py

## bench-memory: a large mixed battle's throughput and peak memory against battle length
bench-memory: $(BIN)/battlesim
	$(BIN)/python benchmarks/bench_engine.py

## bench-batch: the batch-study benchmark (runs/s with 1 and 2 workers, overhead, memory)
bench-batch: $(BIN)/battlesim
	$(BIN)/python benchmarks/bench_batch.py

## bench-startup: CPU of `battlesim --version`, `--help` and completion against the bare imports
bench-startup: $(BIN)/battlesim
	$(BIN)/python benchmarks/bench_startup.py

## golden: regenerate the golden replays (an explicit, reviewed act)
golden: $(BIN)/battlesim
	$(BIN)/python tests/golden.py regenerate

## screenshots: the viewer screenshots docs/viewer.md shows (headless system Chromium)
screenshots: $(BIN)/battlesim
	$(BIN)/python tests/viewer/screenshots.py

clean:
	rm -rf $(VENV) $(OUT) .pytest_cache .mypy_cache .ruff_cache
