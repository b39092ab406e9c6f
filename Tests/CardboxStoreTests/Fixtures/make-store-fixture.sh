#!/usr/bin/env bash
# How the store fixtures were made: by the cardbox command line of a release, one command at a time,
# so a fixture holds what a user's store of that release holds: decks with study settings, cards
# with tags (a cloze card, a favourite, an archived, an edited and a deleted one), answers, a
# setting, suggestions with an image and a rejected one, lists with items and an item image, a board
# with columns and an archived card, signed in to a server and synced, then changes not sent yet.
#   store-v10.sqlite: schema v10, commit 870b7cb;  store-v11.sqlite: schema v11, commit a42f8d2
#   store-v12.sqlite: schema v12, commit 5156d90;  store-v13.sqlite: schema v13, commit abe819a
#   store-v14.sqlite: schema v14, commit 2b08f08;  store-v15.sqlite: schema v15, commit 5aad38f
#   store-v16.sqlite: schema v16, commit 3267297
# StoreMigrationTests opens each with today's code. When a migration is added, make a fixture with
# the release before it (its binary, before the code changes), then VACUUM it in DELETE journal mode.
#   usage: make-store-fixture.sh CARDBOX-BINARY OUTPUT.sqlite
set -euo pipefail
bin=$1 out=$2
repo="$(cd "$(dirname "$0")/../../.." && pwd)"
rm -f "$out" "$out-wal" "$out-shm"
cb() { "$bin" --store "$out" "$@"; }
id() { cb "$@" --json | jq -r '.id'; }

cb plan set premium >/dev/null
cb settings set showCrossedOutItems true >/dev/null
cb deck create Spanish --front es --back en >/dev/null
cb deck create German --front de --back en >/dev/null
cb deck edit Spanish --desired-retention 0.85 --new-per-day 10 >/dev/null
dog=$(id card add Spanish "el perro" dog --tag noun --tag animal --notes "El perro ladra.")
cat=$(id card add Spanish "el gato" cat --tag noun)
house=$(id card add Spanish "la casa" house --tag noun)
gone=$(id card add Spanish "el error" mistake)
cb card add Spanish --cloze "El {{c1::gato}} {{c2::duerme}}" --extra "The cat sleeps" >/dev/null
cb card add German "der Hund" dog --tag noun >/dev/null
cb card favorite "$dog" >/dev/null
cb card edit "$cat" --back "cat (pet)" >/dev/null
cb card archive "$house" >/dev/null
cb card delete "$gone" >/dev/null
cb card answer "$dog" good >/dev/null
cb card answer "$cat" again >/dev/null

list=$(id list create Groceries)
milk=$(id item add Groceries Milk --quantity 2)
bread=$(id item add Groceries Bread --description "Rye")
cb item add Groceries Eggs --quantity 12 >/dev/null
cb item cross "$bread" >/dev/null
cb item move "$milk" --position end >/dev/null
cb list create Packing >/dev/null

cb board create Work >/dev/null
cb board column add Work "To do" >/dev/null
cb board column add Work Done >/dev/null
first=$(id board card add "To do" "Write the report" --description "By Friday")
cb board card add Done "Book the room" >/dev/null
cb board card archive "$first" >/dev/null

# Signed in to a server and synced: the store joins the server's account and records the link.
data=$(mktemp -d)
trap 'kill "$server" 2>/dev/null; rm -rf "$data"' EXIT
printf 'fixture-password\n' | "$bin" admin --database "$data/server.sqlite" user add ann --password-stdin --plan premium >/dev/null
"$bin" serve --database "$data/server.sqlite" --port 0 >"$data/serve.log" 2>&1 &
server=$!
until grep -qo 'http://127.0.0.1:[0-9]*' "$data/serve.log"; do sleep 0.2; done
address=$(grep -o 'http://127.0.0.1:[0-9]*' "$data/serve.log" | head -1)
printf 'fixture-password\n' | cb login "$address" --user ann --password-stdin --device fixture >/dev/null
cb sync >/dev/null
# Made after the sync, not sent yet (and images: v10's sign-in dropped the store's images).
cb card add German "die Katze" cat >/dev/null
cb suggestion add Spanish gato "cat" --image "$repo/Fuzz/corpus/image/small.png" >/dev/null
rejected=$(id suggestion add Spanish "el pájaro" bird --image "$repo/Fuzz/corpus/image/small.jpg")
cb suggestion reject "$rejected" >/dev/null
cb item image add "$milk" "$repo/Fuzz/corpus/image/small.jpg" >/dev/null
echo "made $out ($list)" >&2
