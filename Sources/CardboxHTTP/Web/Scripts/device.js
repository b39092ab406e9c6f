// The browser as a device of its account. On every signed-in page it keeps the account's records in
// a replica (replica.js: Cardbox's own merge and list rules in WebAssembly) saved in IndexedDB, one
// database per account, and syncs it through the sync API as any device does: what it wrote goes
// to /v1/sync/push under a batch id kept until the server has it (a resend is a retry, not a second
// write), then /v1/sync/pull brings what the others wrote. With no network the service worker
// answers a list page with /offline/lists and a deck's page, a card's editor or a deck's study page
// with /offline, which this script draws from the replica with the server's templates: lists are
// kept, cards added (tagged too) and edited, and decks studied by
// the same rules as on any device, in the replica's Swift. What is done there is sent the next
// time a page of the account opens with the network.
// `self.cardboxReplicaSetup` (the schema, the registry's version and the module's address) is set
// by the server in front of this script.
(function () {
  "use strict";
  var setup = self.cardboxReplicaSetup;
  if (!window.indexedDB || !window.WebAssembly || !window.CardboxReplica || !window.fetch) return;
  var body = document.body;
  var shell = document.getElementById("replica-shell");
  var accountKey = "cardbox.account";
  var signedIn = body.dataset.account;
  if (signedIn) localStorage.setItem(accountKey, signedIn);
  // The offline page is the same for everyone: it shows the account this browser last signed in to.
  var account = signedIn || (shell ? localStorage.getItem(accountKey) : null);
  var studyPath = /^\/decks\/([0-9a-f-]{36})\/study$/;
  var studying = studyPath.exec(location.pathname);
  var deckPage = /^\/decks\/([0-9a-f-]{36})$/.exec(location.pathname);
  var cardEditor = /^\/decks\/([0-9a-f-]{36})\/cards\/([0-9a-f-]{36})$/.exec(location.pathname);
  if (!account) {
    if (shell) {
      shell.innerHTML = "<h1>No network</h1><p>Open Cardbox once with the network to keep your decks and lists "
        + "on this device.</p>";
    }
    return;
  }

  // MARK: What is kept (IndexedDB), one database per account
  //
  // "state", key "replica": {version, replicaId, cursor, pending (the wire form of what waits),
  //   waiting (how many records), sending ({batch, text} or null), refusal, setAside ([{entity, id,
  //   label, reason}]), snapshotVersion, journalLength, pictured ({deck: marker})}: small, read by
  //   every page.
  // "snapshot", key "replica": every record as of `snapshotVersion` (the wire form).
  // "journal", key version: what the save of that version changed: a pull page as it came, or the
  //   records one write made here. Merging is idempotent, so the snapshot and the journal give the
  //   records back; a save writes its own entry only (writing every record at each answer took a
  //   110,000-record account 2 s). After `journalLimit` entries the snapshot is written again and
  //   the journal starts over. (The browser test sets `cardboxJournalLimit` lower, so that its pages
  //   write snapshots as they work.)
  var journalLimit = self.cardboxJournalLimit || 500;

  var opened = null;
  function database() {
    if (opened) return opened;
    opened = new Promise(function (resolve, reject) {
      var request = indexedDB.open("cardbox-replica-" + account, 2);
      request.onupgradeneeded = function (event) {
        var db = request.result;
        ["state", "snapshot", "journal"].forEach(function (name) {
          if (!db.objectStoreNames.contains(name)) db.createObjectStore(name);
        });
        if (event.oldVersion < 1) return;
        // The last release kept every record in the state: they become the snapshot.
        var states = request.transaction.objectStore("state");
        states.get("replica").onsuccess = function (read) {
          var state = read.target.result;
          if (!state || state.saved === undefined) return;
          if (state.saved) request.transaction.objectStore("snapshot").put(state.saved, "replica");
          state.snapshotVersion = state.version;
          state.journalLength = 0;
          delete state.saved;
          states.put(state, "replica");
        };
      };
      request.onsuccess = function () {
        request.result.onversionchange = function () { request.result.close(); opened = null; };
        resolve(request.result);
      };
      request.onerror = function () { opened = null; reject(request.error); };
    });
    return opened;
  }

  // Runs `work(transaction)` on `stores`; answers what `work` answered once the transaction is done.
  function transact(stores, mode, work) {
    return database().then(function (db) {
      return new Promise(function (resolve, reject) {
        var tx = db.transaction(stores, mode);
        var result = work(tx);
        tx.oncomplete = function () { resolve(typeof result === "function" ? result() : result); };
        tx.onerror = tx.onabort = function () { reject(tx.error); };
      });
    });
  }

  function readState() {
    return transact(["state"], "readonly", function (tx) {
      var request = tx.objectStore("state").get("replica");
      return function () { return request.result || null; };
    });
  }

  // The snapshot (when `withSnapshot`) and the journal's entries after version `after`, in order.
  function readKept(withSnapshot, after) {
    return transact(["snapshot", "journal"], "readonly", function (tx) {
      var snapshot = withSnapshot ? tx.objectStore("snapshot").get("replica") : null;
      var entries = tx.objectStore("journal").getAll(IDBKeyRange.lowerBound(after, true));
      return function () { return { snapshot: snapshot && snapshot.result, entries: entries.result }; };
    });
  }

  // Keeps `state`, with the journal `entry` of its version or, when given, a new snapshot.
  function writeKept(state, entry, snapshot) {
    return transact(["state", "snapshot", "journal"], "readwrite", function (tx) {
      if (snapshot !== undefined) {
        tx.objectStore("snapshot").put(snapshot, "replica");
        tx.objectStore("journal").clear();
      } else if (entry) {
        tx.objectStore("journal").put(entry, state.version);
      }
      tx.objectStore("state").put(state, "replica");
    });
  }

  // A time-ordered id (UUID version 7, as devices make them: the millisecond, then random bits),
  // so the records made here sort by id after older ones, as a device's do.
  function uuid() {
    var bytes = crypto.getRandomValues(new Uint8Array(16));
    var now = Date.now();
    for (var index = 5; index >= 0; index--) {
      bytes[index] = now % 256;
      now = Math.floor(now / 256);
    }
    bytes[6] = (bytes[6] & 0x0f) | 0x70;
    bytes[8] = (bytes[8] & 0x3f) | 0x80;
    var hex = Array.prototype.map.call(bytes, function (b) { return (b + 0x100).toString(16).slice(1); }).join("");
    return [hex.slice(0, 8), hex.slice(8, 12), hex.slice(12, 16), hex.slice(16, 20), hex.slice(20)].join("-");
  }

  // MARK: The replica, one at a time across tabs

  var loaded = null;   // {replica, version}: the replica this page holds, as of the kept version
  var module = null;

  function newReplica(replicaId) {
    module = module || fetch(setup.module).then(function (response) {
      if (!response.ok) throw new Error("the replica's module did not load");
      return response.arrayBuffer();
    });
    return module.then(function (bytes) { return CardboxReplica.load(bytes); }).then(function (replica) {
      replica.configure(JSON.stringify(setup.schema), replicaId);
      return replica;
    });
  }

  // The replica as kept at `state.version`: the one this page holds, brought up to date with what
  // other tabs saved since (the journal's newer entries), or read whole.
  function current(state) {
    if (loaded && loaded.version === state.version) return Promise.resolve(loaded.replica);
    var caughtUp = loaded && loaded.version < state.version && loaded.version >= (state.snapshotVersion || 0);
    var ready = caughtUp ? Promise.resolve(loaded.replica) : newReplica(state.replicaId);
    var kept = readKept(!caughtUp, caughtUp ? loaded.version : 0);
    loaded = null;
    return Promise.all([ready, kept]).then(function (both) {
      var replica = both[0], kept = both[1];
      if (kept.snapshot) replica.restore(kept.snapshot);
      kept.entries.forEach(function (entry) { replica.restore(entry); });
      if (state.pending) replica.resumePending(state.pending);
      loaded = { replica: replica, version: state.version };
      return replica;
    });
  }

  // Runs `work(replica, state, save)` holding the account's lock (Web Locks), so two tabs never
  // write the kept state over each other. `save(entry)` keeps the state with the journal entry of
  // what changed (a pull page's text, or `written(replica, before)`), if anything did.
  function withReplica(work) {
    var run = function () {
      return readState().then(function (state) {
        state = state || { version: 0, replicaId: "web-" + uuid(), cursor: 0, pending: null, waiting: 0,
          sending: null, snapshotVersion: 0, journalLength: 0 };
        return current(state).then(function (replica) {
          var save = function (entry) {
            state.pending = replica.pending(account, setup.registry).text;
            state.waiting = replica.pendingCount();
            state.version += 1;
            var snapshot;
            if (entry) state.journalLength += 1;
            if (state.journalLength > journalLimit) {
              snapshot = replica.saved(account, setup.registry);
              state.snapshotVersion = state.version;
              state.journalLength = 0;
            }
            return writeKept(state, entry, snapshot).then(function () { loaded = { replica: replica, version: state.version }; });
          };
          return Promise.resolve().then(function () { return work(replica, state, save); }).catch(function (error) {
            // What it did halfway is read again from what was kept; a refused write did nothing.
            if (!error.refusedWrite) loaded = null;
            throw error;
          });
        });
      });
    };
    return underLock(run);
  }

  // Runs `work` holding the account's lock (Web Locks), where the browser has them.
  function underLock(work) {
    return navigator.locks ? navigator.locks.request("cardbox-replica-" + account, work) : work();
  }

  // What the writes made after write number `before` wrote, for the journal (null: nothing).
  function written(replica, before) {
    return replica.writeCount() === before ? null : replica.pending(account, setup.registry, before).text;
  }

  // MARK: Sync

  function csrf() { return body.dataset.csrf || ""; }

  function refusal(response) {
    return response.text().then(function (text) {
      var message = text;
      try { message = JSON.parse(text).error || text; } catch (ignored) { }
      var error = new Error(message);
      error.status = response.status;
      throw error;
    });
  }

  function push(sending) {
    return fetch("/v1/sync/push?batch=" + sending.batch, {
      method: "POST", credentials: "same-origin",
      headers: { "Content-Type": "application/json", "X-CSRF-Token": csrf() }, body: sending.text,
    }).then(function (response) { if (!response.ok) return refusal(response); });
  }

  // A push the server refused for what it holds (not for the network, the session or the rate):
  // sending it again would be refused again, and it must not hold back what others wrote.
  function refusedForWhatItHolds(error) {
    return error.status >= 400 && error.status < 500 && [401, 403, 408, 429].indexOf(error.status) < 0;
  }

  // The record a refusal names (`changes.rows[3].fields.title: …`) in the change set sent: its
  // entity and id (strings, so JSON.parse reads them right even where it would round a clock).
  function refusedRecord(error, text) {
    var match = /^changes\.(rows|tombstones)\[(\d+)\]/.exec(error.message || "");
    var list = match ? JSON.parse(text)[match[1]] : null;
    var record = list && list[Number(match[2])];
    return record ? { entity: record.entity, id: record.id } : null;
  }

  // The records set aside that a batch the server took did not carry (written again, they went).
  function stillSetAside(setAside, text) {
    if (!setAside || setAside.length === 0) return [];
    var changes = JSON.parse(text);
    var sent = changes.rows.concat(changes.tombstones).map(function (record) { return record.entity + " " + record.id; });
    return setAside.filter(function (record) { return sent.indexOf(record.entity + " " + record.id) < 0; });
  }

  // Sends what waits (first a batch sent before whose answer never came, under its own id), then
  // pulls every page after the kept cursor (`exchange`). Answers how many records it sent. When
  // the server refuses a batch and names the record (`changes.rows[N]`), that record is set aside
  // (kept as written here, unsent, shown with the reason: `state.setAside`) and the rest is sent
  // again; a refusal naming none keeps the batch waiting, its reason in `state.refusal`. Either
  // way the pull goes on.
  function sync() {
    return readState().then(function (kept) {
      // Nothing waits here and nothing came since: the page need not read the replica at all (a
      // page load would otherwise restore and save every record, 1.4 s and 0.4 s at 30,000).
      if (!kept || kept.version === 0 || kept.sending || kept.waiting !== 0) {
        body.dataset.replicaSync = "exchanged";
        return exchange();
      }
      return fetch("/v1/sync/pull?limit=1&after=" + kept.cursor, { credentials: "same-origin" }).then(function (response) {
        if (!response.ok) return refusal(response);
        return response.json().then(function (page) {
          var nothing = !page.hasMore && page.changes.rows.length === 0 && page.changes.tombstones.length === 0;
          body.dataset.replicaSync = nothing ? "unchanged" : "exchanged";
          return nothing ? 0 : exchange();
        });
      });
    });
  }

  function exchange() {
    return withReplica(function (replica, state, save) {
      var sent = 0;
      // Pushes `state.sending`: "sent", "setAside" (a record named and set aside: send the rest
      // again) or "refused"; the network's and the session's failures throw.
      var pushed = function () {
        var text = state.sending.text;
        return push(state.sending).then(function () {
          state.sending = null;
          state.refusal = null;
          state.setAside = stillSetAside(state.setAside, text);
          return "sent";
        }, function (error) {
          if (!refusedForWhatItHolds(error)) throw error;
          state.sending = null;
          var record = refusedRecord(error, text);
          if (!record) {
            state.refusal = error.message;
            return "refused";
          }
          record.label = replica.setAside(record);
          record.reason = error.message;
          state.setAside = (state.setAside || []).filter(function (kept) {
            return kept.entity !== record.entity || kept.id !== record.id;
          }).concat([record]);
          return "setAside";
        });
      };
      var send = function () {
        if (replica.pendingCount() === 0) return;
        var pending = replica.pending(account, setup.registry);
        var count = replica.pendingCount();
        state.sending = { batch: uuid(), text: pending.text };
        return save().then(pushed).then(function (outcome) {
          if (outcome === "sent") {
            replica.markSent(pending.through);
            sent += count;
          }
          return save().then(function () { if (outcome === "setAside") return send(); });
        });
      };
      var resend = state.sending ? pushed().then(function (outcome) {
        return save().then(function () { return outcome; });
      }) : Promise.resolve("sent");
      return resend.then(function (outcome) {
        if (outcome !== "refused") return send();
      }).then(function pull() {
        return fetch("/v1/sync/pull?after=" + state.cursor, { credentials: "same-origin" }).then(function (response) {
          if (!response.ok) return refusal(response);
          return response.text().then(function (text) {
            var page = replica.applyPage(text, Date.now());
            var brought = page.cursor !== state.cursor;
            state.cursor = page.cursor;
            return save(brought ? text : null).then(function () { if (page.hasMore) return pull(); });
          });
        });
      }).then(function () { return sent; });
    });
  }

  // A write made here (`write(replica)`), kept at once, sent when the network allows.
  function write(change) {
    return withReplica(function (replica, state, save) {
      var before = replica.writeCount();
      try {
        change(replica);
      } catch (error) {
        // The replica refuses a write before it writes anything.
        error.refusedWrite = replica.writeCount() === before;
        throw error;
      }
      return save(written(replica, before));
    }).then(function () { return sync().catch(function () { }); });
  }

  // MARK: Pages drawn from the replica, as the server draws them

  // An element whose `text` is text, never read as HTML, with its attributes: what a page says
  // beside the templates' output is built so, and needs no escaping of its own.
  function element(tag, text, attributes) {
    var made = document.createElement(tag);
    if (text !== undefined) made.textContent = text;
    Object.keys(attributes || {}).forEach(function (name) { made.setAttribute(name, attributes[name]); });
    return made;
  }

  function count(n, word) { return n + " " + word + (n === 1 ? "" : "s"); }

  // mustache.js and the server's templates of the pages drawn offline (`setup.pages`), loaded once.
  var templatesLoaded = null;
  function templates() {
    templatesLoaded = templatesLoaded || new Promise(function (resolve, reject) {
      if (self.Mustache && self.cardboxTemplates) return resolve();
      var script = document.createElement("script");
      script.src = setup.pages;
      script.onload = function () { resolve(); };
      script.onerror = function () { templatesLoaded = null; reject(new Error("the pages' templates did not load")); };
      document.head.appendChild(script);
    });
    return templatesLoaded;
  }

  // `model` (made by the replica's Swift, as the server makes it) drawn with the server's template
  // `name` (the pages script escapes `{{…}}` as the server does).
  function render(name, model) { return Mustache.render(self.cardboxTemplates[name], model, self.cardboxTemplates); }

  // The quiet status line of an offline page: how many changes wait for the network.
  function offlineNote(replica) {
    var waiting = replica.pendingOperations();
    return "<p class=\"muted\" id=\"offline-note\" role=\"status\">Offline: "
      + (waiting ? count(waiting, "change") + " wait" + (waiting === 1 ? "s" : "") : "nothing waits to be sent") + "</p>";
  }

  // Draws an offline page from the replica: `draw(replica)` answers its HTML, `drawn()` runs once
  // it is in place. The reason the server refused changes made here shows above it; a failure
  // shows its own reason under `title`.
  function drawShell(draw, title, drawn) {
    return templates().then(function () {
      return withReplica(function (replica, state) {
        shell.innerHTML = offlineNote(replica) + draw(replica);
        if (state.refusal) {
          shell.prepend(element("p", "The server refused changes made here: " + state.refusal,
            { "class": "error", role: "alert", id: "sync-refusal" }));
        }
        showSetAside(state);
        if (drawn) drawn();
      });
    }).then(function () { body.dataset.replicaReady = "true"; }, function (error) {
      shell.replaceChildren(element("h1", title), element("p", error.message, { "class": "error", role: "alert" }));
      body.dataset.replicaReady = "failed";
    });
  }

  // The records the server refused and this browser set aside, each with the reason, above the
  // page: they stay as written here and are sent again once written again.
  function showSetAside(state) {
    var shown = document.getElementById("set-aside");
    if (shown) shown.remove();
    if (!state || !state.setAside || state.setAside.length === 0) return;
    var place = shell || document.querySelector("main") || body;
    var box = element("div", undefined, { "class": "error", role: "alert", id: "set-aside" });
    var list = element("ul");
    state.setAside.forEach(function (record) {
      list.append(element("li", record.entity + " “" + record.label + "”: " + record.reason));
    });
    box.append(element("p", "The server refused " + count(state.setAside.length, "change") + " made on this device; "
      + (state.setAside.length === 1 ? "it is" : "they are") + " kept here, not sent:"), list);
    place.prepend(box);
  }

  // A write the replica refused (or one that needs the network), said by name above the page.
  function showRefusal(error) {
    var note = document.getElementById("refusal");
    if (!note) {
      document.getElementById("offline-note").insertAdjacentHTML("afterend",
        "<p class=\"error\" role=\"alert\" id=\"refusal\"></p>");
      note = document.getElementById("refusal");
    }
    note.textContent = error.message;
    note.hidden = false;
  }

  // MARK: What the server's forms do with no network

  // A quantity as typed: none, a whole number, or text the replica refuses by name.
  function typedQuantity(text) {
    text = (text || "").trim();
    return text === "" ? null : /^-?[0-9]+$/.test(text) ? Number(text) : text;
  }

  var id = "([0-9a-f-]{36})";
  var item = "^/lists/" + id + "/items/" + id;
  // Each form (and drop) of a page drawn here, by the address it posts to on the server: the
  // replica's write it makes, `write(match, fields)` answering a promise. A form not here needs
  // the network.
  var offlineForms = [
    [new RegExp("^/lists$"), function (match, fields) {
      var list = uuid();
      return write(function (replica) { replica.createList({ id: list, name: fields.name }, Date.now()); })
        .then(function () { location.assign("/lists/" + list); });
    }],
    [new RegExp("^/lists/" + id + "/items$"), function (match, fields) {
      return write(function (replica) {
        replica.addItem({ id: uuid(), listId: match[1], title: fields.title, description: fields.description || "",
          quantity: typedQuantity(fields.quantity) }, Date.now());
      }).then(redraw).then(function () {
        var field = document.getElementById("title");
        if (field) field.focus();
      });
    }],
    [new RegExp(item + "$"), function (match, fields) {
      return write(function (replica) {
        replica.editItem({ id: match[2], title: fields.title, description: fields.description,
          quantity: typedQuantity(fields.quantity) }, Date.now());
      }).then(redraw);
    }],
    [new RegExp(item + "/cross$"), function (match) {
      return write(function (replica) { replica.crossItem({ id: match[2], crossedOut: null }, Date.now()); }).then(redraw);
    }],
    [new RegExp(item + "/move$"), function (match, fields) {
      if (fields.list !== undefined || fields.position === undefined) return needsNetwork();
      return write(function (replica) { replica.moveItem({ id: match[2], to: Number(fields.position) }, Date.now()); })
        .then(redraw);
    }],
    [new RegExp(item + "/delete$"), function (match) {
      return write(function (replica) { replica.deleteItem({ id: match[2] }, Date.now()); }).then(redraw);
    }],
    [new RegExp("^/lists/" + id + "/crossed-out$"), function (match, fields) {
      return write(function (replica) { replica.showCrossedOut({ show: fields.show === "true" }, Date.now()); })
        .then(redraw);
    }],
    [new RegExp("^/boards/" + id + "/cards/" + id + "/move$"), function (match, fields) {
      return write(function (replica) {
        replica.moveBoardCard({ id: match[2], column: fields.column || null,
          to: fields.position === undefined ? null : Number(fields.position) }, Date.now());
      }).then(redraw);
    }],
    [new RegExp("^/decks/" + id + "/cards$"), function (match, fields) {
      return write(function (replica) {
        replica.addCards({ deck: match[1], front: fields.front, back: fields.back || "", notes: "",
          tags: fields.tags || "", account: account, ids: newIds(fields.front || "") }, Date.now());
      }).then(function () {
        // As the server's answer does: the deck again, the cursor back in Front.
        history.replaceState(null, "", "/decks/" + match[1] + "?added");
        return redraw();
      });
    }],
    [new RegExp("^/decks/" + id + "/cards/" + id + "/(archive|restore|delete|favorite)$"), function (match, fields) {
      return write(function (replica) {
        replica.moveCard({ card: match[2], deck: match[1], move: match[3] }, Date.now());
      }).then(function () {
        // As the server's answer does: back to the tab the form came from.
        var tab = fields.tab && fields.tab !== "current" ? "?tab=" + encodeURIComponent(fields.tab) : "";
        history.replaceState(null, "", "/decks/" + match[1] + tab);
        return redraw();
      });
    }],
    [new RegExp("^/decks/" + id + "/cards/" + id + "$"), function (match, fields) {
      // The editor's form, as the server reads it: a checkbox left clear is false.
      if (fields.image && fields.image.size > 0) return Promise.reject(new Error("A picture needs the network."));
      return write(function (replica) {
        replica.editCard({ card: match[2], front: fields.front, back: fields.back || "", notes: fields.notes || "",
          cardType: fields.cardType, frontLanguage: fields.frontLanguage, backLanguage: fields.backLanguage,
          isFavorite: fields.isFavorite === "true", tags: fields.tags || "", removeImage: fields.removeImage === "true",
          account: account, ids: newIds(fields.front || "") }, Date.now());
      }).then(function () { location.assign("/decks/" + match[1]); });
    }],
    [new RegExp("^/decks/" + id + "/study$"), function (match, fields) {
      // Only the queue's first card is answered: when another tab answered this one meanwhile,
      // the replica refuses and the page moves on.
      var duration = Math.min(Math.max(0, Date.now() - shownAt), 86400000);
      return write(function (replica) {
        var now = Date.now();
        replica.answer(Object.assign(studyRequest(replica, match[1], now), { card: fields.card,
          rating: Number(fields.rating), durationMs: duration, reviewId: uuid() }), now);
      }).catch(function () { }).then(redraw);
    }],
    [new RegExp("^/decks/" + id + "/study/undo$"), function (match) {
      return write(function (replica) { replica.undo({ deck: match[1] }, Date.now()); }).catch(function () { }).then(redraw);
    }],
  ];

  function needsNetwork() { return Promise.reject(new Error("This needs the network.")); }

  var redraw = function () { };   // draws the page shown again
  var shownAt = Date.now();       // when the page was last drawn: how long an answer took
  var busy = false;               // one form at a time: a double tap does not answer twice

  // Does what a form posting `fields` to `action` does on the server, in the replica.
  function perform(action, fields) {
    if (busy) return Promise.resolve();
    busy = true;
    var done = function () { busy = false; };
    for (var index = 0; index < offlineForms.length; index++) {
      var match = offlineForms[index][0].exec(action);
      if (match) {
        return offlineForms[index][1](match, fields).then(done, function (error) {
          done();
          throw error;
        });
      }
    }
    done();
    return needsNetwork();
  }

  // An offline page drawn with the server's template: `draw(replica)` answers its HTML. Its forms
  // (and the rows dropped by app.js, through `cardboxPost`) do what they do on the server.
  function showPage(draw, title) {
    redraw = function () {
      return drawShell(draw, title, function () {
        shownAt = Date.now();
        // The page's script runs: its buttons that need one show (as app.js shows them online).
        shell.querySelectorAll("[data-cloze-for]").forEach(function (button) { button.hidden = false; });
        // A field the page puts the cursor in (after adding a card or an item), as a page load does.
        var focused = shell.querySelector("[autofocus]");
        if (focused) focused.focus();
        // How many times the page was drawn: a test waits for the next one.
        body.dataset.pageDrawn = String(Number(body.dataset.pageDrawn || 0) + 1);
      });
    };
    shell.addEventListener("submit", function (event) {
      event.preventDefault();
      if ((event.target.getAttribute("method") || "get").toLowerCase() === "get") {
        // A filter: the page at its address (drawn offline again, from its query).
        location.assign(event.target.getAttribute("action") + "?" + new URLSearchParams(new FormData(event.target)));
        return;
      }
      var fields = {};
      new FormData(event.target).forEach(function (value, name) { fields[name] = value; });
      if (event.submitter && event.submitter.name) fields[event.submitter.name] = event.submitter.value;
      // A button with its own formaction (a card's Archive, Delete) posts there.
      var action = (event.submitter && event.submitter.getAttribute("formaction")) || event.target.getAttribute("action");
      perform(action, fields).catch(showRefusal);
    });
    window.cardboxPost = function (url, fields) { return perform(url, fields).catch(showRefusal); };
    redraw();
  }

  // MARK: The study day

  // The study day holding `now` (milliseconds), as the account's settings set it: it starts at
  // `dayStartHour` (4 a.m. unless set) in the account's time zone, or this browser's when it has
  // none. The browser's calendar works it out; the queue and the daily limits count within it.
  function studyDay(now, settings) {
    var hour = Number(settings.dayStartHour);
    if (!(hour >= 0 && hour <= 23 && Math.floor(hour) === hour)) hour = 4;
    var format;
    try {
      format = new Intl.DateTimeFormat("en-US", { timeZone: settings.timeZone || undefined, hourCycle: "h23",
        year: "numeric", month: "numeric", day: "numeric", hour: "numeric", minute: "numeric", second: "numeric" });
    } catch (unknownZone) {
      format = new Intl.DateTimeFormat("en-US", { hourCycle: "h23", year: "numeric", month: "numeric",
        day: "numeric", hour: "numeric", minute: "numeric", second: "numeric" });
    }
    var local = function (time) {
      var parts = {};
      format.formatToParts(new Date(time)).forEach(function (part) { parts[part.type] = Number(part.value); });
      return parts;
    };
    // How far the zone's clock is ahead of UTC at `time`.
    var offset = function (time) {
      var p = local(time);
      return Date.UTC(p.year, p.month - 1, p.day, p.hour, p.minute, p.second) - Math.floor(time / 1000) * 1000;
    };
    // The zone's `hour` o'clock on a calendar date (as UTC fields), across a daylight-saving change.
    var at = function (date) {
      var guess = Date.UTC(date.getUTCFullYear(), date.getUTCMonth(), date.getUTCDate(), hour);
      var time = guess - offset(guess);
      return guess - offset(time);
    };
    var today = local(now);
    var date = new Date(Date.UTC(today.year, today.month - 1, today.day - (today.hour < hour ? 1 : 0)));
    var next = new Date(Date.UTC(date.getUTCFullYear(), date.getUTCMonth(), date.getUTCDate() + 1));
    return { start: at(date), end: at(next) };
  }

  // What the replica's study calls take: the deck and the study day holding `now`.
  function studyRequest(replica, deck, now) {
    var day = studyDay(now, replica.settings());
    return { deck: deck, dayStart: day.start, dayEnd: day.end };
  }

  function studyView(replica, deck) {
    var now = Date.now();
    return replica.study(studyRequest(replica, deck, now), now);
  }

  // MARK: The offline deck page

  // New cards' ids, more than a text needs: one for each `{{c` it holds, and one.
  // In order, so a cloze text's cards (made in one millisecond) sort c1 first by id: every device
  // breaks ties of creation time by id.
  function newIds(text) { return Array.apply(null, Array(text.split("{{c").length)).map(uuid).sort(); }

  // A deck's page with no network, from the replica: its tab, filters and page as the address
  // gives them (the server's own query names). The tabs the replica cannot draw say so.
  function drawDeck(replica, deck) {
    var now = Date.now();
    var request = studyRequest(replica, deck, now);
    request.query = Array.from(new URLSearchParams(location.search));
    var model = replica.deckPage(request, now);
    return render("deckbody", model) + (model.cards ? "" : "<p id=\"needs-network\">This list needs the network.</p>");
  }

  // On a deck's study page with the network: the thumbnails of the coming cards, kept in the cache
  // the service worker answers them from. A picture that cannot be fetched is left out.
  // The replica is read only when it changed since the deck's pictures were last kept, or a
  // quarter of an hour went by: a study day starts on a quarter hour in every time zone, so a new
  // day's cards are never missed, and a study page otherwise loads without reading every record.
  function keepPictures(deck) {
    if (!window.caches) return Promise.resolve();
    var marker = null;
    return readState().then(function (kept) {
      marker = kept ? kept.version + " " + Math.floor(Date.now() / 900000) : null;
      if (marker && kept.pictured && kept.pictured[deck] === marker) return [];
      return withReplica(function (replica) { return studyView(replica, deck).pictures; });
    }).then(function (hashes) {
      return caches.open("cardbox-pictures").then(function (cache) {
        return Promise.all(hashes.map(function (hash) {
          var address = "/images/" + hash + "/thumbnail";
          return cache.match(address).then(function (kept) { return kept || cache.add(address); }).catch(function () { });
        }));
      });
    }).then(function () { if (marker) return notePictured(deck, marker); });
  }

  // Notes the replica's version the deck's pictures were kept at, without changing that version.
  function notePictured(deck, marker) {
    var note = function () {
      return readState().then(function (state) {
        if (!state || marker.split(" ")[0] !== String(state.version)) return;
        state.pictured = state.pictured || {};
        state.pictured[deck] = marker;
        return transact(["state"], "readwrite", function (tx) { tx.objectStore("state").put(state, "replica"); });
      });
    };
    return underLock(note);
  }

  function registerWorker() {
    if (!navigator.serviceWorker) return Promise.resolve();
    return navigator.serviceWorker.register("/service-worker.js").then(function () {
      return navigator.serviceWorker.ready;
    });
  }

  // MARK: Signing out

  // Signing out sends what waits first; when it cannot be, the person is asked before it is lost.
  // Then this account's replica and the pictures kept leave the browser. Another account's replica
  // stays: its changes wait for that account's own sign-in.
  function forgetAccount() {
    if (opened) opened.then(function (db) { db.close(); }, function () { });
    opened = null;
    loaded = null;
    var deleted = new Promise(function (resolve) {
      var request = indexedDB.deleteDatabase("cardbox-replica-" + account);
      request.onsuccess = request.onerror = request.onblocked = function () { resolve(); };
    });
    return Promise.all([deleted, window.caches ? caches.delete("cardbox-pictures") : null]).then(function () {
      if (localStorage.getItem(accountKey) === account) localStorage.removeItem(accountKey);
    });
  }

  document.addEventListener("submit", function (event) {
    var form = event.target;
    if (form.getAttribute("action") !== "/signout" || form.dataset.replicaSent) return;
    event.preventDefault();
    event.stopPropagation();
    var leave = function () {
      forgetAccount().then(function () {
        form.dataset.replicaSent = "true";
        form.requestSubmit();
      });
    };
    sync().then(leave, function () {
      withReplica(function (replica) { return replica.pendingOperations(); }).then(function (waiting) {
        if (waiting === 0 || confirm(count(waiting, "change") + " made on this device could not be sent. Sign out and lose them?")) leave();
      }, function () {
        if (confirm("Changes made on this device may not have been sent. Sign out and lose them?")) leave();
      });
    });
  }, true);

  if (shell) {
    var listPage = /^\/lists\/([0-9a-f-]{36})$/.exec(location.pathname);
    var board = /^\/boards\/([0-9a-f-]{36})$/.exec(location.pathname);
    var archived = /[?&]archived(=|&|$)/.test(location.search);
    if (studying) {
      showPage(function (replica) { return render("studybody", studyView(replica, studying[1]).page); }, "No network");
    } else if (deckPage) {
      showPage(function (replica) { return drawDeck(replica, deckPage[1]); }, "No network");
    } else if (cardEditor) {
      showPage(function (replica) {
        return render("cardbody", replica.cardPage({ deck: cardEditor[1], card: cardEditor[2] }));
      }, "No network");
    } else if (board) {
      showPage(function (replica) {
        return render("boardbody", replica.boardPage({ id: board[1], archived: archived }));
      }, "Boards");
    } else if (location.pathname === "/boards") {
      showPage(function (replica) { return render("boardsbody", replica.boardsPage()); }, "Boards");
    } else if (listPage) {
      showPage(function (replica) { return render("listbody", replica.listPage(listPage[1])); }, "Lists");
    } else {
      showPage(function (replica) { return render("listsbody", replica.listsPage()); }, "Lists");
    }
    window.addEventListener("online", function () { sync().then(function () { location.reload(); }, function () { }); });
  } else if (signedIn) {
    var synced = sync().then(function (sent) {
      body.dataset.replicaReady = "true";
      readState().then(showSetAside, function () { });
      // What was done offline is on the server now: the page shows it.
      if (sent > 0 && (/^\/lists/.test(location.pathname) || studying || deckPage)) location.reload();
    }, function (error) {
      body.dataset.replicaReady = "failed";
      body.dataset.replicaError = error.message;
      throw error;
    });
    // The app works offline once the service worker holds its shell and, on a study page, the
    // coming cards' pictures are kept.
    Promise.all([registerWorker(), synced]).then(function () {
      return studying ? keepPictures(studying[1]) : null;
    }).then(function () { body.dataset.offlineReady = "true"; }, function () { body.dataset.offlineReady = "failed"; });
  }
})();
