#!/usr/bin/env python3
"""The data of `scripts/web_load.sh`, and its wrk scripts.

Usage: python3 scripts/web_load_setup.py URL WORK_FOLDER USERS

Signs in as the USERS accounts bench0, bench1, … (password bench-password) on the server at URL and
gives each a deck of 100 cards (through /api/v1) and a board of two columns holding one card (through the pages, with the
session cookie and CSRF token a browser would have). Writes wrk scripts into WORK_FOLDER in which
each request comes from the next user in turn: page.lua (the deck page), answer.lua (the study
answer endpoint, the same answer again and again: each one a write pushed to the sync state) and
move.lua (the board card moved to the other column each time).
"""
import http.cookiejar
import json
import re
import sys
import urllib.parse
import urllib.request
from concurrent.futures import ThreadPoolExecutor

CARDS = 100


def user(url: str, index: int) -> dict:
    name = f"bench{index}"
    jar = http.cookiejar.CookieJar()
    opener = urllib.request.build_opener(urllib.request.HTTPCookieProcessor(jar))

    def call(path, body=None, token=None, form=None):
        headers = {"Authorization": f"Bearer {token}"} if token else {}
        data = None
        if body is not None:
            data, headers["Content-Type"] = json.dumps(body).encode(), "application/json"
        if form is not None:
            data = urllib.parse.urlencode(form).encode()
        with opener.open(urllib.request.Request(url + path, data=data, headers=headers)) as answer:
            return answer.geturl(), answer.read().decode()

    token = json.loads(call("/v1/sessions", {"user": name, "password": "bench-password", "device": "load"})[1])["token"]
    deck = json.loads(call("/api/v1/decks", {"name": "Load", "frontLanguage": "es", "backLanguage": "en"}, token)[1])
    deck = deck["deck"]["id"]
    for card in range(CARDS):
        call(f"/api/v1/decks/{deck}/cards", {"front": f"palabra {card}", "back": f"word {card}"}, token)
    call("/signin", form={"user": name, "password": "bench-password"})
    cookie = next(c for c in jar if c.name == "cardbox_session").value
    csrf = re.search(r'name="csrf" value="([0-9a-f]+)"', call("/decks")[1]).group(1)
    board = call("/boards", form={"csrf": csrf, "title": "Load"})[0].rsplit("/", 1)[1]
    for title in ("To do", "Done"):
        call(f"/boards/{board}/columns", form={"csrf": csrf, "title": title})
    columns = re.findall(r'data-drop-column="([0-9a-f-]+)"', call(f"/boards/{board}")[1])
    call(f"/boards/{board}/columns/{columns[0]}/cards", form={"csrf": csrf, "title": "Moved back and forth"})
    moved = re.findall(r'id="card-([0-9a-f-]+)"', call(f"/boards/{board}")[1])[0]
    study = json.loads(call(f"/api/v1/decks/{deck}/study", token=token)[1])["next"]["card"]["id"]
    return {"token": token, "cookie": cookie, "csrf": csrf, "deck": deck, "card": study, "board": board,
            "columns": columns, "boardCard": moved}


def lua_table(rows) -> str:
    return "{" + ",".join("{" + ",".join(json.dumps(value) for value in row) + "}" for row in rows) + "}"


NEXT_USER = """local n = 0
local function nextUser()
  n = n + 1
  return users[(n % #users) + 1], n
end
"""

PAGE = """
request = function()
  local user = nextUser()
  return wrk.format("GET", "/decks/" .. user[2], {["Cookie"] = "cardbox_session=" .. user[1]})
end
"""

ANSWER = """
request = function()
  local user = nextUser()
  return wrk.format("POST", "/api/v1/decks/" .. user[2] .. "/study",
    {["Authorization"] = "Bearer " .. user[1], ["Content-Type"] = "application/json"},
    '{"card": "' .. user[3] .. '", "rating": 3}')
end
"""

MOVE = """
request = function()
  local user, count = nextUser()
  local column = (math.floor(count / #users) % 2 == 0) and user[6] or user[5]
  return wrk.format("POST", "/boards/" .. user[3] .. "/cards/" .. user[4] .. "/move",
    {["Cookie"] = "cardbox_session=" .. user[1], ["Content-Type"] = "application/x-www-form-urlencoded"},
    "csrf=" .. user[2] .. "&column=" .. column .. "&position=0")
end
"""


def main() -> None:
    if len(sys.argv) != 4:
        raise SystemExit(__doc__)
    url, work, users = sys.argv[1], sys.argv[2], int(sys.argv[3])
    with ThreadPoolExecutor(8) as pool:
        setups = list(pool.map(lambda index: user(url, index), range(users)))
    scripts = {
        "page.lua": ([(u["cookie"], u["deck"]) for u in setups], PAGE),
        "answer.lua": ([(u["token"], u["deck"], u["card"]) for u in setups], ANSWER),
        "move.lua": ([(u["cookie"], u["csrf"], u["board"], u["boardCard"], *u["columns"]) for u in setups], MOVE),
    }
    for name, (rows, body) in scripts.items():
        with open(f"{work}/{name}", "w") as out:
            out.write("users = " + lua_table(rows) + "\n" + NEXT_USER + body)


if __name__ == "__main__":
    main()
