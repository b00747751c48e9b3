# bucma — build, simulate, test and serve Batsim.
#
#   make build    compile bin/bucma
#   make run      build, then simulate EASY backfilling on the bundled Lille
#                 platform and workload with the embedded engine (out/lille-easy_*)
#   make serve    build, then serve one Batsim simulation with EASY backfilling
#                 on tcp://*:28000 (start Batsim in another terminal)
#   make test     go vet + the whole test suite with the race detector (the
#                 real-Batsim tier without it, one seed per case), then
#                 make test-examples
#   make test-examples  vet and test the examples module (examples/)
#   make fuzz     run every decoder's fuzz target for FUZZTIME (default 10s) each
#   make bench-engine  the embedded engine on 20 000 jobs and on a million
#                 jobs, every policy (scripts/bench-engine)
#   make deps     install libzmq's development files and pkg-config if missing
#   make bench-batsim bucma vs batsched easy_bf_fast on the real Batsim, and the
#                 embedded engine: the speed targets as measured ratios
#   make test-batsim  the real-Batsim tier alone, verbose, with SEEDS seeds per
#                 case (it needs batsim, and batsched, on PATH or in BATSIM /
#                 BATSCHED; make test runs it too, with one seed per case)
#
# Variables: GO (go command), SIM_ARGS (extra arguments of "bucma simulate",
# e.g. SIM_ARGS='--scheduler bucma5302'), RUN_ARGS (extra arguments of
# "bucma run", e.g. RUN_ARGS='-v --socket-endpoint tcp://*:28001'),
# TEST_FLAGS (default -race), FUZZTIME (duration of each fuzz target, default
# 10s; e.g. FUZZTIME=5m make fuzz).

GO         ?= go
BIN        ?= bin/bucma
RUN_ARGS   ?=
SIM_ARGS   ?=
TEST_FLAGS ?= -race
FUZZTIME   ?= 10s
SEEDS      ?= 20

# System packages bucma needs to build (cgo binding of libzmq).
APT_PACKAGES = libzmq3-dev pkg-config

.PHONY: all build run serve test test-examples test-fast test-batsim vet fuzz bench bench-batsim bench-engine deps clean

all: build

build: deps
	$(GO) build -o $(BIN) ./cmd/bucma

run: build
	@mkdir -p out
	./$(BIN) simulate --platform lille --workload workloads/lille-7056.json --scheduler easy \
		--export out/lille-easy --trace out/lille-easy_trace.csv $(SIM_ARGS)

serve: build
	./$(BIN) run --scheduler easy $(RUN_ARGS)

# The real-Batsim tier (internal/realbatsim) compares output files with the
# real Batsim's: it runs without the race detector (the code it drives is
# race-tested by its own packages' tests), one seed per case.
TIER = github.com/bucma-sched/bucma/internal/realbatsim

test: deps vet
	$(GO) test $(TEST_FLAGS) $$($(GO) list ./... | grep -vx '$(TIER)')
	$(GO) test -count=1 -timeout 30m $(TIER)
	$(MAKE) --no-print-directory test-examples

# The examples module (examples/go.mod, another module that uses bucma's
# public API through a replace of this checkout): vet, build and test it,
# so that the API cannot break silently.
test-examples: deps
	cd examples && $(GO) vet ./... && $(GO) test -count=1 ./...

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

# The suite without the race detector (about ten times faster).
test-fast: deps
	$(GO) test ./...

vet: deps
	$(GO) vet ./...

# Every decoder's fuzz target, $(FUZZTIME) each: package:target pairs. Each
# target fails on an input that takes more than 2 s (internal/fuzzguard).
FUZZ_TARGETS = \
	batsim:FuzzDecode batsim:FuzzParseIntervalSet batsim/zmq:FuzzZMTPRecv \
	workloads:FuzzParse workloads:FuzzFromSWF \
	platforms:FuzzParse \
	expe:FuzzReadJobsCSV expe:FuzzReadTrace expe:FuzzParseJobInfo expe:FuzzParsePlan expe:FuzzParsePlanFile \
	policies:FuzzParseSchedConfig

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
	$(GO) test ./sched ./policies -run '^$$' -bench . -benchmem

# bucma against batsched easy_bf_fast on the real Batsim (same generated
# workload, one run), and the embedded engine: the speed targets as ratios.
# BENCH_ARGS: e.g. -reps 5 -jobs 20000 -keep DIR.
bench-batsim: build
	$(GO) run ./cmd/benchbatsim -bucma $(BIN) $(BENCH_ARGS)

# The engine on 20 000 jobs and on a million jobs (BENCH_1M=0 skips them):
# scripts/bench-engine.
bench-engine: deps
	scripts/bench-engine

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

clean:
	rm -rf bin out
