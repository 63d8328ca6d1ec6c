# SPDX-License-Identifier: BSD-3-Clause
"""The checks of the Python integration tests: `check` prints "ok   - WHAT"
or "FAIL - WHAT" (with the detail under a failure) and counts it; `summary`
prints the counts and gives the exit status: 1 when a check failed or none
ran. A test in this folder imports it as `from checks import check,
summary` (the script's own folder is on Python's path)."""

results = []


def check(what, ok, detail=""):
    results.append(bool(ok))
    print(("ok   - " if ok else "FAIL - ") + what)
    if not ok and detail:
        print("       " + detail)
    return bool(ok)


def summary():
    failed = results.count(False)
    print(f"{len(results) - failed} passed, {failed} failed")
    return 1 if failed or not results else 0
