# stash — see README.md. `make run` and `make test` are the two set-up commands.
SHELL := /bin/bash
SWIFT ?= $(shell command -v swift 2>/dev/null || echo /opt/swift/usr/bin/swift)
PROTO := proto/stash/v1/stash.proto
GEN_H := Sources/CStashProto/include/stash/v1/stash.pb-c.h
GEN_C := Sources/CStashProto/stash/v1/stash.pb-c.c
GEN_PY := clients/python/stash_client/stash_pb2.py
GEN_PYI := clients/python/stash_client/stash_pb2.pyi
APT_PKGS := protobuf-c-compiler libprotobuf-c-dev libcurl4-openssl-dev libsqlite3-dev libssl-dev openssl pkg-config ffmpeg \
	libavformat-dev libavcodec-dev libavutil-dev libxml2-dev \
	gcc protobuf-compiler python3-protobuf python3-pytest python3-cryptography mypy python3-pip systemd strace \
	libsystemd-dev dbus-daemon dbus-bin python3-dbusmock \
	gstreamer1.0-tools gstreamer1.0-plugins-base gstreamer1.0-plugins-good gstreamer1.0-plugins-bad gstreamer1.0-libav
# The clients' tests (and scripts/cenc-encrypt.py, which the DASH tests run with /usr/bin/python3)
# run on Debian's python3, which sees the apt packages above (a python3
# earlier on PATH, such as pyenv's, would not).
CLIENT_PYTHON ?= /usr/bin/python3

.PHONY: deps proto proto-check lint build release run install uninstall test test-install test-clients fuzz soak bench demo clean

deps:
	@if ! command -v pkg-config >/dev/null || ! command -v protoc-c >/dev/null || ! command -v ffmpeg >/dev/null || ! command -v openssl >/dev/null \
	    || ! command -v gcc >/dev/null || ! command -v protoc >/dev/null \
	    || ! $(CLIENT_PYTHON) -c 'import google.protobuf, pytest, mypy, dbusmock, cryptography' 2>/dev/null || ! $(CLIENT_PYTHON) -m pip --version >/dev/null 2>&1 \
	    || ! command -v systemd-socket-activate >/dev/null || ! command -v systemd-analyze >/dev/null || ! command -v strace >/dev/null \
	    || ! command -v dbus-daemon >/dev/null || ! command -v dbus-send >/dev/null \
	    || ! command -v gst-launch-1.0 >/dev/null || ! gst-inspect-1.0 --exists dashdemux || ! gst-inspect-1.0 --exists qtdemux \
	    || ! gst-inspect-1.0 --exists avdec_h264 \
	    || ! pkg-config --exists libprotobuf-c libcurl sqlite3 libcrypto libavformat libavcodec libavutil libxml-2.0 libsystemd; then \
	  echo "installing $(APT_PKGS)"; \
	  apt-get update -qq && DEBIAN_FRONTEND=noninteractive apt-get install -y -qq $(APT_PKGS) >/dev/null; \
	fi

# Regenerates the committed code from the schema: protobuf-c's (the daemon, the Swift client and
# libstash-client) and protoc's Python classes (stash_client) with their type stub.
proto: deps
	@tmp=$$(mktemp -d) && protoc-c -Iproto --c_out=$$tmp $(PROTO) && protoc -Iproto --python_out=$$tmp --pyi_out=$$tmp $(PROTO) \
	  && mkdir -p $(dir $(GEN_H)) $(dir $(GEN_C)) \
	  && cp $$tmp/stash/v1/stash.pb-c.h $(GEN_H) && cp $$tmp/stash/v1/stash.pb-c.c $(GEN_C) \
	  && cp $$tmp/stash/v1/stash_pb2.py $(GEN_PY) && cp $$tmp/stash/v1/stash_pb2.pyi $(GEN_PYI) \
	  && rm -rf $$tmp && echo "generated $(GEN_H) $(GEN_C) $(GEN_PY) $(GEN_PYI)"

# Fails when the committed generated code does not match the schema.
proto-check: deps
	@tmp=$$(mktemp -d) && protoc-c -Iproto --c_out=$$tmp $(PROTO) && protoc -Iproto --python_out=$$tmp --pyi_out=$$tmp $(PROTO) \
	  && cmp -s $$tmp/stash/v1/stash.pb-c.h $(GEN_H) && cmp -s $$tmp/stash/v1/stash.pb-c.c $(GEN_C) \
	  && cmp -s $$tmp/stash/v1/stash_pb2.py $(GEN_PY) && cmp -s $$tmp/stash/v1/stash_pb2.pyi $(GEN_PYI) \
	  && rm -rf $$tmp && echo "proto-check: generated code is current" \
	  || { echo "proto-check: generated code is stale; run 'make proto' and commit" >&2; exit 1; }

