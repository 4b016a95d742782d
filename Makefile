# The two commands of the README: `make run` and `make test`.
SHELL := /bin/bash
SWIFT ?= swift

.PHONY: run build test tsan deps test-deps release bench screenshots man clean install install-files uninstall

run: build
	.build/debug/tdl $(ARGS)

build: deps
	@$(SWIFT) build -q 2>&1 | grep -v "prohibited flag"; exit $${PIPESTATUS[0]}

deps:
	@scripts/install-deps.sh

test-deps:
	@scripts/install-deps.sh --test

# One build of the binary the end-to-end tests drive and of the test targets together, then
# every test target without a second look at the build.
test: test-deps
	@$(SWIFT) build --build-tests -q 2>&1 | grep -v "prohibited flag"; exit $${PIPESTATUS[0]}
	$(SWIFT) test --skip-build 2>&1 | grep -v "prohibited flag"; exit $${PIPESTATUS[0]}

# The threaded tests under ThreadSanitizer, in a build folder of their own: the JSON-RPC and
# control servers, the lists other threads read, a long list sorted and filled on two threads, the
# engine's worker, add -i's session writer, and aria2p against the TSan-built tdl. Any report, from
# the tests or from a tdl they drive, fails the target.
TSAN_TESTS := RPCServerTests|Aria2RPCTests|LoopBoundTests|FilterNamesTests|ControlServerTests|SessionLoopTests|ChangedTasksTests|ListSnapshotTests|EngineReportTests|Aria2pTests|RPCSafetyTests|SortingTests|NameCommitTests|WriteBacklogTests|DetachedSaveTests
TSAN_REPORTS := $(CURDIR)/.build-tsan/reports
tsan: test-deps
	$(SWIFT) build --build-tests --sanitize=thread --build-path .build-tsan -q 2>&1 | grep -v "prohibited flag"; exit $${PIPESTATUS[0]}
	@rm -rf $(TSAN_REPORTS) && mkdir -p $(TSAN_REPORTS)
	TSAN_OPTIONS="halt_on_error=1 log_path=$(TSAN_REPORTS)/report" \
	TDL_BINARY=$(CURDIR)/.build-tsan/debug/tdl \
	$(SWIFT) test --sanitize=thread --build-path .build-tsan --skip-build --filter '$(TSAN_TESTS)' 2>&1 \
		| grep -v "prohibited flag"; status=$${PIPESTATUS[0]}; \
	if ls $(TSAN_REPORTS)/report.* >/dev/null 2>&1; then cat $(TSAN_REPORTS)/report.*; exit 1; fi; exit $$status

# The Swift runtime and Foundation linked in: a quicker start for a larger binary, which
# shows when a script runs tdl many times or fetches small files (docs/measurements.md).
# No $ORIGIN run path: with it the loader looks for each library in the binary's own folder first.
# No shared libcurl among the needed libraries: libcurl is linked in (Package.swift), and
# scripts/drop-needed.py says why the linker alone keeps its name there.
# The packages tdl uses reach concrete generic types by metadata accessor too, as tdl's own
# modules do (Package.swift): GRDB's and ArgumentParser's first uses scanned every conformance.
release: deps
	$(SWIFT) build -c release --static-swift-stdlib --disable-local-rpath --product tdl -q \
		-Xswiftc -Xfrontend -Xswiftc -disable-concrete-type-metadata-mangled-name-accessors
	python3 scripts/drop-needed.py .build/release/tdl libcurl.so.4 curl_

# Downloads against curl, wget and aria2c; tdl's own work for 500 small files in instructions
# (no goal: a steady figure to compare builds by); one small file by the installed binary
# (installed into BENCH_PREFIX); keys during two full-speed downloads; then every figure of a
# million-task session against its goal. Every part runs; the target fails if one missed a goal.
BENCH_PREFIX ?= /tmp/tdl-bench-prefix
bench: release
	@scripts/install-deps.sh --bench
	@$(MAKE) -s install-files PREFIX=$(BENCH_PREFIX)
	@# The start first: after bench.sh has deleted its thousands of files, ext4 looks past
	@# the freed inodes at each file a run makes, for up to five minutes (a first get makes
	@# eight, curl one).
	@status=0; \
	TDL=$(BENCH_PREFIX)/bin/tdl scripts/bench-start.sh || status=1; \
	scripts/bench.sh || status=1; \
	scripts/bench-work.sh || status=1; \
	scripts/bench-keys.sh || status=1; \
	python3 scripts/bench-scale.py --tdl .build/release/tdl || status=1; \
	exit $$status

# The man page is made from the commands' help: regenerate it after changing an option.
man: build
	@mkdir -p man
	.build/debug/tdl man > man/tdl.1

screenshots: build test-deps
	scripts/screenshots.sh

# `make install PREFIX=~/.local` (default /usr/local; DESTDIR for packaging): the release
# binary, the man page and the bash, zsh and fish completions. `make uninstall` removes them.
PREFIX ?= /usr/local
TDL_BIN ?= .build/release/tdl
BASH_COMPLETION := $(DESTDIR)$(PREFIX)/share/bash-completion/completions/tdl
ZSH_COMPLETION := $(DESTDIR)$(PREFIX)/share/zsh/site-functions/_tdl
FISH_COMPLETION := $(DESTDIR)$(PREFIX)/share/fish/vendor_completions.d/tdl.fish

install: release
	@$(MAKE) -s install-files

install-files:
	install -D -m 755 $(TDL_BIN) $(DESTDIR)$(PREFIX)/bin/tdl
	install -D -m 644 man/tdl.1 $(DESTDIR)$(PREFIX)/share/man/man1/tdl.1
	install -d $(dir $(BASH_COMPLETION)) $(dir $(ZSH_COMPLETION)) $(dir $(FISH_COMPLETION))
	$(TDL_BIN) --generate-completion-script bash > $(BASH_COMPLETION)
	$(TDL_BIN) --generate-completion-script zsh > $(ZSH_COMPLETION)
	$(TDL_BIN) --generate-completion-script fish > $(FISH_COMPLETION)

uninstall:
	rm -f $(DESTDIR)$(PREFIX)/bin/tdl $(DESTDIR)$(PREFIX)/share/man/man1/tdl.1 \
		$(BASH_COMPLETION) $(ZSH_COMPLETION) $(FISH_COMPLETION)

clean:
	rm -rf .build .build-tsan
