#!/usr/bin/env bash
# SPDX-License-Identifier: BSD-3-Clause
# One closing line for `make test`, over every build directory's last
# meson test run: "tests: N passed, M failed, K skipped".
pass=0 fail=0 skip=0
for dir in "$@"; do
	log="$dir/meson-logs/testlog.json"
	[ -f "$log" ] || continue
	pass=$((pass + $(grep -c '"result": "OK"' "$log")))
	skip=$((skip + $(grep -c '"result": "SKIP"' "$log")))
	fail=$((fail + $(grep -cE '"result": "(FAIL|TIMEOUT|ERROR|UNEXPECTEDPASS)"' "$log")))
done
echo "tests: $pass passed, $fail failed, $skip skipped"
[ "$fail" -eq 0 ]
