#!/usr/bin/env python3
"""Slow clients against a running server: how it holds up when one address opens many connections
and trickles a request body into each (a byte every 2 s), while another address asks for /health.

    python3 scripts/slow_clients.py http://127.0.0.1:8080 [--connections 200] [--seconds 30]

Prints how many connections the server closed at once (`--connections-per-address`), how long the
trickled ones stayed open (`SlowBodyGuard`: closed after 10 s of a body slower than 1 KB/s), and
the other address's /health times meanwhile. The attacker connects from 127.0.0.1, the other client
from 127.0.0.2 (both loopback on Linux), so run it against a server listening on 0.0.0.0 or on
127.0.0.1 with a cap per address to see."""
import argparse
import select
import socket
import statistics
import time
from urllib.parse import urlparse


def connect(host: str, port: int, source: str) -> socket.socket:
    connection = socket.socket(socket.AF_INET, socket.SOCK_STREAM)
    connection.bind((source, 0))
    connection.connect((host, port))
    return connection


def health(host: str, port: int) -> float:
    """Seconds one /health takes from 127.0.0.2; infinity when it fails."""
    start = time.monotonic()
    try:
        with connect(host, port, "127.0.0.2") as connection:
            connection.settimeout(10)
            connection.sendall(f"GET /health HTTP/1.1\r\nHost: {host}\r\nConnection: close\r\n\r\n".encode())
            answer = connection.recv(100)
        return time.monotonic() - start if answer.startswith(b"HTTP/1.1 200") else float("inf")
    except OSError:
        return float("inf")


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("url")
    parser.add_argument("--connections", type=int, default=200)
    parser.add_argument("--seconds", type=float, default=30)
    arguments = parser.parse_args()
    address = urlparse(arguments.url)
    host, port = address.hostname, address.port
    head = (f"POST /v1/sessions HTTP/1.1\r\nHost: {host}\r\nContent-Type: application/json\r\n"
            f"Content-Length: 100000\r\n\r\n{{").encode()
    opened = {}
    start = time.monotonic()
    for _ in range(arguments.connections):
        connection = connect(host, port, "127.0.0.1")
        connection.sendall(head)
        opened[connection] = time.monotonic()
    closed_at = {}
    healths = []
    last_byte = time.monotonic()
    while time.monotonic() - start < arguments.seconds and len(closed_at) < len(opened):
        readable, _, _ = select.select([c for c in opened if c not in closed_at], [], [], 0.2)
        for connection in readable:
            try:
                if connection.recv(4096) == b"":
                    closed_at[connection] = time.monotonic() - opened[connection]
            except OSError:
                closed_at[connection] = time.monotonic() - opened[connection]
        if time.monotonic() - last_byte >= 2:
            last_byte = time.monotonic()
            for connection in opened:
                if connection not in closed_at:
                    try:
                        connection.send(b" ")
                    except OSError:
                        closed_at[connection] = time.monotonic() - opened[connection]
            healths.append(health(host, port))
    at_once = sorted(t for t in closed_at.values() if t < 1)
    later = sorted(t for t in closed_at.values() if t >= 1)
    print(f"{arguments.connections} connections from one address, a body byte every 2 s:")
    print(f"  closed at once: {len(at_once)}")
    if later:
        print(f"  trickled, then closed: {len(later)}, after {later[0]:.1f}-{later[-1]:.1f} s")
    print(f"  still open after {arguments.seconds:.0f} s: {len(opened) - len(closed_at)}")
    answered = [t for t in healths if t != float("inf")]
    if healths:
        print(f"  /health from another address meanwhile: {len(answered)} of {len(healths)} answered"
              + (f", median {statistics.median(answered) * 1000:.1f} ms" if answered else ""))
    for connection in opened:
        connection.close()


if __name__ == "__main__":
    main()
