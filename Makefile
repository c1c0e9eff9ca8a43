# Two entry points do all the set-up themselves: `make play` and `make test`.
PYTHON ?= python3
VENV := .venv
BIN := $(VENV)/bin
STAMP := $(VENV)/.installed

# Python keeps compiled bytecode (__pycache__, ignored by git) even where the environment says
# not to: the suite starts about 150 server processes and 100 lab workers, and pytest's workers
# each collect every module; without the cache each of them compiled ratscrew from source (a
# server's imports took 1.0 s of CPU instead of 0.65 s, a collection 11 s instead of 4 s).
unexport PYTHONDONTWRITEBYTECODE

.PHONY: play watch test quick quick-unit lint typecheck jscheck unit protocol-types bench clean pyodide

$(STAMP): pyproject.toml
	test -x $(BIN)/python || $(PYTHON) -m venv $(VENV)
	$(BIN)/pip install --quiet --upgrade pip
	$(BIN)/pip install --quiet -e '.[dev]'
	touch $(STAMP)

play: $(STAMP)
	$(BIN)/ratscrew play

watch: $(STAMP)
	$(BIN)/ratscrew watch

# The checks (ruff, mypy, TypeScript's checker and the JavaScript tests) run beside pytest, not
# before it: in a fresh clone mypy alone takes half a minute of one core, and pytest's controller
# spends its first minute compiling the simulation kernel on one core (docs/testing.md). Every
# part still runs to its end, and `make test` fails if any of them failed.
CHECKS := lint typecheck jscheck
test: $(STAMP) pyodide
	$(MAKE) --no-print-directory -j 4 $(CHECKS) unit

lint: $(STAMP)
	$(BIN)/ruff check ratscrew tests benchmarks

typecheck: $(STAMP)
	$(BIN)/mypy

# The browser table's JavaScript: TypeScript's checker over the JSDoc types (nothing is built),
# then the pure helpers' unit tests on Node's own test runner.
node_modules/.installed: package.json package-lock.json
	@command -v npm >/dev/null || { echo "make jscheck needs Node.js and npm (Debian: apt-get install -y nodejs npm)"; exit 1; }
	npm ci --no-audit --no-fund --loglevel=error
	touch $@

jscheck: node_modules/.installed
	node_modules/.bin/tsc -p tsconfig.json
	node --test --test-reporter=dot tests/js/

# The offline table (/play) runs the engine in the browser through Pyodide: its files come from
# the npm package pinned in package.json and are served by `ratscrew serve` from the package's
# web folder (not committed: the wasm alone is 9.6 MB), the large ones also gzipped for the wire.
# A wheel built after this ships them.
PYODIDE_FILES := pyodide.mjs pyodide.asm.mjs pyodide.asm.wasm python_stdlib.zip pyodide-lock.json
ratscrew/web/pyodide/.copied: node_modules/.installed
	mkdir -p ratscrew/web/pyodide
	cd node_modules/pyodide && cp $(PYODIDE_FILES) ../../ratscrew/web/pyodide/
	cd ratscrew/web/pyodide && gzip -9 -k -f pyodide.asm.wasm pyodide.asm.mjs pyodide-lock.json
	touch $@

pyodide: ratscrew/web/pyodide/.copied

# Many tests wait (servers, browsers, PostgreSQL) rather than compute, so the suite runs on two
# workers more than the machine has cores (on 2 cores, measured: 3 workers 12:01, 4 workers
# 10:39, 5 workers 11:45 of pytest, the CPU of five contending), a module to a worker (its shared fixtures start once)
# but for a few long waits of their own, longest first: with --dist loadgroup, tests/conftest.py
# supplies the scheduler (work_unit, LONGEST_FIRST; docs/testing.md).
TEST_WORKERS ?= $(shell echo $$(( $$(nproc 2>/dev/null || echo 1) + 2 )))
PARALLEL := -n $(TEST_WORKERS) --dist loadgroup

unit: $(STAMP)
	$(BIN)/pytest $(PARALLEL)

# The fast layer (docs/testing.md): everything but the tests marked browser, postgres, nginx,
# process or slow in tests/conftest.py, then the JavaScript tests. `make test` runs it all.
QUICK := not (browser or postgres or nginx or process or slow)
quick: $(STAMP) node_modules/.installed
	$(MAKE) --no-print-directory -j 2 jscheck quick-unit

quick-unit: $(STAMP)
	$(BIN)/pytest $(PARALLEL) -m "$(QUICK)"

# The page's declarations of the online protocol, written from its Python types in
# ratscrew/protocol/ (tests/test_protocol_types.py fails while the committed file is stale).
protocol-types: $(STAMP)
	$(BIN)/python -m ratscrew.protocol typescript > ratscrew/web/js/protocol.d.ts

bench: $(STAMP)
	$(BIN)/python benchmarks/engine.py

clean:
	rm -rf $(VENV) build *.egg-info .mypy_cache .ruff_cache .pytest_cache node_modules ratscrew/web/pyodide
