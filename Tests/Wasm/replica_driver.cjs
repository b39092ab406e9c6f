// Runs the browser's replica (replica.js over the WebAssembly module) for the convergence harness:
// reads one JSON request per line from stdin and answers one JSON line on stdout.
//   {"schema": TEXT}                configure; answers {"ok": true}
//   {"changes": [TEXT, …]}          start empty, apply each change set in order, answer {"dump": TEXT}
//   {"replicaId", "accountId", "receivedAt", "changes": [TEXT, …], "writes": [{"kind": a method of
//    replica.js ("addItem", "moveItem", "answer", "undo", "study", …), "request", "now", "seed"}, …]}
//                                   start empty as that replica, receive each change set at
//                                   receivedAt, make each write; answer {"dump", "refusals":
//                                   [null or message, …], "results": [what each returned, or null],
//                                   "pending": TEXT}
//   {"pages": PATH, "render": NAME, "model": OBJECT}
//                                   the web app's pages script (mustache.js and the templates the
//                                   browser draws offline) at PATH draws template NAME from MODEL;
//                                   answers {"html": TEXT}
// A refusal answers {"error": REASON}.
//   node replica_driver.cjs replica.js replica.wasm
"use strict";
const fs = require("fs");
const readline = require("readline");
const [script, modulePath] = process.argv.slice(2);
require(script);

globalThis.CardboxReplica.load(fs.readFileSync(modulePath)).then((replica) => {
  let schema = null;
  const lines = readline.createInterface({ input: process.stdin });
  lines.on("line", (line) => {
    let answer;
    try {
      const request = JSON.parse(line);
      if (request.render !== undefined) {
        if (!globalThis.Mustache) {
          globalThis.self = globalThis;
          require("vm").runInThisContext(fs.readFileSync(request.pages, "utf8"));
        }
        answer = { html: globalThis.Mustache.render(globalThis.cardboxTemplates[request.render], request.model,
          globalThis.cardboxTemplates) };
      } else if (request.schema !== undefined) {
        schema = request.schema;
        replica.configure(schema);
        answer = { ok: true };
      } else if (request.writes !== undefined) {
        replica.configure(schema, request.replicaId);
        for (const changes of request.changes) replica.apply(changes, request.receivedAt);
        const results = [];
        const refusals = request.writes.map((write) => {
          try {
            const result = replica[write.kind](write.request, write.now, write.seed);
            results.push(result === undefined ? null : result);
            return null;
          } catch (error) {
            results.push(null);
            return String(error.message || error);
          }
        });
        answer = { dump: replica.dump(), refusals, results, pending: replica.pending(request.accountId, 1).text };
      } else {
        replica.configure(schema);
        for (const changes of request.changes) replica.apply(changes);
        answer = { dump: replica.dump() };
      }
    } catch (error) {
      answer = { error: String(error.message || error) };
    }
    process.stdout.write(JSON.stringify(answer) + "\n");
  });
});
