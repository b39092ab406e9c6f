"""Anki's side of the sync benchmark: its own sync server (python -m anki.syncserver) on loopback,
a collection of N Basic notes uploaded whole, a full download to an empty collection, then the
normal sync of one changed note, sent and received. Prints one JSON line of milliseconds.

    python3 scripts/anki_sync_bench.py CARDS RUNS
"""
import json
import os
import socket
import statistics
import subprocess
import sys
import tempfile
import time

from anki.collection import Collection


DOWNLOADS = 5


def free_port():
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def wait_for(port, seconds=30):
    deadline = time.time() + seconds
    while time.time() < deadline:
        try:
            with socket.create_connection(("127.0.0.1", port), timeout=0.2):
                return
        except OSError:
            time.sleep(0.1)
    raise SystemExit("anki.syncserver did not start")


def ms(start):
    return (time.perf_counter() - start) * 1000


def main():
    cards, runs = int(sys.argv[1]), int(sys.argv[2])
    work = tempfile.mkdtemp(prefix="anki-sync-bench-")
    port = free_port()
    env = dict(os.environ, SYNC_USER1="bench:bench-password", SYNC_HOST="127.0.0.1", SYNC_PORT=str(port),
               SYNC_BASE=os.path.join(work, "server"))
    server = subprocess.Popen([sys.executable, "-m", "anki.syncserver"], env=env,
                              stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    try:
        wait_for(port)
        endpoint = f"http://127.0.0.1:{port}/"
        phone = Collection(os.path.join(work, "phone.anki2"))
        model = phone.models.by_name("Basic")
        deck = phone.decks.id("Bench")
        notes = []
        for i in range(cards):
            note = phone.new_note(model)
            note["Front"], note["Back"] = f"front {i}", f"back {i}"
            note.tags = ["bench"]
            notes.append(note)
        from anki.collection import AddNoteRequest
        phone.add_notes([AddNoteRequest(note=n, deck_id=deck) for n in notes])
        auth = phone.sync_login("bench", "bench-password", endpoint)
        phone.sync_collection(auth, False)
        start = time.perf_counter()
        phone.full_upload_or_download(auth=auth, server_usn=None, upload=True)
        upload = ms(start)

        # A full download to a new device, five times (each into a new collection): the median, as
        # one download varies by a factor of two or three from run to run on a small machine.
        downloads = []
        for device in range(DOWNLOADS):
            laptop = Collection(os.path.join(work, f"laptop{device}.anki2"))
            laptop_auth = laptop.sync_login("bench", "bench-password", endpoint)
            start = time.perf_counter()
            laptop.sync_collection(laptop_auth, False)
            laptop.full_upload_or_download(auth=laptop_auth, server_usn=None, upload=False)
            downloads.append(ms(start))
            assert laptop.card_count() == cards, laptop.card_count()
            if device < DOWNLOADS - 1:
                laptop.close()
        download = statistics.median(downloads)

        note_id = phone.find_notes("")[0]
        sends, receives = [], []
        for run in range(runs):
            note = phone.get_note(note_id)
            note["Back"] = f"edited {run}"
            phone.update_note(note)
            start = time.perf_counter()
            phone.sync_collection(auth, False)
            sends.append(ms(start))
            start = time.perf_counter()
            laptop.sync_collection(laptop_auth, False)
            receives.append(ms(start))
        assert laptop.get_note(note_id)["Back"] == f"edited {runs - 1}"
        print(json.dumps({"cards": cards, "fullUploadMs": upload, "fullDownloadMs": download,
                          "fullDownloadsMs": downloads,  # in order: the first came right after the upload
                          "incrementalSendMs": statistics.median(sends),
                          "incrementalReceiveMs": statistics.median(receives)}))
        phone.close()
        laptop.close()
    finally:
        server.terminate()
        server.wait()


if __name__ == "__main__":
    main()