# The docs name only what exists: links, paths, and the types and modules docs/ARCHITECTURE.md
# and docs/CLIENTS.md name (scripts/check-docs.py; docs/DEVELOPMENT.md has the rules). The Swift
# sources keep .swift-format's rules (--strict: any finding fails). swift-format's whitespace
# check is off (--debug-disable-pretty-print): the house style aligns continuation lines, which
# its printer never does (about 1,550 changes even at 400 columns). Rules off in .swift-format
# (JSON has no comments), habits of the house style: DoNotUseSemicolons (`defer { a = x; b = y }`),
# OneVariableDeclarationPerLine (`let h = s / 3600, m = s % 3600 / 60`), OneCasePerLine (small
# enums on one line), OnlyOneTrailingClosureArgument (a labelled filter closure, then the body);
# and OrderedImports until the 23 files with unsorted imports, several of them being changed on
# other branches, are sorted. Each Swift target lists in Package.swift exactly the modules its
# files import, in the order of the layers of docs/ARCHITECTURE.md (scripts/check-imports.py).
# Shared mutable state in Sources is behind a Mutex (Synchronization) or an actor, never an
# NSLock, whose users need an @unchecked Sendable the compiler cannot check. More:
# docs/DEVELOPMENT.md.
lint:
	python3 scripts/check-docs.py
	SWIFT=$(SWIFT) python3 scripts/check-imports.py
	@if grep -rnw --include='*.swift' NSLock Sources; then \
	  echo "lint: NSLock in Sources: keep the state in a Mutex (import Synchronization)" >&2; exit 1; fi
	$(SWIFT) format lint --strict --parallel --debug-disable-pretty-print -r Package.swift Sources Tests

build: deps
	$(SWIFT) build

# The Swift runtime and Foundation linked in: a command like `stash add` then starts in about
# 0.04 s from a cold page cache instead of 0.12 s spent loading and relocating shared libraries.
release: deps
	$(SWIFT) build -c release --static-swift-stdlib

run: release
	$$($(SWIFT) build -c release --show-bin-path)/stashd

# Installs stash, stashd, the systemd user units, bash/zsh/fish completions, the man pages
# stash(1) and stashd(8) and libstash-client (library, header, .pc) under $(DESTDIR)$(PREFIX).
# PREFIX=$$HOME/.local needs no root: its units go where the user manager reads them
# (~/.local/share/systemd/user). The binaries are a release build made here, or those in
# INSTALL_BIN_DIR when it is set (make test installs its debug build that way).
PREFIX ?= /usr/local
DESTDIR ?=
INSTALL_BIN_DIR ?=
BINDIR := $(PREFIX)/bin
MANDIR := $(PREFIX)/share/man
USER_UNIT_DIR ?= $(if $(filter /usr /usr/local,$(PREFIX)),$(PREFIX)/lib/systemd/user,$(PREFIX)/share/systemd/user)
BASH_COMPLETION_DIR := $(PREFIX)/share/bash-completion/completions
ZSH_COMPLETION_DIR := $(PREFIX)/share/zsh/site-functions
FISH_COMPLETION_DIR := $(PREFIX)/share/fish/vendor_completions.d
# Everything install writes but the C library's files, which clients/c's install lists.
INSTALLED := $(BINDIR)/stash $(BINDIR)/stashd $(USER_UNIT_DIR)/stashd.socket $(USER_UNIT_DIR)/stashd.service \
	$(BASH_COMPLETION_DIR)/stash $(ZSH_COMPLETION_DIR)/_stash $(FISH_COMPLETION_DIR)/stash.fish \
	$(MANDIR)/man1/stash.1 $(MANDIR)/man8/stashd.8 \
	$(PREFIX)/include/stash/client.h $(PREFIX)/lib/libstash-client.so.0.3.0 $(PREFIX)/lib/libstash-client.so.0.3 \
	$(PREFIX)/lib/libstash-client.so $(PREFIX)/lib/libstash-client.a $(PREFIX)/lib/pkgconfig/stash-client.pc
# The man pages are swift-argument-parser's generate-manual run on the built binaries. It is
# the tool of the package's GenerateManual plugin: `swift package plugin generate-manual --help`
# builds it (in the debug folder, as a host tool) without the release build of the whole
# package that running the plugin makes, which would undo the --static-swift-stdlib one.
GENERATE_MANUAL = $$($(SWIFT) build --show-bin-path)/generate-manual-tool
MAN_DATE = $$(git log -1 --format=%cs 2>/dev/null || date +%F)

