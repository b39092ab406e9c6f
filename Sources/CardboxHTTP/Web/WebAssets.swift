import CardboxCore
import CardboxSync
import CardboxWebAssembly
import Foundation
import NIOCore

/// The web app's style sheet and script, served from the binary: no build step, nothing loaded from
/// another origin.
enum WebAssets {
    /// Where pages load them from: each address carries a hash of the content, so a browser keeps
    /// it for a year and a new version of Cardbox is a new address.
    static let cssPath = "/static/app-\(version(of: css)).css"
    static let javascriptPath = "/static/app-\(version(of: javascript)).js"
    static let schedulerScriptPath = "/static/scheduler-\(version(of: schedulerScript)).js"
    static let offlineScriptPath = "/static/offline-\(version(of: offlineScript)).js"
    static let schedulerModulePath = "/static/fsrs-\(String(sha256Hex(schedulerModule).prefix(12))).wasm"
    static let replicaScriptPath = "/static/replica-\(version(of: replicaScript)).js"
    static let replicaModulePath = "/static/replica-\(String(sha256Hex(replicaModule).prefix(12))).wasm"
    static let deviceScriptPath = "/static/device-\(version(of: deviceScript)).js"
    static let pagesScriptPath = "/static/pages-\(version(of: pagesScript)).js"

    /// Every asset at its address, with its bytes and type.
    static let served: [(path: String, content: ByteBuffer, type: String)] = {
        let script = "text/javascript; charset=utf-8"
        return [
            (cssPath, ByteBuffer(string: css), "text/css; charset=utf-8"),
            (javascriptPath, ByteBuffer(string: javascript), script),
            (schedulerScriptPath, ByteBuffer(string: schedulerScript), script),
            (schedulerModulePath, ByteBuffer(bytes: schedulerModule), "application/wasm"),
            (offlineScriptPath, ByteBuffer(string: offlineScript), script),
            (replicaScriptPath, ByteBuffer(string: replicaScript), script),
            (replicaModulePath, ByteBuffer(bytes: replicaModule), "application/wasm"),
            (deviceScriptPath, ByteBuffer(string: deviceScript), script),
            (pagesScriptPath, ByteBuffer(string: pagesScript), script),
        ]
    }()

    static func version(of text: String) -> String { version(of: Data(text.utf8)) }
    static func version(of bytes: Data) -> String { String(sha256Hex(bytes).prefix(12)) }

    /// The FSRS step for the browser: the WebAssembly module the build compiles from
    /// `Sources/CardboxFSRS` (`Plugins/WasmModules`), and the script that drives it.
    static let schedulerModule = WebAssemblyModules.scheduler
    static let schedulerScript = String(decoding: PackageResources.scheduler_js, as: UTF8.self)
    /// The browser's replica: the WebAssembly module the build compiles from `Sources/CardboxReplica`,
    /// and the script that drives it.
    static let replicaModule = WebAssemblyModules.replica
    static let replicaScript = String(decoding: PackageResources.replica_js, as: UTF8.self)
    /// The browser as a device: its replica kept in IndexedDB and synced, the offline list pages.
    /// The schema, the registry's version and the module's address come in front of it.
    static let deviceScript: String = {
        let setup = JSONValue.object([
            "schema": SyncRegistry.replicaSchema.json, "registry": .int(Int64(SyncRegistry.version)),
            "module": .string(replicaModulePath), "pages": .string(pagesScriptPath),
        ])
        return "self.cardboxReplicaSetup = \(setup.jsonText);\n"
            + String(decoding: PackageResources.device_js, as: UTF8.self)
    }()
    /// What draws a page from the browser's replica as the server draws it: mustache.js (Debian's
    /// `libjs-mustache`, read where it installs it) and the bodies of the pages drawn offline
    /// (`Template.drawnOffline`), as `self.cardboxTemplates`.
    static let pagesScript: String = {
        let templates = JSONValue.object(
            Dictionary(uniqueKeysWithValues: Template.drawnOffline.map { ($0.rawValue, JSONValue.string($0.text)) }))
        // `{{…}}` escaped as the server's templates escape it (`HTMLText.escape`), so a page drawn
        // offline is the page the server draws.
        let escape = """
            Mustache.escape = function (text) {
              return String(text).replace(/[&<>"']/g, function (c) {
                return { "&": "&amp;", "<": "&lt;", ">": "&gt;", '"': "&quot;", "'": "&#39;" }[c];
              });
            };
            """
        return (mustacheScript ?? "") + "\n" + escape + "\nself.cardboxTemplates = \(templates.jsonText);\n"
    }()

