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

  // Calls `name` with `text` in the module's memory; a refusal throws its reason.
  Replica.prototype.call = function (name, text) {
    var wasm = this.wasm;
    var bytes = encoder.encode(text);
    var pointer = wasm.allocate(bytes.length);
    new Uint8Array(wasm.memory.buffer, pointer, bytes.length).set(bytes);
    var status = wasm[name](pointer, bytes.length);
    wasm.release(pointer);
    if (status !== 0) throw new Error(this.output());
  };

  Replica.prototype.output = function () {
    var wasm = this.wasm;
    return decoder.decode(new Uint8Array(wasm.memory.buffer, wasm.outputPointer(), wasm.outputLength()));
  };

  // Starts empty, for the entities of a schema (the server's `SyncRegistry.replicaSchema`, as JSON).
  Replica.prototype.configure = function (schemaText) { this.call("configure", schemaText); };

  // Merges a change set in its wire form (the JSON of `/v1/sync/pull`'s `changes`).
  Replica.prototype.apply = function (changesText) { this.call("applyChanges", changesText); };

  // Every record a person sees, one JSON line each, as a device store's canonical dump.
  Replica.prototype.dump = function () {
    if (this.wasm.dumpRecords() !== 0) throw new Error(this.output());
    return this.output();
  };

  root.CardboxReplica = Replica;
})(typeof self !== "undefined" ? self : globalThis);
