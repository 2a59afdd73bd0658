# imaxe: `make run` to serve the catalog, `make test` to run every test.
.PHONY: all deps deps-run build build-run build-asan build-tsan fuzz run test test-web bench bench-write format format-check clean

JOBS ?= 2

all: build

deps-run:
	@tools/deps.sh run

deps:
	@tools/deps.sh

build: deps
	@cmake -S . -B build -DCMAKE_BUILD_TYPE=RelWithDebInfo -DIMX_BUILD_TESTS=ON >/dev/null
	@cmake --build build -j$(JOBS)

# What `make run` needs and nothing more: the server and the imaxe command (no tests, no cmocka).
build-run: deps-run
	@cmake -S . -B build -DCMAKE_BUILD_TYPE=RelWithDebInfo -DIMX_BUILD_TESTS=OFF >/dev/null
	@cmake --build build -j$(JOBS) --target imaxe-server imaxe imaxe_man

build-asan: deps
	@cmake -S . -B build-asan -DCMAKE_BUILD_TYPE=Debug -DIMX_SANITIZE=ON -DIMX_BUILD_TESTS=ON >/dev/null
	@cmake --build build-asan -j$(JOBS)

# ThreadSanitizer: the server and the integration tests (tools/test-tsan.sh runs a chosen set).
build-tsan: deps
	@cmake -S . -B build-tsan -DCMAKE_BUILD_TYPE=RelWithDebInfo -DIMX_TSAN=ON -DIMX_BUILD_TESTS=ON >/dev/null
	@cmake --build build-tsan -j$(JOBS)

# The parsers' libFuzzer targets (clang), FUZZ_SECONDS (10) each from their seed corpora.
fuzz: deps
	@tools/fuzz.sh

run: build-run
	@tools/run.sh

test: deps build build-asan
	@tools/npm-deps.sh
	@tools/test.sh

test-web:
	@tools/test-web.sh

# The catalog endpoints on 100,000 images: wrk beside pgbench (bench/catalog.sh, ~9 minutes
# plus the load), with a second server that runs searches in SQL for comparison.
bench: build
	@bench/catalog.sh

# The write path through the API (bench/write_path.sh, ~6 minutes): publish latency by family
# size, publishes/s and import images/s loading 100,000 images, a 30 % advisory, a 10,000-pin
# fan-out to a receiver on loopback.
bench-write: build
	@bench/write_path.sh

format:
	@tools/format.sh

format-check:
	@tools/format.sh check

clean:
	rm -rf build build-asan build-tsan build-fuzz
