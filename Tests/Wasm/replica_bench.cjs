// The browser's replica on accounts of several shapes (see scripts/replica_bench.sh): each figure
// is the median of the runs, in milliseconds.
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

function timed(work) {
  const start = performance.now();
  work();
  return performance.now() - start;
}

function median(values) { return values.slice().sort((a, b) => a - b)[Math.floor(values.length / 2)]; }

let perList = null;

globalThis.CardboxReplica.load(fs.readFileSync(modulePath)).then((replica) => {
  const schema = JSON.stringify(setup.schema);
  console.log("records  | MB   | merge ms | save ms | restore ms | lists page ms | list ms | add item ms");
  for (const [lists, items] of shapes) {
    const { text, listIds } = account_changes(lists, items);
    const figures = { merge: [], save: [], restore: [], lists: [], list: [], add: [] };
    for (let run = 0; run < runs; run++) {
      replica.configure(schema, "web");
      figures.merge.push(timed(() => replica.apply(text, Date.now())));
      let saved = "";
      figures.save.push(timed(() => { saved = replica.saved(account, setup.registry); }));
      figures.lists.push(timed(() => replica.lists()));
      figures.list.push(timed(() => replica.list(listIds[0])));
      figures.add.push(timed(() => replica.addItem(
        { id: id(90000000 + run), listId: listIds[0], title: "x", description: "", quantity: null }, Date.now())));
      const pending = replica.pending(account, setup.registry).text;
      figures.restore.push(timed(() => { replica.configure(schema, "web"); replica.restore(saved, pending); }));
      process.stderr.write(".");
    }
    process.stderr.write("\n");
    const cell = (values) => median(values).toFixed(values === figures.list || values === figures.add ? 1 : 0);
    if (items === 100) {
      // One list of 100 items as the replica keeps it (the records' share of what is saved).
      perList = (text.length / lists / 1e3).toFixed(0);
    }
    console.log([String(lists * (items + 1)).padEnd(8), (text.length / 1e6).toFixed(1).padEnd(4),
      cell(figures.merge).padEnd(8), cell(figures.save).padEnd(7), cell(figures.restore).padEnd(10),
      cell(figures.lists).padEnd(13), cell(figures.list).padEnd(7), cell(figures.add)].join(" | "));
  }
  console.log("a list of 100 items in the wire form: " + perList + " kB");
});
