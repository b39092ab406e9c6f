// The browser's replica of an account: Cardbox's own Swift (Sources/CardboxReplica) compiled to
// WebAssembly, which merges change sets by the rules every device uses. This file only moves text
// in and out of the module's memory. Loaded by the pages and by Tests/Wasm (Node).
(function (root) {
  "use strict";
  var encoder = new TextEncoder();
  var decoder = new TextDecoder();

  function Replica(instance) {
    this.wasm = instance.exports;
  }

  // What the module asks of its host: random bytes for its hash tables, and decimal numbers read
  // as JavaScript reads them (to the nearest double, as C's strtod).
  function imports(memory) {
    var jsonNumber = /^-?(0|[1-9][0-9]*)(\.[0-9]+)?([eE][+-]?[0-9]+)?$/;
    return {
      env: {
        fillRandom: function (pointer, count) {
          root.crypto.getRandomValues(new Uint8Array(memory().buffer, pointer, count));
        },
        parseNumber: function (pointer, length) {
          var text = decoder.decode(new Uint8Array(memory().buffer, pointer, length));
          return jsonNumber.test(text) ? Number(text) : NaN;
        },
      },
    };
  }

  // A replica from the module's bytes (an ArrayBuffer or typed array).
  Replica.load = function (bytes) {
    var instance = null;
    var memory = function () { return instance.exports.memory; };
    return WebAssembly.instantiate(bytes, imports(memory)).then(function (result) {
      instance = result.instance;
      return new Replica(instance);
    });
  };

  // Calls `name` with `text` in the module's memory (and any numbers after it); a refusal throws
  // its reason.
  Replica.prototype.call = function (name, text) {
    var wasm = this.wasm;
    var bytes = encoder.encode(text);
    var pointer = wasm.allocate(bytes.length);
    new Uint8Array(wasm.memory.buffer, pointer, bytes.length).set(bytes);
    var status = wasm[name].apply(null, [pointer, bytes.length].concat([].slice.call(arguments, 2)));
    wasm.release(pointer);
    if (status !== 0) throw new Error(this.output());
  };

  Replica.prototype.output = function () {
    var wasm = this.wasm;
    return decoder.decode(new Uint8Array(wasm.memory.buffer, wasm.outputPointer(), wasm.outputLength()));
  };

  // A seed for one write's position keys: random, unless the caller gives one (tests do).
  function seedOf(seed) {
    if (seed !== undefined) return BigInt.asUintN(64, BigInt(seed));
    var words = root.crypto.getRandomValues(new Uint32Array(2));
    return (BigInt(words[0]) << 32n) | BigInt(words[1]);
  }

  // Starts empty, as replica `replicaId`, for the entities of a schema (the server's
  // `SyncRegistry.replicaSchema`, as JSON text).
  Replica.prototype.configure = function (schemaText, replicaId) {
    this.call("configure", '{"replicaId":' + JSON.stringify(replicaId || "") + ',"schema":' + schemaText + "}");
  };

  // Merges a change set in its wire form (the JSON of `/v1/sync/pull`'s `changes`), received at
  // `now` (milliseconds since 1970; without it, merged without reading the clock).
  Replica.prototype.apply = function (changesText, now) { this.call("applyChanges", changesText, now || 0); };

  // Seed 002's list writes, each at `now` (milliseconds since 1970). A refusal throws its message.
  //   addItem({id, listId, title, description, quantity}), crossItem({id, crossedOut: true, false
  //   or null to toggle}), moveItem({id, to: index among the others, or null for the end})
  Replica.prototype.addItem = function (item, now, seed) {
    this.call("addItem", JSON.stringify(item), now, seedOf(seed));
  };
  Replica.prototype.crossItem = function (request, now) { this.call("crossItem", JSON.stringify(request), now); };
  //   editItem({id, and any of title, description, quantity (null takes it away)}), deleteItem({id}),
  //   createList({id, name})
  Replica.prototype.editItem = function (request, now) { this.call("editItem", JSON.stringify(request), now); };
  Replica.prototype.deleteItem = function (request, now) { this.call("deleteItem", JSON.stringify(request), now); };
  Replica.prototype.createList = function (request, now, seed) {
    this.call("createList", JSON.stringify(request), now, seedOf(seed));
  };
  //   showCrossedOut({show: true or false}): seed 002's setting, whether lists show crossed-out items
  Replica.prototype.showCrossedOut = function (request, now) { this.call("showCrossedOut", JSON.stringify(request), now); };
  Replica.prototype.moveItem = function (request, now, seed) {
    this.call("moveItem", JSON.stringify(request), now, seedOf(seed));
  };

  // Studying a deck, each at `now` (milliseconds since 1970). A refusal throws its message.
  //   answer({card, deck, rating: 1…4, durationMs or null, reviewId}), undo({deck})
  Replica.prototype.answer = function (request, now) { this.call("answerCard", JSON.stringify(request), now); };
  Replica.prototype.undo = function (request, now) { this.call("undoAnswer", JSON.stringify(request), now); };
  // A deck's study page at `now`, within the study day {deck, dayStart, dayEnd} (milliseconds):
  // {page: the study template's model, as the server's (`WebPageModels.study`), pictures: [image
  // hashes of the coming cards]}.
  Replica.prototype.study = function (request, now) {
    this.call("studyView", JSON.stringify(request), now);
    return JSON.parse(this.output());
  };

  // Seed 001's card writes, each at `now`. A refusal throws its message.
  //   addCards({deck, front, back, notes, tags (as typed), account (its id names the tags), ids:
  //   new cards' ids, more than enough}) answers the ids used (a cloze text makes a card per
  //   deletion); editCard({card, and any of front, back, notes, cardType, frontLanguage,
  //   backLanguage, isFavorite, tags (as typed), removeImage; account; ids for the cards a cloze
  //   text's new deletions make})
  Replica.prototype.addCards = function (request, now) {
    this.call("addCards", JSON.stringify(request), now);
    return JSON.parse(this.output());
  };
  Replica.prototype.editCard = function (request, now) { this.call("editCard", JSON.stringify(request), now); };
  //   moveCard({card, deck, move: "archive", "restore", "delete" or "favorite" (toggles)})
  Replica.prototype.moveCard = function (request, now) { this.call("moveCard", JSON.stringify(request), now); };

  // A deck's page at `now`, within the study day: {deck, query: [[name, value], …] (the page's
  // address's, decoded), dayStart, dayEnd}: the deck template's model, as the server's
  // (`WebPageModels.deck`).
  Replica.prototype.deckPage = function (request, now) {
    this.call("deckPage", JSON.stringify(request), now);
    return JSON.parse(this.output());
  };

  // A card's editor {deck, card}: the card template's model, as the server's (`WebPageModels.cardEditor`).
  Replica.prototype.cardPage = function (request) {
    this.call("cardPage", JSON.stringify(request));
    return JSON.parse(this.output());
  };

  // The account's settings as their records hold them: {key: value as text}.
  Replica.prototype.settings = function () {
    if (this.wasm.settingsView() !== 0) throw new Error(this.output());
    return JSON.parse(this.output());
  };

  // What waits to be sent: {text: the change set's wire form, through: the count to pass to
  // markSent once the server has it}. With `since` (a `writeCount()` read before a write), only
  // the records written after it: what that write adds to what the page keeps.
  Replica.prototype.pending = function (accountId, registry, since) {
    var request = JSON.stringify({ accountId: accountId, registry: registry, since: since || 0 });
    var bytes = encoder.encode(request);
    var wasm = this.wasm;
    var pointer = wasm.allocate(bytes.length);
    new Uint8Array(wasm.memory.buffer, pointer, bytes.length).set(bytes);
    var through = wasm.pendingChanges(pointer, bytes.length);
    wasm.release(pointer);
    if (through < 0) throw new Error(this.output());
    return { text: this.output(), through: through };
  };
  Replica.prototype.markSent = function (through) { this.wasm.markSent(through); };
  // How many records wait to be sent.
  Replica.prototype.pendingCount = function () { return this.wasm.pendingCount(); };
  // How many changes wait to be sent, as a person counts them (an answer is one).
  Replica.prototype.pendingOperations = function () { return this.wasm.pendingOperations(); };
  // Stops sending a record the server refused ({entity, id}); answers its label (name, title or
  // front, else its id). It waits again once written again.
  Replica.prototype.setAside = function (record) {
    this.call("setAside", JSON.stringify(record));
    return this.output();
  };
  // How many writes this replica has made.
  Replica.prototype.writeCount = function () { return this.wasm.writeCount(); };

  // Merges a page of /v1/sync/pull, its text as the server sent it, received at `now`; answers
  // {cursor, hasMore}.
  Replica.prototype.applyPage = function (pageText, now) {
    this.call("applyPullPage", pageText, now);
    return JSON.parse(this.output());
  };

  // Every record held, in the wire form: the snapshot a page keeps (with a journal of what each
  // save since changed, and `pending(…).text`).
  Replica.prototype.saved = function (accountId, registry) {
    this.call("savedRecords", JSON.stringify({ accountId: accountId, registry: registry }));
    return this.output();
  };

  // Merges what a page kept: the snapshot, or an entry of its journal (a change set, or a pull
  // page's text as it came).
  Replica.prototype.restore = function (keptText) { this.call("restoreChanges", keptText); };
  // Takes what waits to be sent from a kept `pending(…).text`, in place of what waited here.
  Replica.prototype.resumePending = function (pendingText) { this.call("resumePending", pendingText); };

  // The models the list pages are drawn from, as the server's (Swift's `WebPageModels`): the lists
  // page's, and a list's page's.
  Replica.prototype.listsPage = function () {
    if (this.wasm.listsPage() !== 0) throw new Error(this.output());
    return JSON.parse(this.output());
  };
  Replica.prototype.listPage = function (id) {
    this.call("listPage", id);
    return JSON.parse(this.output());
  };

  // The models the board pages are drawn from, as the server's: the boards page's, and a board's
  // ({id, archived: whether its archived cards show}).
  Replica.prototype.boardsPage = function () {
    if (this.wasm.boardsPage() !== 0) throw new Error(this.output());
    return JSON.parse(this.output());
  };
  Replica.prototype.boardPage = function (request) {
    this.call("boardPage", JSON.stringify(request));
    return JSON.parse(this.output());
  };
  //   moveBoardCard({id, column: a column of its board or null for its own, to: index there or
  //   null for the end}): seed 003's move, as a store makes it
  Replica.prototype.moveBoardCard = function (request, now, seed) {
    this.call("moveBoardCard", JSON.stringify(request), now, seedOf(seed));
  };

  // Every record a person sees, one JSON line each, as a device store's canonical dump.
  Replica.prototype.dump = function () {
    if (this.wasm.dumpRecords() !== 0) throw new Error(this.output());
    return this.output();
  };

  root.CardboxReplica = Replica;
})(typeof self !== "undefined" ? self : globalThis);
