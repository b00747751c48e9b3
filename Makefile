# bucma — build, simulate, test and serve Batsim.
#
#   make build    compile bin/bucma
#   make lib      compile bin/libbucma.so, bucma as a Batsim 5 decision
#                 component library (batsim5 -l bin/libbucma.so '{"policy":...}')
#   make python   compile python/bucma/libbucmapy.so, the C library under
#                 bucma's Python package (then pip install --no-build-isolation
#                 --no-index ./python; docs/python.md)
#   make python-venv  make python, then a virtual environment in VENV (default
#                 .venv) of PYTHON with the system's packages (numpy, pandas),
#                 bucma's Python package installed in it
#   make test-python  the Python package's tests (pytest, with PYTHON), from
#                 the source tree; skipped with one line where PYTHON lacks
#                 numpy or pytest (make test runs them too)
#   make bench-python  the speed of Python policies: the overhead of a
#                 decision, a priority function over EASY against Go's easy
#   make bench-gym  the speed of the Gymnasium environment (bucma.gym): a
#                 random agent's 1024-job episodes, non-agent time, steps/s
#   make lint-python  black, flake8 and mypy (strict) on python/ and
#                 examples/python/ (Debian: black, flake8, python3-mypy)
#   make run      build, then simulate a policy (SCHED, default easy) on the
#                 bundled Lille platform and workload with the embedded engine
#                 (out/lille-SCHED_jobs.csv, _schedule.csv, _trace.csv)
#   make serve    build, then serve one Batsim simulation with SCHED on
#                 tcp://*:28000 (start Batsim in another terminal)
#   make test     go vet + the whole test suite with the race detector (the
#                 real-Batsim tiers without it: Batsim 4 with one seed per
#                 case, Batsim 5 with two), and the examples module, shown
#                 package by package, then "N passed, N failed, N skipped"
#   make check    the edit loop: build everything, then vet and test (-short)
#                 the packages whose Go files differ from CHECK_BASE
#                 (default main; committed, uncommitted or new), the
#                 real-Batsim tiers aside (make test-batsim, test-batsim5)
#   make test-examples  vet and test the examples module (examples/) alone
#   make test-docs  the runnable command blocks of README.md and docs/*.md
#                 alone (make test runs them too)
#   make doc-numbers  the numbers docs/reproducing.md quotes, checked
#                 against the reports of the campaigns it names, run or
#                 resumed in DOC_NUMBERS (default results/doc-numbers; hours
#                 on 2 cores; PLANS=NAME,... for some of them)
#   make fuzz     run every decoder's fuzz target for FUZZTIME (default 10s) each
#   make bench    one decision of every policy with 10k and 100k waiting jobs
#                 (BENCHTIME per benchmark, default 1s; CI runs BENCHTIME=1x)
#   make bench-engine  the embedded engine's targets with their verdicts: the
#                 session's cost a message, a million jobs with every policy
#                 (scripts/bench-engine)
#   make bench-trace  a 200 000-job Lublin-Feitelson trace imported through
#                 from-swf onto Lille, every policy (scripts/bench-trace)
#   make bench-policies  every Lille policy on the 100 000-job case, interleaved,
#                 each against fcfs (scripts/bench-policies)
#   make deps     install libzmq's development files and pkg-config if missing
#   make bench-batsim bucma vs batsched easy_bf_fast on the real Batsim, and
#                 the embedded engine vs both: the speed targets as ratios of
#                 CPU times with their verdicts (BENCH_ARGS='-compare both'
#                 adds conservative_bf)
#   make test-batsim  the real-Batsim tier alone, verbose, with SEEDS seeds per
#                 case (it needs batsim, and batsched, on PATH or in BATSIM /
#                 BATSCHED; make test runs it too, with one seed per case)
#   make test-batsim5 the Batsim 5 tier alone, verbose, with SEEDS seeds per
#                 twin case (it needs batsim5 on PATH or in BATSIM5; make test
#                 runs it too, with two seeds)
#   make image    the Docker image $(IMAGE) (default bucma:local), with the
#                 version of this checkout
#   make test-containers  the container tier (scripts/test-containers): the
#                 images, every Docker command of README.md and docs/,
#                 docker compose against Batsim's image; it needs a Docker
#                 engine (started if it does not answer, as root) and skips
#                 with one line where none can run
#   make test-slurm  the Slurm tier (scripts/test-slurm): campaigns submitted
#                 with bucma expe submit to a one-node Slurm started on
#                 loopback (munged, slurmctld, slurmd; as root), compared
#                 byte for byte with the same campaigns run here, with tasks
#                 killed and resubmitted; skips with one line where Slurm
#                 cannot start (it installs nothing)
#
# Variables: GO (go command), SCHED (the policy of make run and make serve,
# default easy; it also names make run's output files), OUT (make run's
# output prefix, default out/lille-SCHED), SIM_ARGS (extra arguments of
# "bucma simulate", e.g. SIM_ARGS='-o hosts=first-fit'), RUN_ARGS (extra
# arguments of "bucma run", e.g. RUN_ARGS='-v --socket-endpoint tcp://*:28001'),
# TEST_FLAGS (flags of the concurrent packages' tests, default -race;
# internal/racepkgs names those packages), TEST_JOBS (test commands run side
# by side by make test, default 2), FUZZTIME (duration of each fuzz target, default
# 10s; e.g. FUZZTIME=5m make fuzz), BENCHTIME (go test -benchtime of make
# bench, default 1s), VERSION (what bucma --version prints; default
# scripts/version: git describe), IMAGE (make image's tag),
# DOCKER_BUILD_FLAGS (extra docker build flags of make image, e.g.
# --network none), CONTEXT (make image's build context, default .),
# PYTHON (the Python 3.11+ of make python-venv, test-python, bench-python;
# default: the first of python3 and /usr/bin/python3 that has numpy), VENV
# (make python-venv's directory, default .venv).

