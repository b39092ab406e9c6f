// Cardbox's service worker: it keeps the app's shell (style, scripts, the replica's module, the
// offline pages), answers pictures' thumbnails kept for offline study (`device.js` keeps them in
// the "cardbox-pictures" cache), and, when a deck's page, its study page, a list or a board cannot be
// reached, answers with an offline page drawn from the browser's replica (device.js).
// Everything else goes to the network as if it were not there. `self.cardboxShell` (the versioned addresses, and a version naming them all) is set
// by the server in front of this script.
"use strict";
var shell = self.cardboxShell;
var cacheName = "cardbox-" + shell.version;

self.addEventListener("install", function (event) {
  event.waitUntil(caches.open(cacheName).then(function (cache) {
    return cache.addAll(shell.paths);
  }).then(function () { return self.skipWaiting(); }));
});

self.addEventListener("activate", function (event) {
  event.waitUntil(caches.keys().then(function (names) {
    return Promise.all(names.filter(function (name) {
      return name.indexOf("cardbox-") === 0 && name !== cacheName && name !== "cardbox-pictures";
    }).map(function (name) { return caches.delete(name); }));
  }).then(function () { return self.clients.claim(); }));
});

var studyPage = /^\/decks\/[0-9a-f-]{36}\/study$/;
var deckPage = /^\/decks\/[0-9a-f-]{36}(\/cards\/[0-9a-f-]{36})?$/;
var listPage = /^\/(lists|boards)(\/[0-9a-f-]{36})?$/;

self.addEventListener("fetch", function (event) {
  var request = event.request;
  var url = new URL(request.url);
  if (url.origin !== self.location.origin) return;
  if (request.method === "POST" && request.mode === "navigate" && studyPage.test(url.pathname)) {
    // An answer posted as the network went: back to the study page, which opens offline.
    event.respondWith(fetch(request).catch(function () { return Response.redirect(url.origin + url.pathname, 303); }));
    return;
  }
  if (request.method !== "GET") return;
  if (request.mode === "navigate" && (studyPage.test(url.pathname) || deckPage.test(url.pathname))) {
    // A deck, a card's editor or the deck's study page with no network: drawn from the browser's
    // replica (device.js).
    event.respondWith(fetch(request).catch(function () { return caches.match(shell.offlinePage); }));
  } else if (request.mode === "navigate" && listPage.test(url.pathname)) {
    // A list or board page with no network: drawn from the browser's replica (device.js).
    event.respondWith(fetch(request).catch(function () { return caches.match(shell.offlineListsPage); }));
  } else if (shell.paths.indexOf(url.pathname) >= 0) {
    event.respondWith(caches.match(url.pathname).then(function (kept) { return kept || fetch(request); }));
  } else if (/^\/images\/[0-9a-f]{64}\/thumbnail$/.test(url.pathname)) {
    // A picture's thumbnail never changes (its address is its hash): the one kept for offline
    // study, or the network's.
    event.respondWith(caches.match(url.pathname).then(function (kept) { return kept || fetch(request); }));
  }
});
