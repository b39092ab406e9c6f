#!/usr/bin/env python3
"""Checks the package's layering from its manifest (`swift package describe`): which targets may reach
which libraries, however indirectly. Exits 1 naming each path that breaks a rule.

- Only the image worker's side links libvips (`CVipsShim`): the command line and the server send
  image work to `cardbox-image-worker` (docs/store.md, "The image workers").
- The command line (`cardbox`) links no server: `cardbox serve` and `cardbox admin` hand the process
  to `cardbox-server`, so that every other command starts without the HTTP stack's and the server
  databases' protocol conformances, which the runtime walks at each lookup.
- The server's seam (`CardboxServer`) and its PostgreSQL implementation link neither GRDB nor
  libvips: a server on PostgreSQL carries no SQLite layer of its own but the account copies'.
- What the fuzz build reaches (`CardboxFuzzTargets`) needs no HTTP client: the chat and image services
  (`CardboxSuggestServices`) stay apart from the dictionaries, so the fuzzers' sanitized build skips
  AsyncHTTPClient and SwiftNIO.
- The FSRS step (`CardboxFSRS`) depends on nothing, and the replica's core (`CardboxReplica`) on it
  alone: the browser runs them as WebAssembly, built with Embedded Swift as one module, where no
  other module exists.
"""
import json
import subprocess
import sys

RULES = [
    # (target, library it must not reach, why)
    ("cardbox", "CVipsShim", "the command line leaves images to cardbox-image-worker"),
    ("cardbox", "CardboxServer", "the command line hands serve and admin to cardbox-server"),
    ("cardbox", "Hummingbird", "the command line hands serve and admin to cardbox-server"),
    ("cardbox-server", "CVipsShim", "the server leaves images to cardbox-image-worker"),
    ("CardboxStore", "CVipsShim", "the store leaves images to cardbox-image-worker"),
    ("CardboxHTTP", "CVipsShim", "the server leaves images to cardbox-image-worker"),
    ("CardboxServer", "GRDB", "the sync-state seam names no database library"),
    ("CardboxServer", "CVipsShim", "the sync-state seam leaves images to cardbox-image-worker"),
    ("CardboxServerPostgres", "GRDB", "the PostgreSQL implementation needs no SQLite"),
    ("CardboxServerPostgres", "CVipsShim", "the PostgreSQL implementation leaves images to the worker"),
    ("CardboxFuzzTargets", "AsyncHTTPClient", "the fuzz build needs no HTTP client"),
]

# Targets compiled to WebAssembly, and the only targets each may depend on.
SELF_CONTAINED = {"CardboxFSRS": [], "CardboxReplica": ["CardboxFSRS"]}


def main() -> int:
    described = json.loads(
        subprocess.run(["swift", "package", "describe", "--type", "json"], check=True, capture_output=True,
                       text=True).stdout)
    edges = {
        target["name"]: target.get("target_dependencies", []) + target.get("product_dependencies", [])
        for target in described["targets"]
    }

    def path(start: str, goal: str) -> list[str] | None:
        """A chain of dependencies from start to goal, depth first."""
        seen = set()
        stack = [[start]]
        while stack:
            chain = stack.pop()
            if chain[-1] == goal:
                return chain
            for next_target in edges.get(chain[-1], []):
                if next_target not in seen:
                    seen.add(next_target)
                    stack.append(chain + [next_target])
        return None

    broken = 0
    for target, library, why in RULES:
        if target not in edges:
            print(f"layers: no target {target} (update scripts/check-layers.py)", file=sys.stderr)
            broken += 1
        elif chain := path(target, library):
            print(f"layers: {' → '.join(chain)}: {why}", file=sys.stderr)
            broken += 1
    for target, allowed in SELF_CONTAINED.items():
        if edges.get(target, None) != allowed:
            print(f"layers: {target} may depend on {allowed or 'nothing'} alone (it is compiled to "
                  f"WebAssembly): {edges.get(target)}", file=sys.stderr)
            broken += 1
    if broken == 0:
        print(f"layers: {len(RULES) + len(SELF_CONTAINED)} rules hold")
    return 1 if broken else 0


if __name__ == "__main__":
    sys.exit(main())
