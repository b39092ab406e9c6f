// The FSRS step in the browser: Cardbox's own Swift scheduler (Sources/CardboxFSRS), compiled to
// WebAssembly. The same code a device runs, so an answer given offline is scheduled as a device
// would schedule it. Times are seconds since 1970. Loaded by the pages and by Tests/Wasm (Node).
(function (root) {
  "use strict";
  var phases = ["learning", "review", "relearning"];

  function Scheduler(instance) {
    this.wasm = instance.exports;
  }

  // A scheduler from the module's bytes (an ArrayBuffer or typed array).
  Scheduler.load = function (bytes) {
    return WebAssembly.instantiate(bytes, {}).then(function (result) {
      return new Scheduler(result.instance);
    });
  };

  // A deck's study settings: FSRS's 21 weights, the desired retention, the longest interval in
  // days, and the learning and relearning steps in seconds.
  Scheduler.prototype.configure = function (settings) {
    var wasm = this.wasm;
    if (settings.weights.length !== 21) throw new Error("FSRS-6 takes 21 weights");
    settings.weights.forEach(function (value, index) { wasm.setWeight(index, value); });
    // The module counts days in 32 bits: a longer interval than that (5.8 million years) is that.
    wasm.setRetention(settings.desiredRetention, Math.min(settings.maximumInterval, 2147483647));
    [settings.learningSteps, settings.relearningSteps].forEach(function (steps, kind) {
      if (steps.length > wasm.maximumSteps()) throw new Error("too many steps for offline study");
      steps.forEach(function (seconds, index) { wasm.setStep(kind, index, seconds); });
      wasm.setStepCount(kind, steps.length);
    });
  };

  // A card never reviewed, due at `now`.
  Scheduler.newCard = function (now) {
    return { phase: "learning", step: 0, stability: null, difficulty: null, due: now, lastReview: null };
  };

  // The card after `rating` (1 Again … 4 Easy) at `now`. With `fuzz`, a day interval is drawn from
  // the card's id (a UUID) and its review count `reps`, as a device draws it.
  Scheduler.prototype.review = function (card, rating, now, fuzz, id, reps) {
    var hex = (id || "").replace(/-/g, "");
    var high = hex.length === 32 ? BigInt("0x" + hex.slice(0, 16)) : 0n;
    var low = hex.length === 32 ? BigInt("0x" + hex.slice(16)) : 0n;
    var orNaN = function (value) { return value === null || value === undefined ? NaN : value; };
    var wasm = this.wasm;
    var due = wasm.review(
      phases.indexOf(card.phase), card.step === null || card.step === undefined ? -1 : card.step,
      orNaN(card.stability), orNaN(card.difficulty), card.due, orNaN(card.lastReview), rating, now,
      fuzz ? 1 : 0, BigInt.asIntN(64, high), BigInt.asIntN(64, low), BigInt(reps || 0));
    var step = wasm.resultStep();
    var stability = wasm.resultStability();
    var difficulty = wasm.resultDifficulty();
    return {
      phase: phases[wasm.resultPhase()], step: step < 0 ? null : step,
      stability: isNaN(stability) ? null : stability, difficulty: isNaN(difficulty) ? null : difficulty,
      due: due, lastReview: now,
    };
  };

  root.CardboxScheduler = Scheduler;
})(typeof self !== "undefined" ? self : globalThis);
