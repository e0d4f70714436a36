# Mocap Dynamics — every workflow is a make target. Needs only Python 3.11 and make.
PYTHON ?= python3.11
VENV := .venv
VENV45 := .venv-blender45
VENVPEERS := .venv-peers
PY := $(VENV)/bin/python
PY45 := $(VENV45)/bin/python
PYPEERS := $(VENVPEERS)/bin/python
PIP_FLAGS := --disable-pip-version-check --quiet

.PHONY: demo test lint test-unit test-blender test-blender45 test-peers bench extension venv clean

## The two Quick-start commands
demo: $(VENV)/.installed
	$(PY) scripts/demo.py --out out

test: lint test-unit test-blender test-blender45 test-peers

## Environments (created on first use, re-created when a requirements file changes)
venv: $(VENV)/.installed

$(VENV)/.installed: requirements/runtime.txt requirements/dev.txt
	$(PYTHON) -m venv $(VENV)
	$(VENV)/bin/pip install $(PIP_FLAGS) -r requirements/dev.txt
	touch $@

$(VENV45)/.installed: requirements/blender45.txt
	$(PYTHON) -m venv $(VENV45)
	$(VENV45)/bin/pip install $(PIP_FLAGS) -r requirements/blender45.txt
	touch $@

$(VENVPEERS)/.installed: requirements/peers.txt
	$(PYTHON) -m venv $(VENVPEERS)
	$(VENVPEERS)/bin/pip install $(PIP_FLAGS) -r requirements/peers.txt
	touch $@

## Lint: pyflakes and pycodestyle (ruff.toml)
lint: $(VENV)/.installed
	$(PY) -m ruff check .

## Tests: solver units, Blender 5.0 (module from PyPI), Blender 4.5 LTS (installed extension zip), peer engines
test-unit: $(VENV)/.installed
	$(PY) -m pytest tests/unit

test-blender: $(VENV)/.installed extension
	$(PY) -m pytest tests/blender

test-blender45: $(VENV45)/.installed extension
	MOCAP_DYNAMICS_TEST_MODE=installed $(PY45) -m pytest tests/blender

test-peers: $(VENVPEERS)/.installed  # numpy 2 there: its numba cache is kept apart from .venv's
	NUMBA_CACHE_DIR=$(VENVPEERS)/numba-cache $(PYPEERS) -m pytest tests/peers

## Benchmarks print figures; they are never timed tests (about 20 minutes in all)
#: The trials whose joint moments are compared with OpenSim's inverse dynamics (issue 15).
OPENSIM_TRIALS := subject4_walking1.trc subject4_walking4.trc subject4_DJ3.trc subject4_STS1.trc \
	opencap_video_DJ4.trc opencap_video_walking3.trc

bench: $(VENV)/.installed $(VENVPEERS)/.installed
	$(PY) scripts/bench_import.py
	$(PY) scripts/bench_otm.py
	$(PY) scripts/bench_lee.py
	$(PY) scripts/bench_gap_fill.py
	$(PYPEERS) scripts/bench_dynamics.py
	$(PY) scripts/bench_contact.py
	$(PY) scripts/bench_registry_recordings.py
	$(PY) scripts/bench_contact_priors.py
	$(PY) scripts/bench_foot_events.py
	@if [ -d ../shared/data ]; then NUMBA_CACHE_DIR=$(VENVPEERS)/numba-cache $(PYPEERS) scripts/compare_opensim_id.py \
		$(addprefix ../shared/data/,$(OPENSIM_TRIALS)); else echo "compare_opensim_id: skipped (../shared/data is absent)"; fi
	$(PY) scripts/bench_zerog.py
	$(PY) scripts/bench_render.py
	$(PY) scripts/bench_discovery.py
	$(PY) scripts/bench_retarget.py
	$(PY) scripts/bench_first_use.py
	$(PY) scripts/bench_long_trial.py

## Installable extension zips (one per platform) in dist/, built by Blender's own extension CLI
extension: $(VENV)/.installed
	$(PY) scripts/build_extension.py

clean:  # also numba's on-disk caches: they only notice edits to a kernel's own file
	rm -rf out dist wheels .pytest_cache
	find . -path ./.venv -prune -o -name "*.nbi" -delete -o -name "*.nbc" -delete
