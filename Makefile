# The two set-up commands of the README. Each creates .venv if needed and installs what it needs.
PYTHON ?= python3
VENV ?= .venv
PY := $(VENV)/bin/python

.PHONY: demo test bench clean

$(VENV)/.core: pyproject.toml
	$(PYTHON) -m venv $(VENV)
	$(PY) -m pip install --quiet --upgrade pip
	$(PY) -m pip install --quiet -e .
	touch $@

$(VENV)/.test: $(VENV)/.core
	$(PY) -m pip install --quiet torch==2.13.0 || echo "torch 2.13.0 is not available here: the neural-ranker tests will be skipped"
	$(PY) -m pip install --quiet -e ".[test]"
	touch $@

$(VENV)/.bench: $(VENV)/.test
	$(PY) -m pip install --quiet -e ".[bench]"
	touch $@

demo: $(VENV)/.core
	$(VENV)/bin/metricrank demo

# two workers (pytest-xdist), a test file each at a time: numba compiles and the tests are mostly one thread
test: $(VENV)/.test
	$(PY) -m pytest -q -n 2 --dist loadfile

bench: $(VENV)/.bench
	$(PY) benchmarks/metric_throughput.py

clean:
	rm -rf $(VENV) build src/*.egg-info .pytest_cache
