# The two commands of the README: `make run` and `make test`.
SHELL := /bin/bash
SWIFT ?= swift

.PHONY: run build test deps test-deps release bench screenshots man clean

run: build
	.build/debug/tdl $(ARGS)

build: deps
	@$(SWIFT) build -q 2>&1 | grep -v "prohibited flag"; exit $${PIPESTATUS[0]}

deps:
	@scripts/install-deps.sh

test-deps:
	@scripts/install-deps.sh --test

# Builds the binary the end-to-end tests drive, then runs every test target.
test: test-deps build
	$(SWIFT) test 2>&1 | grep -v "prohibited flag"; exit $${PIPESTATUS[0]}

# The Swift runtime and Foundation linked in: a start takes 20 ms instead of 35 (a larger
# binary), which shows when a script runs tdl many times or fetches small files.
release: deps
	$(SWIFT) build -c release --static-swift-stdlib -q

bench: release
	@scripts/install-deps.sh --bench
	scripts/bench.sh

# The man page is made from the commands' help: regenerate it after changing an option.
man: build
	@mkdir -p man
	.build/debug/tdl man > man/tdl.1

screenshots: build test-deps
	scripts/screenshots.sh

clean:
	rm -rf .build
