// Runs review cases through the browser's scheduler (scheduler.js over the WebAssembly module) and
// prints each next state, its numbers as the bits of their doubles, for FSRSWasmTests to compare
// with the native scheduler's.
//   node run_cases.cjs scheduler.js fsrs.wasm cases.json
"use strict";
const fs = require("fs");
const [script, modulePath, casesFile] = process.argv.slice(2);
require(script);
const Scheduler = globalThis.CardboxScheduler;

function bits(value) {
  if (value === null) return null;
  const view = new DataView(new ArrayBuffer(8));
  view.setFloat64(0, value);
  return view.getBigUint64(0).toString(16).padStart(16, "0");
}

Scheduler.load(fs.readFileSync(modulePath)).then((scheduler) => {
  const results = JSON.parse(fs.readFileSync(casesFile, "utf8")).map((history) => {
    scheduler.configure(history.settings);
    const cards = {};
    return history.reviews.map((review) => {
      const card = cards[review.card] || Scheduler.newCard(review.now);
      const next = scheduler.review(card, review.rating, review.now, review.fuzz, review.card, review.reps);
      cards[review.card] = next;
      return {
        phase: next.phase, step: next.step, stability: bits(next.stability),
        difficulty: bits(next.difficulty), due: bits(next.due),
      };
    });
  });
  process.stdout.write(JSON.stringify(results));
});
