#!/usr/bin/env python3
"""Names the tests a `swift test` log shows started but never passed or failed: after a run stopped by a
time limit, these are the ones that hung.

Usage: python3 scripts/unfinished-tests.py LOG
"""
import re
import sys

STARTED = re.compile(r"^◇ Test (?!case |run )(.+) started\.$")
ENDED = re.compile(r"^[✔✘] Test (?!run )(.+?)(?: with \d+ test cases?)? (?:passed|failed) after ")


def unfinished(lines):
    started, ended = [], set()
    for line in lines:
        line = line.rstrip("\n")
        if match := STARTED.match(line):
            started.append(match.group(1))
        elif match := ENDED.match(line):
            ended.add(match.group(1))
    return [name for name in started if name not in ended]


def main():
    if len(sys.argv) != 2:
        sys.exit(__doc__.strip())
    with open(sys.argv[1], encoding="utf-8", errors="replace") as log:
        names = unfinished(log)
    print(f"{len(names)} test(s) started and never ended:")
    for name in names:
        print(f"  {name}")


if __name__ == "__main__":
    main()
