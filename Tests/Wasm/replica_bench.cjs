// The browser's replica on accounts of several shapes (see scripts/replica_bench.sh): lists of
// items, then decks of cards with their review logs. Each figure is the median of the runs, in
// milliseconds. A fresh browser's load is the merge: the pages are kept as they came (the
// journal); `snapshot` is the text written in their place every 500 saves; `restore` reads the
// snapshot back, as a page that opens offline does.
//   node replica_bench.cjs replica.js replica.wasm setup.json RUNS
"use strict";
const fs = require("fs");
const [script, modulePath, setupPath, runsText] = process.argv.slice(2);
require(script);
const setup = JSON.parse(fs.readFileSync(setupPath, "utf8"));
const runs = Number(runsText || 3);
const account = "0b7e0a3c-1c1d-4a4e-9d3e-2f1a0c9b8e7d";
const shapes = [[10, 100], [100, 100], [300, 100], [3, 10000]];

function id(n) { return "00000000-0000-4000-8000-" + String(n).padStart(12, "0"); }

// An account of `lists` lists of `items` items each, in the wire form, every field at one clock.
function account_changes(lists, items) {
  const ms = 1700000000000;
  const field = (value) => "[" + JSON.stringify(value) + ",0]";
  const rows = [];
  const listIds = [];
  let n = 1;
  for (let l = 0; l < lists; l++) {
    const listId = id(n++);
    listIds.push(listId);
    rows.push('{"created":0,"entity":"itemList","fields":{"createdAt":' + field(ms) + ',"isArchived":' + field(false)
      + ',"modifiedAt":' + field(ms) + ',"name":' + field("List " + l) + ',"placement":'
      + field({ position: "a" + String(l).padStart(6, "0") }) + '},"id":"' + listId + '"}');
    for (let i = 0; i < items; i++) {
      rows.push('{"created":0,"entity":"item","fields":{"createdAt":' + field(ms) + ',"description":' + field("")
        + ',"isCrossedOut":' + field(i % 3 === 0) + ',"modifiedAt":' + field(ms) + ',"placement":'
        + field({ listId: listId, position: "a" + String(i).padStart(6, "0") }) + ',"quantity":' + field(null)
        + ',"title":' + field("item " + i) + '},"id":"' + id(n++) + '"}');
    }
  }
  const clock = (BigInt(ms) * 65536n).toString();
  return {
    text: '{"accountId":"' + account + '","clocks":[[' + clock + ',"dev"]],"format":"cardbox-changes","registry":1,'
      + '"replicaId":"dev","rows":[' + rows.join(",") + '],"tombstones":[],"version":1}',
    listIds: listIds,
  };
}

// An account of one deck of `cards` cards, each reviewed `reviews` times (a review log entry each),
// in the wire form; the reviewed cards are due over the next days, a tenth of them today.
function deck_changes(cards, reviews) {
  const ms = 1700000000000;
  const day = 86400000;
  const field = (value) => "[" + JSON.stringify(value) + ",0]";
  const deckId = id(1);
  const rows = ['{"created":0,"entity":"deck","fields":{"backLanguage":' + field("en") + ',"createdAt":' + field(ms)
    + ',"desiredRetention":' + field(0.9) + ',"enableFuzz":' + field(true) + ',"frontLanguage":' + field("es")
    + ',"fsrsParameters":' + field(null) + ',"learningSteps":' + field("1m,10m") + ',"maximumInterval":'
    + field(36500) + ',"modifiedAt":' + field(ms) + ',"name":' + field("Deck") + ',"newCardsPerDay":' + field(20)
    + ',"queuedSuggestions":' + field(0) + ',"relearningSteps":' + field("10m") + ',"reviewsPerDay":' + field(200)
    + '},"id":"' + deckId + '"}'];
  let n = 2;
  for (let c = 0; c < cards; c++) {
    const cardId = id(n++);
    const reviewed = reviews > 0;
    const due = ms + (c % 10) * day;
    const schedule = reviewed
      ? { difficulty: 5.5, dueAt: due, lapses: 0, lastReviewAt: ms - day, reps: reviews, stability: 12.5,
        state: "review", step: null }
      : { difficulty: null, dueAt: null, lapses: 0, lastReviewAt: null, reps: 0, stability: null, state: "new",
        step: null };
    rows.push('{"created":0,"entity":"card","fields":{"archive":' + field({ archivedAt: null, isArchived: false })
      + ',"back":' + field("the back of card " + c) + ',"backLanguage":' + field("en") + ',"cardType":'
      + field("basic") + ',"clozeNumber":' + field(null) + ',"createdAt":' + field(ms + c) + ',"deckId":'
      + field(deckId) + ',"front":' + field("card " + c) + ',"frontLanguage":' + field("es") + ',"imageHash":'
      + field(null) + ',"imagePrompt":' + field(null) + ',"isFavorite":' + field(false) + ',"isIncomplete":'
      + field(false) + ',"jsonContent":' + field(null) + ',"modifiedAt":' + field(ms) + ',"notes":' + field("")
      + ',"schedule":' + field(schedule) + '},"id":"' + cardId + '"}');
    for (let r = 0; r < reviews; r++) {
      const at = ms - (reviews - r) * day;
      rows.push('{"created":0,"entity":"reviewLog","fields":{"cardId":' + field(cardId) + ',"deckId":'
        + field(deckId) + ',"durationMs":' + field(4000) + ',"elapsedDays":' + field(r === 0 ? 0 : 1)
        + ',"previous":' + field("{}") + ',"rating":' + field(3) + ',"reviewedAt":' + field(at)
        + ',"stateAfter":' + field("review") + ',"stateBefore":' + field(r === 0 ? "new" : "review")
        + '},"id":"' + id(n++) + '"}');
    }
  }
  const clock = (BigInt(ms) * 65536n).toString();
  return {
    text: '{"accountId":"' + account + '","clocks":[[' + clock + ',"dev"]],"format":"cardbox-changes","registry":1,'
      + '"replicaId":"dev","rows":[' + rows.join(",") + '],"tombstones":[],"version":1}',
    deckId: deckId, now: ms,
  };
}

