// Study with no network. On a deck's study page (online) it keeps the study day ahead in IndexedDB
// (`/api/v1/decks/ID/offline`) and sends the answers given offline (`/answers`); with no network the
// service worker answers the study page with `/offline`, where this script studies from what was
// kept, scheduling each answer with the device's own FSRS step (scheduler.js over WebAssembly), and
// keeps the answers in an outbox until the network is back. Pages without a service worker (no
// JavaScript, an old browser) work exactly as before.
(function () {
  "use strict";
  if (!window.indexedDB || !window.fetch) return;
  var body = document.body;
  // The offline page (`/offline`, what the service worker shows for a study page with no network).
  var shell = document.getElementById("offline-shell");

  var opened = null;
  // One connection for the page, let go when another tab opens a newer version of the database.
  function database() {
    if (opened) return opened;
    opened = new Promise(function (resolve, reject) {
      var request = indexedDB.open("cardbox", 1);
      request.onupgradeneeded = function () {
        request.result.createObjectStore("days");
        request.result.createObjectStore("outbox", { autoIncrement: true });
      };
      request.onsuccess = function () {
        request.result.onversionchange = function () { request.result.close(); opened = null; };
        resolve(request.result);
      };
      request.onerror = function () { opened = null; reject(request.error); };
    });
    return opened;
  }

  // Runs `work` over the object stores `names` in one transaction; resolves once it is committed.
  function transact(names, mode, work) {
    return database().then(function (db) {
      return new Promise(function (resolve, reject) {
        var tx = db.transaction(names, mode);
        var result;
        tx.oncomplete = function () { resolve(result); };
        tx.onerror = tx.onabort = function () { reject(tx.error); };
        result = work.apply(null, names.map(function (name) { return tx.objectStore(name); }));
      });
    });
  }

  function requestValue(request) {
    return new Promise(function (resolve) { request.onsuccess = function () { resolve(request.result); }; });
  }

  // Every answer waiting, with its key, in the order given.
  function waiting() {
    return transact(["outbox"], "readonly", function (outbox) {
      var found = [];
      outbox.openCursor().onsuccess = function (event) {
        var cursor = event.target.result;
        if (!cursor) return;
        found.push({ key: cursor.key, answer: cursor.value });
        cursor.continue();
      };
      return found;
    });
  }

  var perRequest = 1000;

  // Sends the outbox, a deck and at most `perRequest` answers at a time; an answer leaves it once
  // the server has it. An answer the server refuses by name (its request is refused whole, saying
  // `answers[N]`) leaves it too, so one bad answer cannot hold back the others forever.
  function send(csrf) {
    return waiting().then(function (entries) {
      var batches = [];
      var byDeck = {};
      entries.forEach(function (entry) {
        var batch = byDeck[entry.answer.deck];
        if (!batch || batch.length === perRequest) {
          batch = byDeck[entry.answer.deck] = [];
          batches.push(batch);
        }
        batch.push(entry);
      });
      return batches.reduce(function (previous, batch) {
        return previous.then(function () { return sendBatch(batch, csrf); });
      }, Promise.resolve());
    });
  }

  function sendBatch(batch, csrf) {
    var answers = batch.map(function (entry) {
      var a = entry.answer;
      return { id: a.id, card: a.card, rating: a.rating, answeredAt: a.answeredAt, durationMs: a.durationMs };
    });
    return fetch("/api/v1/decks/" + batch[0].answer.deck + "/answers", {
      method: "POST", credentials: "same-origin",
      headers: { "Content-Type": "application/json", "X-CSRF-Token": csrf },
      body: JSON.stringify({ answers: answers }),
    }).then(function (response) {
      // Applied, or the deck is gone (nothing there to answer): they leave the outbox.
      if (response.ok || response.status === 404) return forget(batch);
      if (response.status !== 400) return;
      return response.text().then(function (text) {
        var named = /answers\[(\d+)\]/.exec(text);
        if (named && batch[Number(named[1])]) return forget([batch[Number(named[1])]]);
      });
    });
  }

  function forget(entries) {
    return transact(["outbox"], "readwrite", function (outbox) {
      entries.forEach(function (entry) { outbox.delete(entry.key); });
    });
  }

  // How long a day kept stays fresh on a study page answered online: it is fetched again after
  // that, so a card answered online is not offered again offline (at most this long after).
  var freshFor = 60 * 1000;

  // Online, on a deck's study page: send what waits, then keep the day ahead.
  function keepDay(deck, csrf) {
    return send(csrf).then(function () {
      return transact(["days"], "readonly", function (days) { return requestValue(days.get(deck)); });
    }).then(function (kept) {
      if (kept && Date.now() - kept.keptAt < freshFor && Date.now() / 1000 < kept.dayEnds) return;
      return fetch("/api/v1/decks/" + deck + "/offline", { credentials: "same-origin" }).then(function (response) {
        if (!response.ok) throw new Error("the day could not be kept: " + response.status);
        return response.json();
      }).then(function (day) {
        day.keptAt = Date.now();
        return transact(["days"], "readwrite", function (days) { days.put(day, deck); }).then(function () {
          return keepPictures(day);
        });
      });
    });
  }

  // The thumbnails of the day's pictures, in the cache the service worker answers them from; a
  // picture that cannot be fetched is left out, the rest kept.
  function keepPictures(day) {
    if (!window.caches) return Promise.resolve();
    var addresses = day.cards.filter(function (card) { return card.image; }).map(function (card) {
      return "/images/" + card.image + "/thumbnail";
    });
    return caches.open("cardbox-pictures").then(function (cache) {
      return Promise.all(addresses.map(function (address) {
        return cache.match(address).then(function (kept) { return kept || cache.add(address); })
          .catch(function () {});
      }));
    });
  }

  function registerWorker() {
    if (!navigator.serviceWorker) return Promise.resolve();
    return navigator.serviceWorker.register("/service-worker.js").then(function () {
      return navigator.serviceWorker.ready;
    });
  }

  // Signing out clears what this site keeps in the browser (the server says so): what waits is
  // sent first.
  document.addEventListener("submit", function (event) {
    var form = event.target;
    if (form.getAttribute("action") !== "/signout" || form.dataset.sent) return;
    event.preventDefault();
    var csrf = form.querySelector("input[name=csrf]").value;
    send(csrf).catch(function () {}).then(function () {
      form.dataset.sent = "true";
      form.submit();
    });
  });

  var studyPath = /^\/decks\/([0-9a-f-]{36})\/study$/;
  var match = window.location.pathname.match(studyPath);
  var csrfField = document.querySelector("input[name=csrf]");
  if (shell) {
    if (match) study(match[1]);
  } else if (csrfField) {
    var ready = registerWorker();
    var sent = match ? ready.then(function () { return keepDay(match[1], csrfField.value); }) : send(csrfField.value);
    sent.then(function () { body.dataset.offlineReady = "true"; }, function () { body.dataset.offlineReady = "failed"; });
  }

  // The study screen with no network, from the day kept.
  function study(deck) {
    var main = document.getElementById("main");
    var show = function (html) { main.innerHTML = html; };
    Promise.all([
      transact(["days"], "readonly", function (days) { return requestValue(days.get(deck)); }),
      fetch(shell.dataset.module).then(function (response) {
        if (!response.ok) throw new Error("no scheduler");
        return response.arrayBuffer();
      }).then(CardboxScheduler.load),
    ]).then(function (loaded) {
      run(deck, loaded[0], loaded[1]);
    }).catch(function (error) {
      var why = error && /steps/.test(error.message) ? "its learning steps are more than offline study follows" :
        "it was not kept for studying offline: open its study page once online";
      show("<h1>No network</h1><p>This deck cannot be studied now: " + why + ".</p>");
    });

    function run(deck, day, scheduler) {
      if (!day) throw new Error("not kept");
      scheduler.configure(day.settings);
      var undo = [];
      var shownAt = Date.now();
      var current = null;

      function stateOf(card, now) {
        if (card.state === "new") return CardboxScheduler.newCard(now);
        return { phase: card.state, step: card.step, stability: card.stability, difficulty: card.difficulty,
                 due: card.due, lastReview: card.lastReview };
      }
      // Learning cards when due, then reviews due today, then new cards; learning cards due within
      // 20 minutes come early once nothing else is left (as on a device).
      function next(now) {
        var learning = day.cards.filter(function (c) { return (c.state === "learning" || c.state === "relearning") && c.due <= now + 1200; })
          .sort(function (a, b) { return a.due - b.due; });
        if (learning.length && learning[0].due <= now) return learning[0];
        var reviews = day.cards.filter(function (c) { return c.state === "review" && c.due < day.dayEnds; })
          .sort(function (a, b) { return a.due - b.due; });
        if (reviews.length) return reviews[0];
        // New cards belong to the day they were kept for.
        var fresh = now < day.dayEnds ? day.cards.filter(function (c) { return c.state === "new"; }) : [];
        if (fresh.length) return fresh[0];
        return learning[0] || null;
      }
      function label(seconds) {
        seconds = Math.max(0, seconds);
        if (seconds < 60) return Math.round(seconds) + "s";
        if (seconds < 3600) return Math.round(seconds / 60) + "m";
        if (seconds < 86400) return Math.round(seconds / 3600) + "h";
        if (seconds < 30 * 86400) return Math.round(seconds / 86400) + "d";
        if (seconds < 365 * 86400) return (seconds / (30 * 86400)).toFixed(1) + "mo";
        return (seconds / (365 * 86400)).toFixed(1) + "y";
      }
      function escape(text) {
        return String(text).replace(/[&<>"']/g, function (c) { return "&#" + c.charCodeAt(0) + ";"; });
      }
      function render() {
        return waiting().then(function (entries) {
          var now = Date.now() / 1000;
          current = next(now);
          var count = entries.length;
          var note = '<p class="notice" id="outbox" role="status">' + (count === 1 ? "1 answer waits" : count + " answers wait") +
            " for the network.</p>";
          var ended = now >= day.dayEnds ? " The day kept has ended: new cards wait for the network." : "";
          var head = "<h1>" + escape(day.deck.name) + '</h1><p class="muted" id="offline-note">Studying offline.' + ended +
            "</p>" + note;
          if (!current) {
            show(head + '<p id="done">Nothing left to study in this deck today.</p>' + undoButton());
            return;
          }
          var buttons = ["Again", "Hard", "Good", "Easy"].map(function (name, index) {
            var rating = index + 1;
            var preview = scheduler.review(stateOf(current, now), rating, now, day.settings.fuzz, current.id, current.reps);
            return '<button type="button" data-rating="' + rating + '" class="rating-' + rating + '">' + name +
              " <small>" + label(preview.due - now) + "</small></button>";
          }).join("");
          var picture = current.image ? '<img src="/images/' + escape(current.image) + '/thumbnail" alt="" class="thumbnail" id="picture">' : "";
          show(head + '<article class="study" id="study"><p class="front" id="front">' + current.question + "</p>" + picture +
            '<details id="answer"><summary class="button show-answer">Show answer <kbd>space</kbd></summary>' +
            (current.isCloze ? '<p class="front">' + current.revealed + "</p>" : "") +
            '<hr><p class="back" id="back">' + escape(current.back) + "</p>" +
            (current.notes ? '<p class="muted">' + escape(current.notes) + "</p>" : "") +
            '<div class="ratings">' + buttons + "</div></details></article>" + undoButton());
          shownAt = Date.now();
        });
      }
      function undoButton() {
        return undo.length ? '<p><button type="button" class="link" data-undo>Undo the last answer <kbd>u</kbd></button></p>' : "";
      }
      // One answer (or undo) at a time: a double tap or a held key does not answer a card twice.
      var busy = false;
      function answer(rating) {
        if (busy || !current) return;
        busy = true;
        var nowMs = Date.now();
        var now = nowMs / 1000;
        var card = current;
        var before = JSON.parse(JSON.stringify(card));
        var after = scheduler.review(stateOf(card, now), rating, now, day.settings.fuzz, card.id, card.reps);
        card.state = after.phase;
        card.step = after.step;
        card.stability = after.stability;
        card.difficulty = after.difficulty;
        card.due = after.due;
        card.lastReview = after.lastReview;
        card.reps += 1;
        var given = { deck: deck, id: newId(), card: card.id, rating: rating, answeredAt: new Date(nowMs).toISOString(),
                      durationMs: Math.max(0, nowMs - shownAt) };
        transact(["days", "outbox"], "readwrite", function (days, outbox) {
          days.put(day, deck);
          return requestValue(outbox.add(given));
        }).then(function (key) {
          undo.push({ key: key, card: before });
        }).then(render).then(function () { busy = false; });
      }
      function takeBack() {
        if (busy) return;
        var last = undo.pop();
        if (!last) return;
        busy = true;
        day.cards = day.cards.map(function (card) { return card.id === last.card.id ? last.card : card; });
        transact(["days", "outbox"], "readwrite", function (days, outbox) {
          days.put(day, deck);
          outbox.delete(last.key);
        }).then(render).then(function () { busy = false; });
      }
      main.addEventListener("click", function (event) {
        var button = event.target.closest("button");
        if (!button) return;
        if (button.dataset.rating) answer(Number(button.dataset.rating));
        if (button.hasAttribute("data-undo")) takeBack();
      });
      document.addEventListener("keydown", function (event) {
        if (event.repeat || event.ctrlKey || event.metaKey || event.altKey) return;
        var details = document.getElementById("answer");
        if (event.key === " " && details && !details.open) { event.preventDefault(); details.open = true; return; }
        if (/^[1-4]$/.test(event.key) && details && details.open) answer(Number(event.key));
        if (event.key === "u") takeBack();
      });
      // Back online: the study page itself sends what waits.
      window.addEventListener("online", function () { window.location.reload(); });
      render();
    }
  }

  function newId() {
    if (window.crypto && crypto.randomUUID) return crypto.randomUUID();
    var bytes = crypto.getRandomValues(new Uint8Array(16));
    bytes[6] = (bytes[6] & 0x0f) | 0x40;
    bytes[8] = (bytes[8] & 0x3f) | 0x80;
    var hex = Array.prototype.map.call(bytes, function (b) { return (b + 0x100).toString(16).slice(1); }).join("");
    return hex.slice(0, 8) + "-" + hex.slice(8, 12) + "-" + hex.slice(12, 16) + "-" + hex.slice(16, 20) + "-" + hex.slice(20);
  }
})();