    /// Where Debian's `libjs-mustache` puts mustache.js.
    static let mustachePath = "/usr/share/javascript/mustache/mustache.min.js"
    /// mustache.js, or nil when `libjs-mustache` is not installed (`cardbox serve` then refuses to start).
    static let mustacheScript: String? = try? String(contentsOfFile: mustachePath, encoding: .utf8)

    /// Offline study: keeps a deck's day, sends the answers given offline, studies with no network.
    static let offlineScript = String(decoding: PackageResources.offline_js, as: UTF8.self)

    static let css = """
        :root { --tint: #2962cc; --muted: #5b6470; --line: #d7dce2; --bad: #b3261e; --ok: #1e7b34;
          --text: #1b1f24; --bg: #f6f7f9; --surface: #fff; --tag: #eef2f8; --bad-bg: #fdecea; --ok-bg: #e7f4ea;
          --on-tint: #fff; --column: #eceff3; --new: #1565c0; --learning: #c62828; --review: #2e7d32; color-scheme: light dark; }
        @media (prefers-color-scheme: dark) {
          :root { --tint: #7aa7ff; --muted: #a0a9b5; --line: #363c44; --bad: #ff8a80; --ok: #7bd88f;
            --text: #e6e8eb; --bg: #121417; --surface: #1d2126; --tag: #2a3340; --bad-bg: #3a1d1b; --ok-bg: #17301d; --on-tint: #0d1117; --column: #262b32;
            --new: #82b1ff; --learning: #ff8a80; --review: #7bd88f; }
          input, textarea, select { background: var(--surface); color: var(--text); border-color: var(--line); }
        }
        * { box-sizing: border-box; }
        body { margin: 0; font: 16px/1.5 system-ui, sans-serif; color: var(--text); background: var(--bg); }
        header { display: flex; gap: .3rem .9rem; align-items: center;
          padding: .4rem 1rem; background: var(--surface); border-bottom: 1px solid var(--line); }
        .brand { font-weight: 700; color: inherit; text-decoration: none; margin-right: auto; }
        /* The four parts of the app, the current one marked; Import and Sign out beside them (on a
           phone, on the account page). */
        nav.main { display: flex; gap: .2rem; }
        nav.main a, header .more a { display: inline-flex; align-items: center; gap: .35rem; min-height: 44px;
          padding: 0 .6rem; border-radius: .5rem; color: var(--text); text-decoration: none; }
        nav.main a[aria-current="page"], header .more a[aria-current="page"] { color: var(--tint); background: var(--tag);
          font-weight: 600; }
        nav.main svg { width: 1.3rem; height: 1.3rem; fill: none; stroke: currentColor; stroke-width: 1.8;
          stroke-linecap: round; stroke-linejoin: round; }
        header .more { display: flex; gap: .4rem; align-items: center; }
        /* A phone: the parts are a tab bar at the bottom, in one row from 320 px up. */
        @media (max-width: 640px) {
          nav.main { position: fixed; left: 0; right: 0; bottom: 0; z-index: 10; gap: 0; background: var(--surface);
            border-top: 1px solid var(--line); padding: .15rem .25rem calc(.15rem + env(safe-area-inset-bottom)); }
          nav.main a { flex: 1; flex-direction: column; justify-content: center; gap: 0; padding: .2rem 0;
            font-size: .75rem; min-height: 52px; }
          nav.main a[aria-current="page"] { background: none; }
          body:has(nav.main) { padding-bottom: 4.5rem; }
          header .more { display: none; }
        }
        main { max-width: 46rem; margin: 0 auto; padding: 1rem; }
        a { color: var(--tint); }
        :focus { outline: none; }
        :focus-visible { outline: 3px solid #9dbcf5; outline-offset: 2px; }
        .muted { color: var(--muted); }
        .error { color: var(--bad); background: var(--bad-bg); padding: .6rem .8rem; border-radius: .4rem; }
        .notice { color: var(--ok); background: var(--ok-bg); padding: .6rem .8rem; border-radius: .4rem; }
        .stack, .stack fieldset { display: flex; flex-direction: column; gap: .35rem; max-width: 28rem; }
        .stack fieldset label { margin-top: .3rem; }
        .row { display: flex; gap: 1rem; flex-wrap: wrap; }
        .row span { display: flex; flex-direction: column; }
        input { font: inherit; padding: .45rem .6rem; border: 1px solid var(--line); border-radius: .4rem; }
        button, .button { font: inherit; cursor: pointer; display: inline-block; padding: .45rem .9rem;
          border: 0; border-radius: .4rem; background: var(--tint); color: var(--on-tint); text-decoration: none; }
        .small { padding: .2rem .6rem; font-size: .9rem; }
        /* An action drawn light (a text button, not an underlined link): tinted, bold, no box. */
        button.link { background: none; color: var(--tint); padding: 0 .2rem; font-weight: 600; }
        button.secondary { background: var(--surface); color: var(--tint); border: 1px solid var(--tint); }
        button.danger:not(.link) { background: var(--bad); }
        .link.danger, summary.danger { color: var(--bad); }
        /* A destructive action asks once more: its summary opens the button that does it (no script). */
        details.confirm { display: inline-flex; gap: .5rem; align-items: center; }
        details.confirm > summary { display: inline; list-style: none; cursor: pointer; font-weight: 600; }
        details.confirm > summary::-webkit-details-marker { display: none; }
        details.confirm[open] > summary { text-decoration: none; }
        ul.suggestions li { display: flex; gap: .8rem; align-items: flex-start; }
        /* Tabs stay on one line and scroll sideways where they do not fit (a phone). */
        nav.tabs { display: flex; flex-wrap: nowrap; overflow-x: auto; scrollbar-width: none; gap: .2rem;
          border-bottom: 1px solid var(--line); margin: 1rem 0; }
        nav.tabs a { flex: none; white-space: nowrap; gap: .35rem; padding: .4rem .7rem; text-decoration: none;
          border-radius: .4rem .4rem 0 0; display: inline-flex; align-items: center; min-height: 44px; }
        nav.tabs a[aria-current="page"] { background: var(--surface); border: 1px solid var(--line); border-bottom-color: var(--surface);
          margin-bottom: -1px; font-weight: 600; }
        .actions { margin-left: auto; display: flex; gap: .6rem; }
        form.filters { flex-wrap: wrap; gap: .5rem; margin: 1.2rem 0 .6rem; }
        @media (max-width: 640px) { .deck-body { display: flex; flex-direction: column; } .deck-add { order: 1; } }
        ul.images { list-style: none; display: flex; flex-wrap: wrap; gap: .6rem; padding: 0; }
        ul.images li { display: flex; flex-direction: column; align-items: center; }
        svg.chart { width: 100%; height: auto; background: var(--surface); border: 1px solid var(--line); border-radius: .5rem; }
        svg.chart rect { fill: var(--tint); }
        svg.chart text { font-size: 11px; fill: var(--muted); }
        svg.chart .axis { stroke: var(--line); }
        @media (max-width: 640px) { svg.chart text { font-size: 22px; } }
        ul.states { list-style: none; padding: 0; display: flex; flex-wrap: wrap; gap: .3rem 1.4rem; }
        fieldset { min-width: 0; border: 1px solid var(--line); border-radius: .5rem; }
        input, textarea, select { max-width: 100%; box-sizing: border-box; }
        .stack label > input:not([type=checkbox], [type=radio]), .stack label > textarea, .stack label > select {
          display: block; width: 100%; margin-top: .2rem; }
        ul.cards li > details, .row > label { min-width: 0; }
        img.thumbnail { width: 96px; height: 96px; object-fit: cover; border-radius: .4rem; flex: none; }
        /* A study card's picture, under its question. */
        img.thumbnail.picture { display: block; width: 12rem; height: 12rem; object-fit: contain; margin: .5rem auto; }
        .stack button { align-self: flex-start; margin-top: .4rem; }
        form.inline { display: inline; }
        ul.cards { list-style: none; padding: 0; }
        ul.cards ul.devices { padding: 0; flex-basis: 100%; }
        /* A description takes a line of its own under the title, so the title's arrows never move. */
        ul.cards li > .description { order: 1; flex-basis: 100%; margin: 0; }
        ul.cards li > details.edit { order: 2; }
        form.toggle { margin: .4rem 0 1rem; }
        ul.cards li { background: var(--surface); border: 1px solid var(--line); border-radius: .5rem; padding: .6rem .8rem;
          margin: .4rem 0; display: flex; flex-wrap: wrap; gap: .3rem .8rem; align-items: baseline; }
        .counts { margin-left: auto; color: var(--muted); }
        /* A suggestion's picture beside its text, both from the top (baseline alignment put the text's
           first line at the picture's bottom edge). */
        ul.cards.suggestions li { flex-wrap: nowrap; align-items: flex-start; }
        ul.suggestions li > div { flex: 1; min-width: 0; }
        ul.suggestions li p { margin: .2rem 0 .4rem; }
        .tag { font-size: .8rem; background: var(--tag); border-radius: 1rem; padding: 0 .5rem; }
        .limit { display: flex; gap: 1rem; align-items: center; background: var(--surface); border: 1px solid var(--line);
          border-radius: .5rem; padding: .6rem .8rem; }
        .limit div { flex: 1; }
        .limit p { margin: 0 0 .3rem; color: var(--muted); }
        progress { width: 100%; height: .35rem; }
        .study { background: var(--surface); border: 1px solid var(--line); border-radius: .6rem; padding: 1.2rem; }
        .front { font-size: 1.6rem; margin: 0 0 1rem; overflow-wrap: anywhere; }
        .back { font-size: 1.3rem; overflow-wrap: anywhere; }
        .study .front { font-size: 2rem; text-align: center; margin: .6rem 0 1.2rem; }
        .study .back { font-size: 1.5rem; text-align: center; }
        .study details > .muted { text-align: center; }
        .study hr { border: 0; border-top: 1px solid var(--line); margin: 1rem 0; }
        .study summary.show-answer { display: block; width: fit-content; margin: 1rem auto 0; list-style: none; }
        .study summary.show-answer::-webkit-details-marker { display: none; }
        .study details[open] > summary { display: none; }
        .ratings { display: grid; grid-template-columns: repeat(4, 1fr); gap: .5rem; margin-top: 1.2rem; }
        .ratings button { display: flex; flex-direction: column; align-items: center; padding: .55rem .2rem; color: #fff; }
        @media (max-width: 359px) { .ratings { grid-template-columns: repeat(2, 1fr); } }
        .ratings .rating-1 { background: #c62828; } .ratings .rating-2 { background: #5f6b7a; }
        .ratings .rating-3 { background: #2e7d32; } .ratings .rating-4 { background: #1565c0; }
        .remaining { display: flex; gap: 1rem; font-weight: 600; }
        .remaining .new { color: var(--new); } .remaining .learning { color: var(--learning); }
        .remaining .review { color: var(--review); }
        button kbd, .button kbd { color: inherit; border-color: currentColor; }
        .cloze { font-weight: 700; color: var(--tint); }
        .study:has(details[open]) .cloze-question { display: none; }
        summary { cursor: pointer; color: var(--tint); }
        .crossed .title { text-decoration: line-through; color: var(--muted); }
        button.check { width: 1.6rem; height: 1.6rem; padding: 0; border: 2px solid var(--tint); background: var(--surface);
          color: var(--tint); border-radius: .3rem; line-height: 1; }
        .crossed button.check { background: var(--tint); color: var(--on-tint); }
        .description { flex-basis: 100%; margin: 0; color: var(--muted); white-space: pre-wrap; overflow-wrap: anywhere; }
        details.edit { flex-basis: 100%; }
        .danger { color: var(--bad) !important; }
        textarea, select { font: inherit; padding: .45rem .6rem; border: 1px solid var(--line); border-radius: .4rem; }
        /* Dragging (Pointer Events): the row lifted, and the row it would take the place of. */
        [data-move].dragging { opacity: .6; box-shadow: 0 .4rem 1rem rgba(0, 0, 0, .25); }
        [data-move].drop-target { outline: 2px dashed var(--tint); }
        /* What a long press or a mouse's drag lifts is not text to select. */
        .column li[data-move], #lists > li[data-move], .column > h2 { cursor: grab; user-select: none;
          -webkit-user-select: none; -webkit-touch-callout: none; }
        .visually-hidden { position: absolute; width: 1px; height: 1px; overflow: hidden; clip-path: inset(50%);
          white-space: nowrap; }
        /* A list like Reminders: one line per item, its box, its title (a tap opens the editor in
           place), a handle to drag; the description under the title. */
        ul.items { list-style: none; padding: 0; margin: .5rem 0; border-top: 1px solid var(--line); }
        ul.items > li { display: flex; flex-wrap: wrap; align-items: flex-start; gap: 0 .5rem; padding: .15rem 0;
          border-bottom: 1px solid var(--line); background: var(--bg); }
        ul.items > li > details.edit { flex: 1; min-width: 0; }
        /* The box, the title and the handle centred in one 44 px band, whether the editor is open. */
        ul.items > li > form.inline { display: flex; align-items: center; min-height: 44px; }
        ul.items > li > details.edit > summary { list-style: none; color: inherit; min-height: 44px; display: flex;
          flex-wrap: wrap; align-items: center; gap: .2rem .5rem; overflow-wrap: anywhere; }
        ul.items > li > details.edit > summary::-webkit-details-marker { display: none; }
        ul.items > li > details.edit[open] { padding-bottom: .5rem; }
        ul.items > li > .description { order: 1; flex-basis: 100%; margin: 0 0 .3rem 2.1rem; font-size: .9rem; }
        .handle { flex: none; display: flex; align-items: center; justify-content: center; width: 44px; height: 44px;
          color: var(--muted); cursor: grab; touch-action: none; }
        .handle svg { width: 1.2rem; height: 1.2rem; fill: currentColor; }
        .item-moves:empty { display: none; }
        form.add-line { display: flex; gap: .5rem; align-items: center; margin: .6rem 0; }
        form.add-line #title { flex: 1; min-width: 0; }
        form.add-line #quantity { width: 4.5rem; flex: none; }
        main:has(.columns) { max-width: none; }
        .columns { display: flex; gap: .8rem; overflow-x: auto; align-items: flex-start; padding-bottom: .5rem; }
        .column { flex: 0 0 17rem; background: var(--column); border-radius: .6rem; padding: .6rem; }
        /* A phone shows one whole column at a time, swiped (scroll snap), their names and counts in a
           strip above that takes you to each. */
        .column-strip { display: none; }
        @media (max-width: 640px) {
          .column-strip { display: flex; gap: .3rem; overflow-x: auto; scrollbar-width: none; margin: .5rem 0; }
          .column-strip a { flex: none; display: inline-flex; gap: .35rem; align-items: center; min-height: 44px;
            padding: 0 .8rem; border-radius: 1.4rem; background: var(--tag); text-decoration: none; }
          .columns { scroll-snap-type: x mandatory; }
          .column { flex: 0 0 100%; scroll-snap-align: start; }
        }
        .column h2 { font-size: 1rem; margin: .2rem 0; display: inline-block; cursor: grab; }
        .column ul.cards { min-height: 2.5rem; margin: .4rem 0; }
        .column li.archived { opacity: .6; }
        .add-card input { flex: 1; min-width: 0; }
        kbd { font-size: .75rem; border: 1px solid var(--line); border-radius: .25rem; padding: 0 .3rem; color: var(--muted); }
        /* Keyboard hints only where there is a keyboard and a mouse. */
        @media (hover: none), (pointer: coarse) { kbd { display: none; } }
        /* Tap targets of at least 44 × 44 px on a touch screen or a phone's width (Apple's HIG). */
        @media (pointer: coarse), (max-width: 640px) {
          button:not(.link), .button { min-height: 44px; }
          button.link, details.confirm > summary { display: inline-flex; align-items: center; justify-content: center;
            min-height: 44px; min-width: 44px; }
          button.check { width: 44px; height: 44px; flex: none; }
          ul.items > li > .description { margin-left: calc(44px + .5rem); }
        }
        """