function timed(work) {
  const start = performance.now();
  work();
  return performance.now() - start;
}

function median(values) { return values.slice().sort((a, b) => a - b)[Math.floor(values.length / 2)]; }

let perList = null;

globalThis.CardboxReplica.load(fs.readFileSync(modulePath)).then((replica) => {
  const schema = JSON.stringify(setup.schema);
  console.log("records  | MB   | merge ms | snapshot ms | restore ms | lists page ms | list ms | add item ms");
  for (const [lists, items] of shapes) {
    const { text, listIds } = account_changes(lists, items);
    const figures = { merge: [], save: [], restore: [], lists: [], list: [], add: [] };
    for (let run = 0; run < runs; run++) {
      replica.configure(schema, "web");
      figures.merge.push(timed(() => replica.apply(text, Date.now())));
      let saved = "";
      figures.save.push(timed(() => { saved = replica.saved(account, setup.registry); }));
      figures.lists.push(timed(() => replica.listsPage()));
      figures.list.push(timed(() => replica.listPage(listIds[0])));
      figures.add.push(timed(() => {
        const before = replica.writeCount();
        replica.addItem({ id: id(90000000 + run), listId: listIds[0], title: "x", description: "", quantity: null },
          Date.now());
        replica.pending(account, setup.registry, before);
      }));
      const pending = replica.pending(account, setup.registry).text;
      figures.restore.push(timed(() => { replica.configure(schema, "web"); replica.restore(saved); replica.resumePending(pending); }));
      process.stderr.write(".");
    }
    process.stderr.write("\n");
    const cell = (values) => median(values).toFixed(values === figures.list || values === figures.add ? 1 : 0);
    if (items === 100) {
      // One list of 100 items as the replica keeps it (the records' share of what is saved).
      perList = (text.length / lists / 1e3).toFixed(0);
    }
    console.log([String(lists * (items + 1)).padEnd(8), (text.length / 1e6).toFixed(1).padEnd(4),
      cell(figures.merge).padEnd(8), cell(figures.save).padEnd(11), cell(figures.restore).padEnd(10),
      cell(figures.lists).padEnd(13), cell(figures.list).padEnd(7), cell(figures.add)].join(" | "));
  }
  console.log("a list of 100 items in the wire form: " + perList + " kB");

  // Decks: a fresh browser's first load (the merge), a page load (restore), the study screen
  // (the queue, counts and intervals), the deck's page (its first 50 cards, tags, counts), and an answer.
  console.log("cards × reviews | records | MB   | merge ms | snapshot ms | restore ms | study screen ms | deck page ms | answer ms");
  for (const [cards, reviews] of [[200, 0], [2000, 5], [10000, 0], [10000, 10]]) {
    const { text, deckId, now } = deck_changes(cards, reviews);
    const figures = { merge: [], save: [], restore: [], study: [], deck: [], answer: [] };
    const day = { deck: deckId, dayStart: now - 3600000, dayEnd: now + 20 * 3600000 };
    for (let run = 0; run < runs; run++) {
      replica.configure(schema, "web");
      figures.merge.push(timed(() => replica.apply(text, now)));
      let saved = "";
      figures.save.push(timed(() => { saved = replica.saved(account, setup.registry); }));
      let view = null;
      figures.study.push(timed(() => { view = replica.study(day, now); }));
      figures.deck.push(timed(() => replica.deckPage(Object.assign({ query: [] }, day), now)));
      // An answer as the page makes it: only the queue's first card, and the journal's entry.
      figures.answer.push(timed(() => {
        const before = replica.writeCount();
        replica.answer({ card: view.page.next.card.id, deck: deckId, rating: 3, durationMs: 5000, reviewId: id(90000000 + run),
          dayStart: day.dayStart, dayEnd: day.dayEnd }, now + 1000);
        replica.pending(account, setup.registry, before);
      }));
      const pending = replica.pending(account, setup.registry).text;
      figures.restore.push(timed(() => { replica.configure(schema, "web"); replica.restore(saved); replica.resumePending(pending); }));
      process.stderr.write(".");
    }
    process.stderr.write("\n");
    const cell = (values) => median(values).toFixed(values === figures.answer ? 1 : 0);
    console.log([(cards + " × " + reviews).padEnd(15), String(1 + cards * (reviews + 1)).padEnd(7),
      (text.length / 1e6).toFixed(1).padEnd(4), cell(figures.merge).padEnd(8), cell(figures.save).padEnd(11),
      cell(figures.restore).padEnd(10), cell(figures.study).padEnd(15), cell(figures.deck).padEnd(12),
      cell(figures.answer)].join(" | "));
    if (cards === 200) console.log("a 200-card day in the wire form: " + (text.length / 1e3).toFixed(0) + " kB");
  }
});