GO         ?= go
BIN        ?= bin/bucma
LIB        ?= bin/libbucma.so
SCHED      ?= easy
OUT        ?= out/lille-$(SCHED)
RUN_ARGS   ?=
SIM_ARGS   ?=
TEST_FLAGS ?= -race
TEST_JOBS  ?= 2
FUZZTIME   ?= 10s
BENCHTIME  ?= 1s
SEEDS      ?= 20
DOC_NUMBERS ?= results/doc-numbers
CHECK_BASE ?= main
PLANS      ?=
VERSION    ?= $(shell scripts/version)
LDFLAGS    ?= -X github.com/bucma-sched/bucma/cli.version=$(VERSION)
IMAGE      ?= bucma:local
CONTEXT    ?= .
DOCKER_BUILD_FLAGS ?=
VENV       ?= .venv
# The first Python 3.11+ with numpy (Debian's, where a python3 of one's own
# comes first on PATH without it), else python3.
PYTHON     ?= $(shell for p in python3 /usr/bin/python3; do \
	$$p -c 'import sys, numpy; sys.exit(sys.version_info < (3, 11))' >/dev/null 2>&1 && { echo $$p; exit 0; }; \
	done; echo python3)

# System packages bucma needs to build (cgo binding of libzmq).
APT_PACKAGES = libzmq3-dev pkg-config


.PHONY: python python-venv test-python bench-python bench-gym lint-python
.PHONY: all build lib run serve test check test-examples test-fast test-docs doc-numbers test-batsim test-batsim5 vet fuzz bench bench-batsim bench-engine bench-trace bench-policies deps clean image test-containers test-slurm

all: build

build: deps
	$(GO) build -ldflags '$(LDFLAGS)' -o $(BIN) ./cmd/bucma

lib: deps
	$(GO) build -buildmode=c-shared -o $(LIB) ./cmd/libbucma

# bucma's Python package (python/, docs/python.md): its C library, built
# into the package, which an install copies.
python: deps
	$(GO) build -buildmode=c-shared -ldflags '-X main.version=$(VERSION)' -o python/bucma/libbucmapy.so ./cmd/libbucmapy

python-venv: python
	$(PYTHON) -m venv --system-site-packages $(VENV)
	$(VENV)/bin/pip install --quiet --no-build-isolation --no-index ./python

# The Python tests run from the source tree (no install): the package is
# python/bucma with the library make python built. Where PYTHON has no
# numpy or pytest they are skipped, saying so on one line.
test-python: python
	@if ! $(PYTHON) -c 'import sys, numpy, pytest; sys.exit(sys.version_info < (3, 11))' >/dev/null 2>&1; then \
		echo "python tests skipped: $(PYTHON) is not a Python 3.11+ with numpy and pytest (Debian: apt-get install python3-numpy python3-pytest; or PYTHON=...)"; \
		exit 0; \
	fi; \
	cd python && PYTHONPATH=. $(PYTHON) -m pytest -q -p no:cacheprovider tests

bench-python: python
	PYTHONPATH=python $(PYTHON) python/benchmarks/bench.py