    /// Study keys: space shows the answer, 1–4 answer, u undoes (not while typing in a field). A live
    /// page (`data-live`: the account's cursor it was made at) listens to the account's news and loads
    /// itself again when another device or tab changes the account; while something is typed in one
    /// of its fields it only says so, keeping the typing.
    static let javascript = """
        (function () {
          // Dragging to reorder, with a finger as with a mouse (Pointer Events). A list's item is lifted
          // by its handle at once; a board's card, or a column by its title, by a long press of a finger
          // (a finger that moves first scrolls the page) or by a mouse moved a few pixels. The row takes
          // the place of the row of its kind it is dropped on, in its own container or, for board cards,
          // in another column ([data-drop-column]), or goes to the end of the column it is dropped in.
          // The server is told the new place; the page then shows what the server says. The keyboard's
          // way is each row's Move buttons or Move to menu.
          var longPress = 450, slop = 8, press = null, marked = null, scrolling = null;
          document.addEventListener("pointerdown", function (event) {
            if (press || event.button !== 0 || !event.target.closest) return;
            var row = event.target.closest("[data-move]");
            if (!row) return;
            var handle = event.target.closest(".handle");
            if (!handle) {
              if (row.querySelector(":scope > .handle")) return;
              // Not from a control, nor from an editor opened in the row; a summary is the row's own.
              if (event.target.closest("button, a, input, select, textarea, label")) return;
              var opened = event.target.closest("details[open]");
              if (opened && !event.target.closest("summary")) return;
              if (row.dataset.kind === "column" && !event.target.closest("h2")) return;
            }
            press = { row: row, pointer: event.pointerId, x: event.clientX, y: event.clientY, startX: event.clientX,
              startY: event.clientY, lifted: false };
            if (handle) {
              event.preventDefault();
              lift();
            } else if (event.pointerType !== "mouse") {
              press.timer = setTimeout(lift, longPress);
            }
          });
          document.addEventListener("pointermove", function (event) {
            if (!press || event.pointerId !== press.pointer) return;
            // A mouse let go outside the window: its release never came here.
            if (event.pointerType === "mouse" && !(event.buttons & 1)) return end();
            press.x = event.clientX;
            press.y = event.clientY;
            if (!press.lifted) {
              if (Math.abs(event.clientX - press.startX) + Math.abs(event.clientY - press.startY) <= slop) return;
              if (event.pointerType === "mouse") lift(); else return end();
            }
            event.preventDefault();
            mark(target(event.clientX, event.clientY));
          });
          document.addEventListener("pointerup", function (event) {
            if (!press || event.pointerId !== press.pointer) return;
            // Where the pointer last moved to: a lifted finger's own position is not always given.
            var found = press.lifted && target(press.x, press.y);
            var row = press.row;
            var lifted = press.lifted;
            end();
            if (lifted) swallowClick();
            // Through `cardboxPost`, which a page drawn offline (device.js) makes the replica's write.
            if (found) window.cardboxPost(row.dataset.move, found.fields);
          });
          document.addEventListener("pointercancel", function (event) {
            if (press && event.pointerId === press.pointer) end();
          });
          // Escape puts a lifted row down where it was.
          document.addEventListener("keydown", function (event) { if (press && event.key === "Escape") end(); });
          // While a row is lifted the page does not scroll under the finger, nor open its menu.
          document.addEventListener("touchmove", function (event) {
            if (press && press.lifted) event.preventDefault();
          }, { passive: false });
          document.addEventListener("contextmenu", function (event) { if (press) event.preventDefault(); });
          function lift() {
            if (!press) return;
            press.lifted = true;
            press.row.classList.add("dragging");
            try { press.row.setPointerCapture(press.pointer); } catch (error) { /* the pointer is gone */ }
            if (navigator.vibrate) navigator.vibrate(15);
            scrolling = setInterval(scrollNearEdges, 30);
          }
          function end() {
            if (!press) return;
            clearTimeout(press.timer);
            clearInterval(scrolling);
            var columns = press.row.closest(".columns");
            if (columns) columns.style.scrollSnapType = "";
            press.row.classList.remove("dragging");
            mark(null);
            press = null;
          }
          // A drag ends with a click where it ended: not a click on what lies there.
          function swallowClick() {
            var swallow = function (event) { event.preventDefault(); event.stopPropagation(); };
            document.addEventListener("click", swallow, true);
            setTimeout(function () { document.removeEventListener("click", swallow, true); }, 0);
          }
          // Near an edge of the window, or of a board's columns, the page scrolls to what lies beyond.
          function scrollNearEdges() {
            if (!press) return;
            var edge = 48, step = 14;
            if (press.y < edge) window.scrollBy(0, -step);
            else if (press.y > window.innerHeight - edge) window.scrollBy(0, step);
            var columns = press.row.closest(".columns");
            if (!columns) return;
            var box = columns.getBoundingClientRect();
            var across = press.x < box.left + edge ? -1 : press.x > box.right - edge ? 1 : 0;
            if (across) {
              columns.style.scrollSnapType = "none";
              columns.scrollLeft += across * step * 2;
            }
            mark(target(press.x, press.y));
          }
          function mark(found) {
            var element = found && found.element;
            if (marked === element) return;
            if (marked) marked.classList.remove("drop-target");
            marked = element;
            if (marked) marked.classList.add("drop-target");
          }
          function target(x, y) {
            var dragged = press && press.row;
            var under = dragged && document.elementFromPoint(x, y);
            if (!under || !under.closest) return null;
            var kind = dragged.dataset.kind || "";
            var row = under.closest("[data-move]");
            while (row && (row.dataset.kind || "") !== kind) row = row.parentElement && row.parentElement.closest("[data-move]");
            if (row && row !== dragged) {
              var column = row.parentNode.dataset.dropColumn;
              if (row.parentNode !== dragged.parentNode && !column) return null;
              // Its place among all its siblings, the rows this page hides (crossed out, archived) too.
              var fields = { position: row.dataset.order };
              if (column) fields.column = column;
              return { element: row, fields: fields };
            }
            var container = kind === "card" && (under.closest("[data-drop-column]")
              || (under.closest(".column") && under.closest(".column").querySelector("[data-drop-column]")));
            if (!row && container && container !== dragged.parentNode) {
              return { element: container, fields: { column: container.dataset.dropColumn, position: container.dataset.count } };
            }
            return null;
          }
          window.cardboxPost = post;
          function post(url, fields) {
            // The page is on its way out: its live news need not reload it (see below).
            document.dispatchEvent(new Event("cardbox:leaving"));
            var body = new URLSearchParams(fields);
            body.set("csrf", document.querySelector("input[name=csrf]").value);
            // A refused move shows the server's page saying why, as the arrows' form would.
            return fetch(url, { method: "POST", body: body, credentials: "same-origin" })
              .then(function (response) {
                if (response.ok) return window.location.reload();
                return response.text().then(function (page) {
                  document.open();
                  document.write(page);
                  document.close();
                });
              })
              // No answer (the network went): the page as the server or the offline replica has it.
              .catch(function () { window.location.reload(); });
          }
        })();
        (function () {
          // The browser's time zone goes with a sign-in (and the first account's, and sign-up's form): the
          // account's study days on the server then begin and end in it, not in the server's zone.
          var zone = window.Intl && Intl.DateTimeFormat().resolvedOptions().timeZone;
          var fields = document.querySelectorAll("input[name=timeZone]");
          for (var index = 0; zone && index < fields.length; index++) fields[index].value = zone;
        })();
        (function () {
          var live = document.body && document.body.dataset.live;
          if (!live || !window.EventSource) return;
          var events = new EventSource("/events?after=" + encodeURIComponent(live));
          // This page's own form or drop is on its way: the page that comes next shows the change.
          var leaving = false;
          function leave() { leaving = true; events.close(); }
          document.addEventListener("submit", leave);
          document.addEventListener("cardbox:leaving", leave);
          window.addEventListener("beforeunload", leave);
          events.addEventListener("changes", function () {
            if (leaving) return;
            var typing = Array.prototype.some.call(document.querySelectorAll("input:not([type=hidden]), textarea"),
              function (field) { return field.value !== field.defaultValue; });
            if (typing) {
              document.getElementById("changed").hidden = false;
            } else {
              events.close();
              window.location.reload();
            }
          });
        })();
        document.addEventListener("keydown", function (event) {
          var target = event.target;
          if (event.altKey || event.ctrlKey || event.metaKey) return;
          if (target && (target.tagName === "INPUT" || target.tagName === "TEXTAREA")) return;
          var answer = document.getElementById("answer");
          if (event.key === " " && answer && !answer.open) {
            event.preventDefault();
            answer.open = true;
            return;
          }
          var button = document.querySelector('[data-key="' + event.key + '"]');
          if (button && (event.key === "u" || (answer && answer.open))) {
            event.preventDefault();
            button.click();
          }
        });
        // "Make a deletion" (Anki's Ctrl+Shift+C): the selected text of the field becomes the next
        // cloze deletion, {{cN::…}}; with nothing selected, an empty one to type into.
        (function () {
          var buttons = document.querySelectorAll("[data-cloze-for]");
          for (var index = 0; index < buttons.length; index++) buttons[index].hidden = false;
          // Found when clicked: a page drawn offline puts its buttons in after this ran.
          document.addEventListener("click", function (event) {
            var button = event.target.closest && event.target.closest("[data-cloze-for]");
            if (button) makeDeletion(document.getElementById(button.dataset.clozeFor));
          });
          document.addEventListener("keydown", function (event) {
            var field = event.target;
            if (!(event.ctrlKey && event.shiftKey && (event.key === "C" || event.key === "c"))) return;
            if (!field || !document.querySelector('[data-cloze-for="' + field.id + '"]')) return;
            event.preventDefault();
            makeDeletion(field);
          });
          function makeDeletion(field) {
            var next = 1, at = field.value.indexOf("{{c");
            for (; at >= 0; at = field.value.indexOf("{{c", at + 3)) {
              var number = parseInt(field.value.slice(at + 3), 10);
              if (number >= next) next = number + 1;
            }
            var start = field.selectionStart, end = field.selectionEnd, chosen = field.value.slice(start, end);
            var opening = "{{c" + next + "::";
            field.value = field.value.slice(0, start) + opening + chosen + "}}" + field.value.slice(end);
            field.focus();
            var caret = start + opening.length + chosen.length;
            field.setSelectionRange(chosen ? caret + 2 : caret, chosen ? caret + 2 : caret);
          }
        })();
        // A picture chosen in a file input with data-preview shows in that image before it is sent.
        document.addEventListener("change", function (event) {
          var input = event.target;
          var preview = input.dataset && input.dataset.preview && document.getElementById(input.dataset.preview);
          if (!preview) return;
          if (preview.src) URL.revokeObjectURL(preview.src);
          var file = input.files && input.files[0];
          preview.hidden = !file;
          if (file) preview.src = URL.createObjectURL(file);
        });
        """
}
