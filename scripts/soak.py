"""Drives a running `cardbox serve` for a soak: many accounts, web writes and sync pulls, for a while.

Usage: python3 scripts/soak.py URL SERVER_PID [--accounts 2000] [--minutes 10] [--workers 16]

Every account is made (POST /v1/accounts) and signed in (POST /v1/sessions). Then workers pick
accounts at random: most requests are web writes through /api/v1 (a list with a name of its own,
each acknowledged one remembered), the rest sync pulls (GET /v1/sync/pull). Every 30 s it prints
the server's resident memory and open files, and the requests so far. At the end it reads every
account's sync state (pulling all its pages) and checks that every acknowledged list is there:
nothing acknowledged may be lost. Exits 1 when something is missing or a request failed.
"""

import argparse
import json
import os
import random
import sys
import threading
import time
import urllib.error
import urllib.request


def request(url, method="GET", body=None, token=None, timeout=60):
    data = None if body is None else json.dumps(body).encode()
    headers = {"Content-Type": "application/json"} if body is not None else {}
    if token:
        headers["Authorization"] = f"Bearer {token}"
    req = urllib.request.Request(url, data=data, method=method, headers=headers)
    with urllib.request.urlopen(req, timeout=timeout) as answer:
        return answer.status, json.loads(answer.read() or b"{}")


def server_state(pid):
    """(resident memory in MB, open files) of the server process."""
    with open(f"/proc/{pid}/status") as status:
        rss = next(int(line.split()[1]) for line in status if line.startswith("VmRSS")) / 1024
    return rss, len(os.listdir(f"/proc/{pid}/fd"))


def make_accounts(url, count):
    tokens = []
    for index in range(count):
        name = f"soak{index:05d}"
        request(f"{url}/v1/accounts", "POST", {"user": name, "password": "correct horse battery"})
        _, answer = request(f"{url}/v1/sessions", "POST",
                            {"user": name, "password": "correct horse battery", "device": "soak"})
        tokens.append(answer["token"])
        if (index + 1) % 200 == 0:
            print(f"  {index + 1} of {count} accounts made and signed in", file=sys.stderr)
    return tokens


class Soak:
    def __init__(self, url, tokens, deadline):
        self.url, self.tokens, self.deadline = url, tokens, deadline
        self.lock = threading.Lock()
        self.acknowledged = {}  # account index -> list names the server acknowledged
        self.requests = 0
        self.failures = []

    def work(self, seed):
        rng = random.Random(seed)
        serial = 0
        while time.monotonic() < self.deadline:
            account = rng.randrange(len(self.tokens))
            token = self.tokens[account]
            try:
                if rng.random() < 0.7:
                    serial += 1
                    name = f"w{seed}-{serial}"
                    status, _ = request(f"{self.url}/api/v1/lists", "POST", {"name": name}, token)
                    if status == 201:
                        with self.lock:
                            self.acknowledged.setdefault(account, []).append(name)
                else:
                    request(f"{self.url}/v1/sync/pull?after=0&limit=100", token=token)
                with self.lock:
                    self.requests += 1
            except (urllib.error.URLError, OSError) as error:
                with self.lock:
                    self.failures.append(str(error))

    def lists_on_server(self, account):
        names, cursor = set(), 0
        while True:
            _, page = request(f"{self.url}/v1/sync/pull?after={cursor}&limit=5000", token=self.tokens[account])
            for row in page["changes"].get("rows", []):
                if row.get("entity") == "itemList":
                    field = row["fields"].get("name")  # [value, clock index]
                    if field:
                        names.add(field[0])
            cursor = page["cursor"]
            if not page["hasMore"]:
                return names


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("url")
    parser.add_argument("pid", type=int)
    parser.add_argument("--accounts", type=int, default=2000)
    parser.add_argument("--minutes", type=float, default=10)
    parser.add_argument("--workers", type=int, default=16)
    options = parser.parse_args()

    started = time.monotonic()
    print(f"making {options.accounts} accounts", file=sys.stderr)
    tokens = make_accounts(options.url, options.accounts)
    soak = Soak(options.url, tokens, time.monotonic() + options.minutes * 60)
    threads = [threading.Thread(target=soak.work, args=(seed,)) for seed in range(options.workers)]
    for thread in threads:
        thread.start()
    print(f"{'minute':>6} {'RSS MB':>7} {'files':>6} {'requests':>9}")
    begin = time.monotonic()
    while any(thread.is_alive() for thread in threads):
        rss, files = server_state(options.pid)
        print(f"{(time.monotonic() - begin) / 60:>6.1f} {rss:>7.0f} {files:>6} {soak.requests:>9}", flush=True)
        for thread in threads:
            thread.join(timeout=30 / len(threads))
    rss, files = server_state(options.pid)
    print(f"{(time.monotonic() - begin) / 60:>6.1f} {rss:>7.0f} {files:>6} {soak.requests:>9}", flush=True)

    missing = 0
    written = sum(len(names) for names in soak.acknowledged.values())
    for account, names in soak.acknowledged.items():
        missing += len(set(names) - soak.lists_on_server(account))
    print(f"{soak.requests} requests, {len(soak.failures)} failed; {written} acknowledged lists, "
          f"{missing} missing from the sync state; {time.monotonic() - started:.0f} s in all")
    if soak.failures:
        print(f"first failure: {soak.failures[0]}")
    sys.exit(1 if missing or soak.failures else 0)


if __name__ == "__main__":
    main()