bench-gym: python
	PYTHONPATH=python $(PYTHON) python/benchmarks/bench_gym.py

lint-python:
	black --check --config python/pyproject.toml python examples/python
	flake8 --config python/.flake8 python examples/python
	cd python && $(PYTHON) -m mypy

# The policy is SCHED, which also names the output files: a policy given in
# SIM_ARGS would write its results under another policy's name.
run: build
	$(if $(findstring --scheduler,$(SIM_ARGS)),$(error make run: give the policy as SCHED=NAME (it names the output files $(OUT)_*), not in SIM_ARGS))
	@mkdir -p $(dir $(OUT))
	./$(BIN) simulate --platform lille --workload workloads/lille-7056.json --scheduler $(SCHED) \
		--export $(OUT) --trace $(OUT)_trace.csv $(SIM_ARGS)

serve: build
	$(if $(findstring --scheduler,$(RUN_ARGS)),$(error make serve: give the policy as SCHED=NAME, not in RUN_ARGS))
	./$(BIN) run --scheduler $(SCHED) $(RUN_ARGS)

# The real-Batsim tier (internal/realbatsim) compares output files with the
# real Batsim's: it runs without the race detector (the code it drives is
# race-tested by its own packages' tests), one seed per case.
# The Batsim 5 tier (internal/realbatsim5) likewise: batsim5 against bucma
# over ZeroMQ and as a library, and Batsim's own test components.
TIER = github.com/bucma-sched/bucma/internal/realbatsim
TIER5 = github.com/bucma-sched/bucma/internal/realbatsim5

# The tests' events (go test -json) are shown by internal/testsummary: a
# line per package as it ends (with the output of any failed test), a line
# every 30 s naming the packages still running, and the totals last; the
# exit status is non-zero when anything failed.
TESTSUMMARY = bin/testsummary
# The packages whose code is concurrent (goroutines, channels, locks,
# parallel tests) run under the race detector (TEST_FLAGS), the others
# without: internal/racepkgs says which. TEST_JOBS test commands run side by
# side: the real-Batsim tier, one simulation after another, beside the
# packages' tests.
RACEPKGS = bin/racepkgs

test: deps vet
	$(GO) -C examples vet ./...
	@$(GO) build -o $(TESTSUMMARY) ./internal/testsummary
	@$(GO) build -o $(RACEPKGS) ./internal/racepkgs
	@raced="$$(./$(RACEPKGS) -exclude $(TIER),$(TIER5))" && plain="$$(./$(RACEPKGS) -plain -exclude $(TIER),$(TIER5))" && \
	./$(TESTSUMMARY) -jobs $(TEST_JOBS) \
		"$(GO) test $(TEST_FLAGS) -timeout 30m -json $$raced" \
		"$(GO) test -json -count=1 -timeout 30m $(TIER)" \
		"$(GO) test -timeout 30m -json $$plain" \
		"$(GO) test -json -count=1 -timeout 1h $(TIER5)" \
		"env CGO_ENABLED=0 $(GO) test -json -count=1 ./batsim/zmq" \
		"$(GO) -C examples test -json -count=1 ./..."
	@$(MAKE) --no-print-directory test-python

