// For one release: answers given offline on a page of the last release, which kept them in an
// outbox of its own (the IndexedDB database "cardbox") and sent them to
// /api/v1/decks/ID/answers. This sends what is still there, a deck and at most 1,000 answers at a
// time, and deletes the database once it is empty. Studying offline is device.js's now: the
// browser's replica keeps its answers as the sync's own change rows.
(function () {
  "use strict";
  if (!window.indexedDB || !window.fetch) return;
  var csrfField = document.querySelector("input[name=csrf]");
  if (!csrfField || !document.body.dataset.account) return;

  // The old database when there is one: opening a name that does not exist would make it.
  function openKept() {
    return new Promise(function (resolve) {
      var request = indexedDB.open("cardbox", 1);
      request.onupgradeneeded = function () { request.transaction.abort(); };
      request.onsuccess = function () {
        var db = request.result;
        if (!db.objectStoreNames.contains("outbox")) {
          db.close();
          resolve(null);
        } else {
          resolve(db);
        }
      };
      request.onerror = function () { resolve(null); };
    });
  }

  function waiting(db) {
    return new Promise(function (resolve, reject) {
      var found = [];
      var tx = db.transaction(["outbox"], "readonly");
      tx.objectStore("outbox").openCursor().onsuccess = function (event) {
        var cursor = event.target.result;
        if (!cursor) return;
        found.push({ key: cursor.key, answer: cursor.value });
        cursor.continue();
      };
      tx.oncomplete = function () { resolve(found); };
      tx.onerror = tx.onabort = function () { reject(tx.error); };
    });
  }

  function forget(db, entries) {
    return new Promise(function (resolve, reject) {
      var tx = db.transaction(["outbox"], "readwrite");
      entries.forEach(function (entry) { tx.objectStore("outbox").delete(entry.key); });
      tx.oncomplete = function () { resolve(); };
      tx.onerror = tx.onabort = function () { reject(tx.error); };
    });
  }

  // An answer applied, or refused by name, or for a deck that is gone, leaves the outbox.
  function sendBatch(db, batch) {
    var answers = batch.map(function (entry) {
      var a = entry.answer;
      return { id: a.id, card: a.card, rating: a.rating, answeredAt: a.answeredAt, durationMs: a.durationMs };
    });
    return fetch("/api/v1/decks/" + batch[0].answer.deck + "/answers", {
      method: "POST", credentials: "same-origin",
      headers: { "Content-Type": "application/json", "X-CSRF-Token": csrfField.value },
      body: JSON.stringify({ answers: answers }),
    }).then(function (response) {
      if (response.ok || response.status === 404) return forget(db, batch);
      if (response.status !== 400) return;
      return response.text().then(function (text) {
        var named = /answers\[(\d+)\]/.exec(text);
        if (named && batch[Number(named[1])]) return forget(db, [batch[Number(named[1])]]);
      });
    });
  }

  openKept().then(function (db) {
    if (!db) return;
    return waiting(db).then(function (entries) {
      var batches = [];
      var byDeck = {};
      entries.forEach(function (entry) {
        var batch = byDeck[entry.answer.deck];
        if (!batch || batch.length === 1000) {
          batch = byDeck[entry.answer.deck] = [];
          batches.push(batch);
        }
        batch.push(entry);
      });
      return batches.reduce(function (previous, batch) {
        return previous.then(function () { return sendBatch(db, batch); });
      }, Promise.resolve());
    }).then(function () { return waiting(db); }).then(function (left) {
      db.close();
      if (left.length === 0) indexedDB.deleteDatabase("cardbox");
    });
  }).catch(function () { });
})();
