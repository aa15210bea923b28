# stash — see README.md. `make run` and `make test` are the two set-up commands.
SHELL := /bin/bash
SWIFT ?= $(shell command -v swift 2>/dev/null || echo /opt/swift/usr/bin/swift)
PROTO := proto/stash/v1/stash.proto
GEN_H := Sources/CStashProto/include/stash/v1/stash.pb-c.h
GEN_C := Sources/CStashProto/stash/v1/stash.pb-c.c
GEN_PY := clients/python/stash_client/stash_pb2.py
APT_PKGS := protobuf-c-compiler libprotobuf-c-dev libcurl4-openssl-dev libsqlite3-dev libssl-dev openssl pkg-config ffmpeg \
	gcc protobuf-compiler python3-protobuf python3-pytest
# The clients' tests run on Debian's python3, which sees the apt packages above (a python3
# earlier on PATH, such as pyenv's, would not).
CLIENT_PYTHON ?= /usr/bin/python3

.PHONY: deps proto proto-check build release run test test-clients fuzz soak bench demo clean

deps:
	@if ! command -v pkg-config >/dev/null || ! command -v protoc-c >/dev/null || ! command -v ffmpeg >/dev/null || ! command -v openssl >/dev/null \
	    || ! command -v gcc >/dev/null || ! command -v protoc >/dev/null || ! $(CLIENT_PYTHON) -c 'import google.protobuf, pytest' 2>/dev/null \
	    || ! pkg-config --exists libprotobuf-c libcurl sqlite3 libcrypto; then \
	  echo "installing $(APT_PKGS)"; \
	  apt-get update -qq && DEBIAN_FRONTEND=noninteractive apt-get install -y -qq $(APT_PKGS) >/dev/null; \
	fi

# Regenerates the committed code from the schema: protobuf-c's (the daemon, the Swift client and
# libstash-client) and protoc's Python classes (stash_client).
proto: deps
	@tmp=$$(mktemp -d) && protoc-c -Iproto --c_out=$$tmp $(PROTO) && protoc -Iproto --python_out=$$tmp $(PROTO) \
	  && mkdir -p $(dir $(GEN_H)) $(dir $(GEN_C)) \
	  && cp $$tmp/stash/v1/stash.pb-c.h $(GEN_H) && cp $$tmp/stash/v1/stash.pb-c.c $(GEN_C) \
	  && cp $$tmp/stash/v1/stash_pb2.py $(GEN_PY) \
	  && rm -rf $$tmp && echo "generated $(GEN_H) $(GEN_C) $(GEN_PY)"

# Fails when the committed generated code does not match the schema.
proto-check: deps
	@tmp=$$(mktemp -d) && protoc-c -Iproto --c_out=$$tmp $(PROTO) && protoc -Iproto --python_out=$$tmp $(PROTO) \
	  && cmp -s $$tmp/stash/v1/stash.pb-c.h $(GEN_H) && cmp -s $$tmp/stash/v1/stash.pb-c.c $(GEN_C) \
	  && cmp -s $$tmp/stash/v1/stash_pb2.py $(GEN_PY) \
	  && rm -rf $$tmp && echo "proto-check: generated code is current" \
	  || { echo "proto-check: generated code is stale; run 'make proto' and commit" >&2; exit 1; }

build: deps
	$(SWIFT) build

# The Swift runtime and Foundation linked in: a command like `stash add` then starts in about
# 0.04 s from a cold page cache instead of 0.12 s spent loading and relocating shared libraries.
release: deps
	$(SWIFT) build -c release --static-swift-stdlib

run: release
	$$($(SWIFT) build -c release --show-bin-path)/stashd

test: deps proto-check
	$(SWIFT) build --build-tests
	$(SWIFT) test --skip-build --disable-swift-testing --parallel --num-workers $(TEST_WORKERS)
	FUZZ_OPTIMIZE=0 bash scripts/fuzz.sh $(FUZZ_TEST_SECONDS)
	python3 scripts/soak.py $$($(SWIFT) build --show-bin-path) --kills 10 --downloads 30 --out .build/soak
	$(MAKE) --no-print-directory test-clients

# The C and Python clients against a real stashd (the debug build), the C library built with
# AddressSanitizer (any leak or bad access fails); then the shared scenario through the Swift,
# C and Python clients against one daemon (clients/scenario).
test-clients: deps
	$(CLIENT_PYTHON) Tests/GoldenFrames/generate.py --check
	$(MAKE) --no-print-directory -C clients/c test BUILD=$(CURDIR)/.build/clients/c PYTHON=$(CLIENT_PYTHON) \
	  STASH_BIN_DIR=$$($(SWIFT) build --show-bin-path)
	STASH_BIN_DIR=$$($(SWIFT) build --show-bin-path) $(CLIENT_PYTHON) -m pytest -q -p no:cacheprovider clients/python/tests
	bin=$$($(SWIFT) build --show-bin-path) && ASAN_OPTIONS=detect_leaks=1 $(CLIENT_PYTHON) clients/scenario/run.py --bin $$bin \
	  --swift $$bin/stash-scenario --c .build/clients/c/asan/scenario --python clients/scenario/scenario.py

# Tests run in this many processes at once: most of an integration test's time is a daemon,
# a server and a client waiting on each other, so 4 workers halve the suite on 2 cores.
TEST_WORKERS ?= 4

# Each fuzz target for FUZZ_SECONDS (default 60); `make test` runs each for FUZZ_TEST_SECONDS,
# a smoke run built without -O (half the build): the seeds and past crash inputs run in the
# test suite itself.
FUZZ_SECONDS ?= 60
FUZZ_TEST_SECONDS ?= 8
fuzz: deps
	bash scripts/fuzz.sh $(FUZZ_SECONDS)

# SIGKILL at random points, SOAK_KILLS times, under SOAK_DOWNLOADS downloads and server faults.
SOAK_KILLS ?= 100
SOAK_DOWNLOADS ?= 220
soak: release
	python3 scripts/soak.py $$($(SWIFT) build -c release --show-bin-path) --kills $(SOAK_KILLS) --downloads $(SOAK_DOWNLOADS) --out bench/out/soak

bench: release
	bash bench/run.sh

demo: release
	bash scripts/demo.sh
