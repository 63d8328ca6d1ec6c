# SPDX-License-Identifier: BSD-3-Clause
# The two commands: `make demo` and `make test`. Both install what is
# missing (scripts/setup.sh), build, and run.

BUILD ?= build
BUILD_SAN ?= build-san
MESON_OPTS ?=

.PHONY: all setup build demo test test-fast test-san clean

all: build

setup:
	@scripts/setup.sh

$(BUILD)/build.ninja:
	meson setup $(BUILD) $(MESON_OPTS)

build: setup $(BUILD)/build.ninja
	ninja -C $(BUILD)

demo: build
	scripts/demo.sh

# Everything: unit, integration and end-to-end tests, then the unit and
# integration tests again under ASan+UBSan, then a short run of every fuzz
# target.
test: build
	@rc=0; \
	meson test -C $(BUILD) --print-errorlogs || rc=1; \
	$(MAKE) --no-print-directory test-san || rc=1; \
	$(MAKE) --no-print-directory fuzz-short || rc=1; \
	scripts/test-summary.sh $(BUILD) $(BUILD_SAN) || rc=1; \
	exit $$rc

# Without the namespace testbed (no root needed).
test-fast: build
	meson test -C $(BUILD) --print-errorlogs --suite unit --suite integration

$(BUILD_SAN)/build.ninja:
	meson setup $(BUILD_SAN) -Dbuildtype=debug -Db_sanitize=address,undefined \
		-Db_lundef=false -Dc_args=-fno-sanitize-recover=all -De2e=false

test-san: setup $(BUILD_SAN)/build.ninja
	ninja -C $(BUILD_SAN)
	ASAN_OPTIONS=detect_leaks=1:abort_on_error=1 UBSAN_OPTIONS=halt_on_error=1:print_stacktrace=1 \
		meson test -C $(BUILD_SAN) --print-errorlogs --suite unit --suite integration

clean:
	rm -rf $(BUILD) $(BUILD_SAN)

# A short bounded run of every fuzz target (15 s each), built with clang
# into build-fuzz/; see doc/fuzzing.md.
.PHONY: fuzz-short
fuzz-short:
	test/fuzz/run.sh 15

# Every benchmark comparison (doc/benchmarks.md); separate from test, and
# nothing in it judges a time. BENCH_OUT=DIR keeps the results there.
.PHONY: bench
bench: build
	scripts/bench/all.sh $(BENCH_OUT)
