# The two commands of haptex: `make demo` runs the main job, `make test`
# passes the tests. Both work on a fresh Debian machine.

GO       ?= go
DURATION ?= 12s
# Debian packages the build and the tests need: cgo's X11 and GL headers for
# GLFW, Mesa's software rasteriser, Xvfb for the render tests, SciPy for the
# reference-value scripts under testdata/.
DEB_PKGS := gcc pkg-config libgl1-mesa-dev libgl1-mesa-dri libglx-mesa0 \
            libx11-dev libxcursor-dev libxrandr-dev libxinerama-dev libxi-dev \
            libxxf86vm-dev xvfb xauth python3-scipy

.PHONY: demo test deps vet build bench

demo: deps
	$(GO) run ./cmd/haptex run -duration $(DURATION) -out sessions

test: deps vet
	./scripts/with-display $(GO) test -race -timeout 30m ./...

vet:
	$(GO) vet ./...

build:
	$(GO) build ./...

# Installs the Debian packages that are missing, when run as root; otherwise
# names them and goes on (the tests that need them say so).
deps:
	@./scripts/deps $(DEB_PKGS)

bench:
	$(GO) run ./cmd/haptex bench all -json
