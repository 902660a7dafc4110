# fabric planner: `make run` serves the app, `make test` runs every test.
PYTHON ?= python3
VENV := .venv
BIN := $(VENV)/bin
PORT ?= 8501

.PHONY: run test test-fast bench chromium clean

$(BIN)/python:
	$(PYTHON) -m venv $(VENV)

$(VENV)/.runtime: requirements.txt | $(BIN)/python
	$(BIN)/python -m pip install -q --disable-pip-version-check -r requirements.txt
	touch $@

$(VENV)/.dev: requirements.txt requirements-dev.txt | $(BIN)/python
	$(BIN)/python -m pip install -q --disable-pip-version-check -r requirements-dev.txt
	touch $(VENV)/.runtime $@

## Serve the app on http://localhost:$(PORT)
run: $(VENV)/.runtime
	$(BIN)/python -m webui.serve --server.port $(PORT) --server.headless true --browser.gatherUsageStats false

## Install Debian's chromium for the browser tests when it is missing (CI runs as root)
chromium:
	@if [ ! -x /usr/bin/chromium ]; then \
	  SUDO=$$( [ "$$(id -u)" = 0 ] || echo sudo ); \
	  $$SUDO apt-get update -qq && DEBIAN_FRONTEND=noninteractive $$SUDO apt-get install -y -qq chromium >/dev/null; \
	fi

## Every test: unit, property, golden, AppTest and end-to-end in headless Chromium
test: $(VENV)/.dev chromium
	$(BIN)/python -m pytest -n 2 -q

## Everything except the browser tests
test-fast: $(VENV)/.dev
	$(BIN)/python -m pytest -n 2 -q -m "not e2e"

## Benchmarks (not timed tests): planning, graphs, app reruns, collectives
bench: $(VENV)/.dev
	$(BIN)/python benchmarks/run.py

clean:
	rm -rf $(VENV) .pytest_cache .hypothesis test-artifacts
