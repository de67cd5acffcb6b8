# Loom top-level driver.  `make bench` and `make test` work on a fresh Debian
# machine: they install what is missing (as root) and build first.
BUILD      ?= build
ASAN_BUILD ?= build-asan
JOBS       ?= $(shell nproc)
PREFIX     ?= /usr/local
# Both MPIs every time: a missing one is a configure error here, not a
# quietly smaller build.
LOOM_MPI   ?= mpich;openmpi
CMAKE_GEN  := $(shell command -v ninja >/dev/null 2>&1 && echo -G Ninja)

.PHONY: all deps build build-asan test test-opt test-asan bench install clean

all: build

deps:
	@scripts/install-deps.sh

build: deps
	@cmake -S . -B $(BUILD) $(CMAKE_GEN) -DCMAKE_BUILD_TYPE=Release "-DLOOM_MPI=$(LOOM_MPI)" >/dev/null
	@cmake --build $(BUILD) -j $(JOBS)

build-asan: deps
	@cmake -S . -B $(ASAN_BUILD) $(CMAKE_GEN) -DCMAKE_BUILD_TYPE=RelWithDebInfo -DLOOM_SANITIZE=ON "-DLOOM_MPI=$(LOOM_MPI)" >/dev/null
	@cmake --build $(ASAN_BUILD) -j $(JOBS)

test-opt: build
	@cd $(BUILD) && ctest --output-on-failure -j $(JOBS)

test-asan: build-asan
	@cd $(ASAN_BUILD) && ASAN_OPTIONS=detect_leaks=0 ctest --output-on-failure -j $(JOBS) -L sanitize

test: test-opt test-asan

bench: build
	@scripts/bench.sh $(BUILD)

# The C API, the drop-in and CLI per MPI, the CMake package and the
# pkg-config files under PREFIX (docs/install.md).
install: build
	@cmake --install $(BUILD) --prefix $(PREFIX)

clean:
	rm -rf $(BUILD) $(ASAN_BUILD)
