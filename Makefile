# The two commands of haptex: `make demo` runs the main job, `make test`
# passes the tests. Both work on a fresh Debian machine.

GO       ?= go
DURATION ?= 12s
# Debian packages the build and the tests need: cgo's X11 and GL headers for
# GLFW, Mesa's software rasteriser, Xvfb for the render tests, SciPy for the
# reference-value scripts under testdata/.
DEB_PKGS := gcc pkg-config libgl1-mesa-dev libgl1-mesa-dri libglx-mesa0 \
            libx11-dev libxcursor-dev libxrandr-dev libxinerama-dev libxi-dev \
            libxxf86vm-dev xvfb xauth python3-scipy chromium
# Chromium (headless) checks the pages haptex report writes.

# The program, stamped with the commit it is built from (haptex version,
# session.json, sidecar.json and every bench JSON record it): the Go
# toolchain's own stamp is missing in a git worktree and wherever
# GOFLAGS has -buildvcs=false.
BIN          := bin/haptex
GIT_COMMIT   := $(shell git rev-parse HEAD 2>/dev/null)
GIT_MODIFIED := $(shell test -n "$$(git status --porcelain --untracked-files=no 2>/dev/null)" && echo true || echo false)
LDFLAGS      := -X github.com/haptex/haptex/internal/buildinfo.commit=$(GIT_COMMIT) \
                -X github.com/haptex/haptex/internal/buildinfo.modified=$(GIT_MODIFIED)

.PHONY: demo test test-long long-suites deps vet build bench pgo ldflags FORCE

demo: deps $(BIN)
	./$(BIN) run -duration $(DURATION) -out sessions

# go build decides what to rebuild; the line says when it will take a while.
$(BIN): FORCE
	@if [ ! -x $(BIN) ] || [ -n "$$(find . -name '*.go' -newer $(BIN) -print -quit)" ]; then \
		echo "building $(BIN) (a first build compiles GLFW's C code: a minute or two)..."; fi
	@$(GO) build -ldflags '$(LDFLAGS)' -o $(BIN) ./cmd/haptex

# The linker flags above, for tests that build the program as make does.
ldflags:
	@echo '$(LDFLAGS)'

# Every package's tests under the race detector (but RACE_SKIP), then the
# goals' long suites (below): a goal that regresses fails CI, not a later
# session's check. -pgo=off: cmd/haptex's tests would otherwise compile
# every package again with its profile (cmd/haptex/default.pgo), which
# changes no result; the tests that run the program build it with
# -pgo=off too.
test: deps vet
	./scripts/with-display $(GO) test -race -pgo=off -timeout 30m -skip '^($(RACE_SKIP))$$' $(RACE_FIRST) ./...
	$(MAKE) --no-print-directory long-suites

# The race run's slowest packages, named first so that go test starts
# them first: in ./...'s order sim came last and ran alone for a minute
# and more after the others were done (docs/test-time.md).
RACE_FIRST := ./cmd/haptex ./app/experiment ./sim ./app/rig ./app/report

# What the race run skips, each run without the race detector beside the
# long suites, where it costs a fraction of its time under it
# (docs/test-time.md):
# NUMERIC_TESTS step a cloth or fit statistics for seconds in packages that
# start no goroutine (sim, calib/psych, calib/kes, sim/simbench): the race
# detector has nothing to watch there. CUE_TESTS measure the cues an
# experiment delivers (app/experiment): their runs are the lockstep runs
# every other experiment test takes under the race detector, and what they
# add is their numbers. The last four run in a long suite as a part of its
# -long form. calib/kes's tests all run in long-kes; the others in
# long-numeric, at their full size (each has a smaller one under -race).
# internal/testsplit's test checks that every test this skips, in any
# package, runs in a long suite.
NUMERIC_TESTS := TestProximityReplay|TestFollowMovesTheGrading|TestStaticStackSettles|TestStackSolvesOnePadAStep|TestTwoLayerPinch|TestIntervalCoverage|TestStudy|TestPosteriorTwelveQuestTrials|TestDevianceP|TestCheckBuiltin|TestShowcaseDissipation|TestCheckResolution|TestCheckDetectsUnits|TestBenchFoldLaid|TestBenchFold
CUE_TESTS     := TestFlexRestError|TestDryRunMatchesCheck|TestExamplesPassCheck|TestStimulusCheckTactileLevelDelivers|TestMagnitudeEstimationPlaysItsMotion|TestSetRunStimulusCheck
RACE_SKIP     := $(NUMERIC_TESTS)|$(CUE_TESTS)|TestDropAndSwing|TestBendingGraded|TestBendingResolution|TestDeliveredCuesFollowKES

# The goals' long suites, which the race run above shortens: the drop and
# swing over every built-in fabric, both schemes and six step lengths; the
# virtual Kawabata checks and cycles at every resolution; the four cues'
# level sweeps and their order across the built-in fabrics; and what the
# race run skips. Without the race detector, three at a time (each is
# deterministic: virtual time, seeded noise), each printed whole when it
# ends. make test-long runs them alone.
LONG_SUITES := long-drop long-kes long-cues long-numeric

test-long: deps long-suites

long-suites:
	@$(MAKE) --no-print-directory -j3 --output-sync=target $(LONG_SUITES)

.PHONY: $(LONG_SUITES)
long-drop:
	$(GO) test -count=1 -run TestDropAndSwing ./sim -args -long
long-kes:
	$(GO) test -count=1 ./calib/kes -args -long
long-cues:
	$(GO) test -count=1 -timeout 20m -run TestDeliveredCuesFollowKES ./app/experiment -args -long
long-numeric:
	$(GO) test -count=1 -run '^($(NUMERIC_TESTS)|$(CUE_TESTS))$$' ./sim ./calib/psych ./sim/simbench ./app/experiment

# -pgo=off: with the default, vet compiles cmd/haptex's packages with its
# profile as well as without it, 2.7 times the CPU in an empty build cache
# (docs/test-time.md); vet's findings do not depend on it.
vet:
	$(GO) vet -pgo=off ./...

build: $(BIN)
	$(GO) build ./...

# Installs the Debian packages that are missing, when run as root; otherwise
# names them and goes on (the tests that need them say so).
deps:
	@./scripts/deps $(DEB_PKGS)

# The compiler's profile (cmd/haptex/default.pgo), made again from the
# cloth's bench after a change to the simulation: about two minutes.
pgo: $(BIN)
	./$(BIN) bench sim -cpuprofile cmd/haptex/default.pgo > /dev/null

# Headless too: the render bench starts its own Xvfb, or says why it skipped.
bench: $(BIN)
	./$(BIN) bench all -json