# The edit loop. The changed packages: the directories of the Go files
# (testdata included) that differ from CHECK_BASE in the work tree or are
# new, those that still hold a package; the examples module's when a file
# under examples/ changed. -short: the documentation's commands
# (internal/doctest TestDocs) and the longest property tests are make
# test's. Printed: each command, then go test's lines.
check: deps
	$(GO) build ./...
	@dirs=$$({ git diff --name-only $(CHECK_BASE) -- '*.go' '*/testdata/*'; git ls-files --others --exclude-standard -- '*.go' '*/testdata/*'; } | \
		awk '{ i = index($$0, "/testdata/"); if (i) print substr($$0, 1, i - 1); else if (sub(/\/[^\/]*$$/, "")) print; else print "." }' | sort -u); \
	pkgs=$$(for d in $$dirs; do case $$d in examples|examples/*) ;; *) [ -d "$$d" ] && echo ./$$d;; esac; done | \
		xargs -r $(GO) list -e -f '{{if .GoFiles}}{{.ImportPath}}{{else if .TestGoFiles}}{{.ImportPath}}{{else if .XTestGoFiles}}{{.ImportPath}}{{end}}' 2>/dev/null | \
		grep -vx -e '$(TIER)' -e '$(TIER5)'); \
	if [ -n "$$pkgs" ]; then \
		echo "$(GO) vet" $$pkgs; $(GO) vet $$pkgs && \
		echo "$(GO) test -short" $$pkgs && $(GO) test -short $$pkgs || exit 1; \
	else echo "no Go package differs from $(CHECK_BASE)"; fi; \
	if echo "$$dirs" | grep -qE '^examples(/|$$)'; then $(MAKE) --no-print-directory test-examples; fi

# The examples module (examples/go.mod, another module that uses bucma's
# public API through a replace of this checkout): vet, build and test it,
# so that the API cannot break silently (make test runs it too).
test-examples: deps
	$(GO) -C examples vet ./...
	$(GO) -C examples test -count=1 ./...

# The runnable blocks of README.md and docs/*.md, from a fresh copy of the
# repository (internal/doctest).
test-docs: deps
	$(GO) test -count=1 -v -run 'TestDocs' ./internal/doctest

# The findings of docs/reproducing.md (internal/doctest TestDocNumbers):
# each campaign run or resumed with bin/bucma in DOC_NUMBERS, its report
# written, every number the page quotes looked for there (logged "ok" with
# the report's line, or failed "MISSING").
doc-numbers: build
	BUCMA=$(abspath $(BIN)) BUCMA_DOC_NUMBERS=$(abspath $(DOC_NUMBERS)) BUCMA_DOC_NUMBERS_PLANS=$(PLANS) \
		$(GO) test -count=1 -timeout 0 -v -run 'TestDocNumbers$$' ./internal/doctest

# The real-Batsim tier alone: each differential case with SEEDS seeds, and a
# count of identical cases at the end of each test.
# Printed: the counts, and each failing case with its first difference; the
# exit status is the tests'.
test-batsim: deps
	@log=$$(mktemp); trap 'rm -f $$log' EXIT; \
	BUCMA_DIFF_SEEDS=$(SEEDS) $(GO) test ./internal/realbatsim -count=1 -v -timeout 2h >$$log 2>&1; rc=$$?; \
	awk '/^ *--- FAIL/ {p=1; print; next} /^ *--- (PASS|SKIP)/ || /^=== / {p=0; next} \
		/(engine|bucma) vs/ || /^(ok|FAIL|PASS)/ {print; next} p {print}' $$log; \
	exit $$rc

# The Batsim 5 tier alone, verbose: its counts, and each failing case.
# Printed: the tests' summaries (their counts), each skip, and each failing
# case with its messages.
test-batsim5: deps
	@log=$$(mktemp); trap 'rm -f $$log' EXIT; \
	BUCMA_DIFF_SEEDS=$(SEEDS) $(GO) test ./internal/realbatsim5 -count=1 -v -timeout 1h >$$log 2>&1; rc=$$?; \
	awk '/^ *--- FAIL/ {p=1; print; next} /^ *--- (PASS|SKIP)/ || /^=== / {p=0; next} \
		/^    [a-z0-9_]+_test\.go:[0-9]+: / && !/ differs: start / && !/ jobs differ$$/ || /skipped/ || /^(ok|FAIL|PASS)/ {print; next} p {print}' $$log; \
	exit $$rc

# The suite without the race detector (about ten times faster).
test-fast: deps
	$(GO) test ./...

# vet checks the pure-Go build too (CGO_ENABLED=0: no libzmq, the native
# ZeroMQ transport only), which every package but cmd/libbucma (a C shared
# library, cgo by nature) has.
vet: deps
	$(GO) vet ./...
	CGO_ENABLED=0 $(GO) vet ./...

# Every decoder's fuzz target, $(FUZZTIME) each: package:target pairs. Each
# target fails on an input that takes more than 2 s (internal/fuzzguard).
FUZZ_TARGETS = \
	batsim:FuzzDecode batsim:FuzzParseIntervalSet batsim/zmq:FuzzZMTPRecv batsim/v5:FuzzDecode \
	workloads:FuzzParse workloads:FuzzFromSWF workloads:FuzzLublin \
	platforms:FuzzParse \
	expe:FuzzReadJobsCSV expe:FuzzReadTrace expe:FuzzParseJobInfo expe:FuzzParsePlan expe:FuzzParsePlanFile \
	policies:FuzzParseSchedConfig internal/jsonspan:FuzzValid

# Go 1.26's fuzzer may end a loaded run with a bare "context deadline
# exceeded" and no failing input (golang/go#75804, fixed in Go 1.27): that
# outcome is reported and not counted as a failure; any other is.
fuzz: deps
	@log=$$(mktemp); trap 'rm -f $$log $$log.rc' EXIT; \
	for t in $(FUZZ_TARGETS); do \
		pkg=$${t%%:*}; name=$${t#*:}; corpus=$$pkg/testdata/fuzz/$$name; \
		before=$$(ls $$corpus 2>/dev/null | wc -l); \
		echo "fuzzing $$t for $(FUZZTIME)"; \
		{ $(GO) test ./$$pkg -run '^$$' -fuzz "^$$name\$$" -fuzztime $(FUZZTIME); echo $$? > $$log.rc; } 2>&1 | tee $$log; \
		[ "$$(cat $$log.rc)" = 0 ] && continue; \
		if [ "$$(ls $$corpus 2>/dev/null | wc -l)" = "$$before" ] && grep -q '^    context deadline exceeded$$' $$log; then \
			echo "$$t: the fuzzer stopped on its deadline without a failing input (golang/go#75804): not a failure" >&2; \
			continue; \
		fi; \
		exit 1; \
	done

bench: deps
	$(GO) test ./sched ./policies -run '^$$' -bench . -benchmem -benchtime $(BENCHTIME)

# bucma against batsched easy_bf_fast on the real Batsim (same generated
# workload, 5 alternated rounds), and the embedded engine: the speed targets
# as ratios of CPU times, with their verdicts (cmd/benchbatsim).
# BENCH_ARGS: e.g. -compare both -reps 7 -jobs 20000 -keep DIR.
bench-batsim: build
	$(GO) run ./cmd/benchbatsim -bucma $(BIN) $(BENCH_ARGS)

# The engine's targets: the session's machinery, a million jobs
# (CASES=session for the first alone): scripts/bench-engine.
bench-engine: deps
	scripts/bench-engine

# A 200 000-job trace of the Lublin-Feitelson model, imported through
# bucma workload from-swf onto Lille, timed with every policy that runs there
# (JOBS, LOAD, TIMEOUT, POLICIES: see the script): scripts/bench-trace.
bench-trace: deps
	scripts/bench-trace
# Every policy that runs on Lille on the 100 000-job case, against fcfs:
# scripts/bench-policies.
bench-policies: deps
	scripts/bench-policies

# Installs libzmq's development package and pkg-config when pkg-config does
# not find libzmq: with apt-get (through sudo unless root) on Debian and
# Ubuntu; elsewhere it prints what to install.
deps:
	@if command -v pkg-config >/dev/null 2>&1 && pkg-config --exists libzmq; then \
		exit 0; \
	fi; \
	if command -v apt-get >/dev/null 2>&1; then \
		if [ "$$(id -u)" -eq 0 ]; then SUDO=; \
		elif command -v sudo >/dev/null 2>&1; then SUDO=sudo; \
		else echo "bucma needs $(APT_PACKAGES); run as root: apt-get install -y $(APT_PACKAGES)" >&2; exit 1; fi; \
		echo "installing $(APT_PACKAGES)"; \
		$$SUDO apt-get update && $$SUDO env DEBIAN_FRONTEND=noninteractive apt-get install -y $(APT_PACKAGES); \
	else \
		echo "bucma needs the ZeroMQ (libzmq >= 4) development files, pkg-config and a C compiler:" >&2; \
		echo "  Debian/Ubuntu:  sudo apt-get install -y libzmq3-dev pkg-config gcc" >&2; \
		echo "  Fedora/RHEL:    sudo dnf install -y zeromq-devel pkgconf-pkg-config gcc" >&2; \
		echo "  Arch Linux:     sudo pacman -S zeromq pkgconf gcc" >&2; \
		echo "  Alpine:         apk add zeromq-dev pkgconf gcc musl-dev" >&2; \
		echo "  macOS:          brew install zeromq pkg-config" >&2; \
		exit 1; \
	fi

# The Docker image (Dockerfile), labelled with the version, commit and date.
image:
	docker build $(DOCKER_BUILD_FLAGS) -t $(IMAGE) -f Dockerfile \
		--build-arg VERSION='$(VERSION)' \
		--build-arg REVISION="$$(git rev-parse HEAD 2>/dev/null)" \
		--build-arg CREATED="$$(date -u +%Y-%m-%dT%H:%M:%SZ)" \
		$(CONTEXT)

# The container tier: scripts/test-containers (its header says what it runs
# and checks).
test-containers: build
	scripts/test-containers

# The Slurm tier: scripts/test-slurm (its header says what it runs and
# checks).
test-slurm: build
	scripts/test-slurm

clean:
	rm -rf bin out