install: deps
	@if [ -z "$(INSTALL_BIN_DIR)" ]; then $(SWIFT) build -c release --static-swift-stdlib; fi
	@bin="$(INSTALL_BIN_DIR)"; if [ -z "$$bin" ]; then bin=$$($(SWIFT) build -c release --show-bin-path); fi; \
	  set -e; \
	  out=$$($(SWIFT) package plugin generate-manual --help 2>&1) || { echo "$$out" >&2; exit 1; }; \
	  install -d $(DESTDIR)$(BINDIR) $(DESTDIR)$(USER_UNIT_DIR) $(DESTDIR)$(BASH_COMPLETION_DIR) $(DESTDIR)$(ZSH_COMPLETION_DIR) \
	    $(DESTDIR)$(FISH_COMPLETION_DIR) $(DESTDIR)$(MANDIR)/man1 $(DESTDIR)$(MANDIR)/man8; \
	  install -m 755 $$bin/stash $$bin/stashd $(DESTDIR)$(BINDIR)/; \
	  install -m 644 systemd/stashd.socket $(DESTDIR)$(USER_UNIT_DIR)/stashd.socket; \
	  sed 's|@BINDIR@|$(BINDIR)|g' systemd/stashd.service.in >$(DESTDIR)$(USER_UNIT_DIR)/stashd.service; \
	  chmod 644 $(DESTDIR)$(USER_UNIT_DIR)/stashd.service; \
	  $$bin/stash --generate-completion-script bash >$(DESTDIR)$(BASH_COMPLETION_DIR)/stash; \
	  $$bin/stash --generate-completion-script zsh >$(DESTDIR)$(ZSH_COMPLETION_DIR)/_stash; \
	  $$bin/stash --generate-completion-script fish >$(DESTDIR)$(FISH_COMPLETION_DIR)/stash.fish; \
	  man=$$(mktemp -d); \
	  $(GENERATE_MANUAL) $$bin/stash --section 1 --date $(MAN_DATE) --output-directory $$man; \
	  $(GENERATE_MANUAL) $$bin/stashd --section 8 --date $(MAN_DATE) --output-directory $$man; \
	  install -m 644 $$man/stash.1 $(DESTDIR)$(MANDIR)/man1/stash.1; \
	  install -m 644 $$man/stashd.8 $(DESTDIR)$(MANDIR)/man8/stashd.8; \
	  rm -rf $$man
	@# The .pc names the prefix: made again for this one.
	@rm -f $(CURDIR)/.build/clients/c/stash-client.pc
	@$(MAKE) --no-print-directory -s -C clients/c install BUILD=$(CURDIR)/.build/clients/c PREFIX=$(PREFIX) DESTDIR=$(DESTDIR) >/dev/null
	@echo "installed stash under $(DESTDIR)$(PREFIX); the Python client: python3 -m pip install ./clients/python"
	@echo "run it as a service: systemctl --user enable --now stashd.socket"

uninstall:
	rm -f $(addprefix $(DESTDIR),$(INSTALLED))
	-rmdir $(DESTDIR)$(PREFIX)/include/stash 2>/dev/null

# make install into a temporary DESTDIR lists exactly scripts/install-manifest.txt and make
# uninstall removes it; the installed units pass systemd-analyze verify. Uses the debug build.
test-install: deps
	bash scripts/test-install.sh $$($(SWIFT) build --show-bin-path)

# After the build, check-client-api compiles Tests/OutsideApp as another package would: an app
# importing StashClient must see the client and nothing of the daemon's (docs/ARCHITECTURE.md).
test: deps proto-check lint
	$(SWIFT) build --build-tests
	python3 scripts/check-client-api.py $$($(SWIFT) build --show-bin-path)
	$(SWIFT) test --skip-build --disable-swift-testing --parallel --num-workers $(TEST_WORKERS)
	$(MAKE) --no-print-directory test-install
	FUZZ_OPTIMIZE=0 bash scripts/fuzz.sh $(FUZZ_TEST_SECONDS)
	python3 scripts/soak.py $$($(SWIFT) build --show-bin-path) --kills 10 --downloads 30 --out .build/soak
	$(MAKE) --no-print-directory test-clients

# The C and Python clients against a real stashd (the debug build), the C library built with
# AddressSanitizer (any leak or bad access fails), the Python client through mypy --strict
# (clients/python/pyproject.toml); then the shared scenario through the Swift, C and Python
# clients against one daemon (clients/scenario).
test-clients: deps
	$(CLIENT_PYTHON) Tests/GoldenFrames/generate.py --check
	cd clients/python && $(CLIENT_PYTHON) -m mypy --cache-dir $(CURDIR)/.build/mypy
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
