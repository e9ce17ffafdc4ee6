#!/usr/bin/env python3
"""Totals the test suites of one `.ci/run`: `tests: N passed, N failed, N skipped`.

Usage: tally.py [--installed TEXT] LOG[:RC] ...

Each LOG is the captured output of one suite (cargo test, lit, pytest, the
browser test, the fuzz smoke); RC, when given, is the suite's exit status. The suites'
own closing lines are read:

- cargo test: every `test result: ... N passed; N failed; N ignored` line.
  A test that needs `../shared` and finds it absent reports `ok` to the
  harness but first writes `SKIPPED (REASON): TEST: ...` (or
  `SKIPPED: TEST: ...`) to stderr; each such line moves one test from
  passed to skipped. Ignored tests count as skipped.
- lit: the `Passed:`, `Failed:`, `Unsupported:` ... lines of its summary.
- pytest: its last `N passed, N skipped in Xs` line.
- the browser test: its `browser test: PAGE ok` / `browser test: PAGE FAILED` lines;
  the fuzz smoke: its `fuzz smoke: TARGET ok` / `... FAILED` lines (one test a target).

A suite that exited non-zero without a failure in its counts (it did not
build, or crashed) counts as one failed test, so the total never reads
green when a suite was red.
"""

import re
import sys

CARGO = re.compile(r"^test result: \w+\. (\d+) passed; (\d+) failed; (\d+) ignored")
# A cargo test's own skip line (pytest's `-rs` lines read `SKIPPED [N] ...`),
# anywhere in a line: tests run in parallel, so it may land in the middle
# of another test's `test NAME ... ok` line.
SKIP = re.compile(r"SKIPPED(?: \([^)]*\))?: (\w+):")
LIT = re.compile(r"^\s*(Passed|Failed|Unsupported|Skipped|Excluded|Expectedly Failed|"
                 r"Unexpectedly Passed|Timed Out|Unresolved)\s*:\s*(\d+)")
LIT_OLD = re.compile(r"^\s*(Expected Passes|Unexpected Failures|Unsupported Tests|"
                     r"Expected Failures|Unexpected Passes|Unresolved Tests)\s*:\s*(\d+)")
PYTEST = re.compile(r"^=*\s*((?:\d+ (?:passed|failed|skipped|errors?|xfailed|xpassed|"
                    r"deselected|warnings?)(?:, )?)+) in [\d.]+s")
ONE_LINE_TEST = re.compile(r"^(?:browser test|fuzz smoke): \S+ (ok|FAILED)")

LIT_KIND = {
    "Passed": "passed", "Expectedly Failed": "passed", "Expected Passes": "passed",
    "Expected Failures": "passed",
    "Failed": "failed", "Unexpectedly Passed": "failed", "Timed Out": "failed",
    "Unresolved": "failed", "Unexpected Failures": "failed", "Unexpected Passes": "failed",
    "Unresolved Tests": "failed",
    "Unsupported": "skipped", "Skipped": "skipped", "Unsupported Tests": "skipped",
    "Excluded": None,
}


def count(text):
    """Passed, failed and skipped tests in one suite's output."""
    passed = failed = skipped = 0
    skips = set()
    for line in text.splitlines():
        m = CARGO.match(line)
        if m:
            passed += int(m.group(1))
            failed += int(m.group(2))
            skipped += int(m.group(3))
            continue
        m = SKIP.search(line)
        if m:
            skips.add(m.group(1))
            continue
        m = LIT.match(line) or LIT_OLD.match(line)
        if m:
            kind = LIT_KIND[m.group(1)]
            if kind == "passed":
                passed += int(m.group(2))
            elif kind == "failed":
                failed += int(m.group(2))
            elif kind == "skipped":
                skipped += int(m.group(2))
            continue
        m = PYTEST.match(line)
        if m:
            for part in m.group(1).split(", "):
                n, what = part.split(" ", 1)
                if what == "passed" or what == "xfailed":
                    passed += int(n)
                elif what in ("failed", "error", "errors", "xpassed"):
                    failed += int(n)
                elif what == "skipped":
                    skipped += int(n)
            continue
        m = ONE_LINE_TEST.match(line)
        if m:
            if m.group(1) == "ok":
                passed += 1
            else:
                failed += 1
    # A skipped cargo test reported `ok`: it is not a pass.
    moved = min(len(skips), passed)
    return passed - moved, failed, skipped + moved


def main(argv):
    installed = None
    args = list(argv)
    if args[:1] == ["--installed"]:
        installed = args[1]
        args = args[2:]
    total = [0, 0, 0]
    for arg in args:
        path, _, rc = arg.rpartition(":") if re.search(r":-?\d+$", arg) else (arg, "", "0")
        try:
            with open(path, encoding="utf-8", errors="replace") as f:
                text = f.read()
        except OSError:
            text = ""
        p, fl, s = count(text)
        if int(rc) != 0 and fl == 0:
            fl = 1
        total[0] += p
        total[1] += fl
        total[2] += s
    if installed is not None:
        print("installed: " + (installed or "nothing"))
    print("tests: %d passed, %d failed, %d skipped" % tuple(total))
    return 1 if total[1] else 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
