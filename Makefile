# fabric planner: `make run` serves the app, `make test` runs every test.
PYTHON ?= python3
VENV := .venv
BIN := $(VENV)/bin
PORT ?= 8501
# HOST=0.0.0.0 make run serves on every interface; the default is this machine only
HOST ?= 127.0.0.1
# MODE=dev make run shows full error details in the browser and reruns on save (see webui/serve.py)
MODE ?= production

.PHONY: run test test-fast bench chromium nginx fonts slurm promtool ibsim i18n clean

$(BIN)/python:
	$(PYTHON) -m venv $(VENV)

$(VENV)/.runtime: requirements.txt | $(BIN)/python
	$(BIN)/python -m pip install -q --disable-pip-version-check -r requirements.txt
	touch $@

$(VENV)/.dev: requirements.txt requirements-dev.txt | $(BIN)/python
	$(BIN)/python -m pip install -q --disable-pip-version-check -r requirements-dev.txt
	touch $(VENV)/.runtime $@

# The compiled translations (core/i18n.py loads them; it compiles in memory when this is missing)
MO := assets/locales/zh/LC_MESSAGES/messages.mo
$(MO): assets/locales/zh/LC_MESSAGES/messages.po | $(VENV)/.runtime
	$(BIN)/python -m tools.i18n_update --compile

## Update the translation catalog from the code after changing messages (then translate the new ones)
i18n: $(VENV)/.runtime
	$(BIN)/python -m tools.i18n_update

## Install Debian's Noto CJK fonts when missing, so charts and screenshots render Chinese (CI runs as root)
fonts:
	@if ! fc-list 2>/dev/null | grep -qi "Noto Sans CJK"; then \
	  SUDO=$$( [ "$$(id -u)" = 0 ] || echo sudo ); \
	  $$SUDO apt-get update -qq && DEBIAN_FRONTEND=noninteractive $$SUDO apt-get install -y -qq fonts-noto-cjk >/dev/null; \
	fi

## Serve the app on http://$(HOST):$(PORT) (default http://127.0.0.1:8501)
# (chromium and fonts: the review pack's PDF is printed by headless Chromium, Chinese in Noto CJK)
run: $(VENV)/.runtime $(MO) chromium fonts
	MODE=$(MODE) $(BIN)/python -m webui.serve --server.address $(HOST) --server.port $(PORT) \
	  --server.headless true --browser.gatherUsageStats false

## Install Debian's chromium for the browser tests when it is missing (CI runs as root)
chromium:
	@if [ ! -x /usr/bin/chromium ]; then \
	  SUDO=$$( [ "$$(id -u)" = 0 ] || echo sudo ); \
	  $$SUDO apt-get update -qq && DEBIAN_FRONTEND=noninteractive $$SUDO apt-get install -y -qq chromium >/dev/null; \
	fi

## Install Debian's nginx for the replica test (tests/test_replicas.py) when it is missing
nginx:
	@if ! command -v nginx >/dev/null 2>&1 && [ ! -x /usr/sbin/nginx ]; then \
	  SUDO=$$( [ "$$(id -u)" = 0 ] || echo sudo ); \
	  $$SUDO apt-get update -qq && DEBIAN_FRONTEND=noninteractive $$SUDO apt-get install -y -qq nginx >/dev/null; \
	fi

## Install Debian's slurmctld and scontrol for the Slurm export test (tests/test_export_slurm.py) when missing
slurm:
	@if ! command -v slurmctld >/dev/null 2>&1 && [ ! -x /usr/sbin/slurmctld ]; then \
	  SUDO=$$( [ "$$(id -u)" = 0 ] || echo sudo ); \
	  $$SUDO apt-get update -qq && DEBIAN_FRONTEND=noninteractive $$SUDO apt-get install -y -qq --no-install-recommends slurmctld slurm-client >/dev/null; \
	fi

## Install Debian's prometheus (for promtool) for the alert rules test (tests/test_export_prometheus.py) when missing
promtool:
	@if ! command -v promtool >/dev/null 2>&1; then \
	  SUDO=$$( [ "$$(id -u)" = 0 ] || echo sudo ); \
	  $$SUDO apt-get update -qq && DEBIAN_FRONTEND=noninteractive $$SUDO apt-get install -y -qq --no-install-recommends prometheus >/dev/null; \
	fi

## Install Debian's ibsim-utils and infiniband-diags for the as-built round trip (tests/test_verify_ibsim.py) when
## missing: ibsim simulates the exported fabric, the real ibnetdiscover discovers it (opensm for its fat-tree check)
ibsim:
	@if ! command -v ibsim >/dev/null 2>&1 || { ! command -v ibnetdiscover >/dev/null 2>&1 && [ ! -x /usr/sbin/ibnetdiscover ]; } \
	    || { ! command -v opensm >/dev/null 2>&1 && [ ! -x /usr/sbin/opensm ]; }; then \
	  SUDO=$$( [ "$$(id -u)" = 0 ] || echo sudo ); \
	  $$SUDO apt-get update -qq && DEBIAN_FRONTEND=noninteractive $$SUDO apt-get install -y -qq --no-install-recommends ibsim-utils infiniband-diags opensm >/dev/null; \
	fi

## Every test: unit, property, golden, AppTest, end-to-end in headless Chromium, replicas behind nginx
test: $(VENV)/.dev $(MO) chromium nginx fonts slurm promtool ibsim
	$(BIN)/python -m pytest -n 2 -q

## Everything except the browser tests
test-fast: $(VENV)/.dev $(MO)
	$(BIN)/python -m pytest -n 2 -q -m "not e2e"

## Benchmarks (not timed tests): planning, graphs, app reruns, collectives, concurrent sessions
bench: $(VENV)/.dev $(MO) chromium fonts
	$(BIN)/python benchmarks/run.py

clean:
	rm -rf $(VENV) .pytest_cache .hypothesis test-artifacts
