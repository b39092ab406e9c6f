import CardboxCore
import Mustache

/// The web app's pages, as Mustache templates kept in the binary (nothing to install beside it).
/// Every page fills the `layout` parent; `{{name}}` escapes HTML, so whatever a person typed shows
/// as text (a card titled `<script>` included). The few raw `{{{…}}}` are markup this code made.
enum WebTemplates {
    static let library: MustacheLibrary = {
        MustacheContentTypes.register(EscapedByBytes(), named: EscapedByBytes.name)
        var library = MustacheLibrary()
        for (name, text) in templates {
            // The templates are part of the program: one that does not parse is a bug found by any test.
            try! library.register("{{% CONTENT_TYPE: \(EscapedByBytes.name)}}" + text, named: name)
        }
        return library
    }()

    /// How `{{…}}` escapes, chosen at the top of every template: `HTMLText.escape`, byte by byte.
    /// swift-mustache's own HTML escape looks characters up whole, and a Swift `Character` is a
    /// grapheme: a `"` or `<` followed by a combining mark (U+0301) is one, found in no table, and
    /// went out as it was, so a name could end the attribute it was the value of. (Each template
    /// chooses it: the library gives every partial and parent its default again.)
    struct EscapedByBytes: MustacheContentType {
        static let name = "HTML_BYTES"
        func escapeText(_ text: String) -> String { HTMLText.escape(text) }
    }

    static func render(_ name: String, _ values: [String: Any]) -> String {
        // As with a template that does not parse, a page naming none is a bug any test of it finds.
        guard let html = library.render(values, withTemplate: name) else { preconditionFailure("no template \(name)") }
        return html
    }

    static let templates: [String: String] = [
        "layout": layout, "signin": signIn, "signup": signUp, "newaccount": newAccount, "setup": setup, "decks": decks,
        "deck": deck,
        "cardlist": cardlist,
        "card": card, "stats": stats, "exchange": exchange,
        "study": study,
        "account": account, "message": message, "lists": lists, "list": list,
        "boards": boards, "board": board,
    ]

    static let boards = """
        {{<layout}}{{$content}}
        <h1>Boards</h1>
        {{#hasBoards}}
        <ul class="cards" id="boards">
        {{#boards}}<li><a href="/boards/{{id}}"><strong>{{title}}</strong></a></li>{{/boards}}
        </ul>
        {{/hasBoards}}
        {{^hasBoards}}<p>No boards yet: create one below.</p>{{/hasBoards}}
        <h2>New board</h2>
        <form method="post" action="/boards" class="stack">
        <input type="hidden" name="csrf" value="{{csrf}}">
        <label for="title">Title</label>
        <input id="title" name="title" required maxlength="200">
        <button type="submit">Create board</button>
        </form>
        {{/content}}{{/layout}}
        """

    static let board = """
        {{<layout}}{{$content}}
        <h1>{{board.title}}</h1>
        <p class="muted">Drag cards within and across columns, and columns by their title; or use the arrows
        (keyboard: Tab to a card's arrows, Enter to move it).
        {{#archived}}<a href="/boards/{{board.id}}">Hide archived cards</a>{{/archived}}
        {{^archived}}<a href="/boards/{{board.id}}?archived">Show archived cards</a>{{/archived}}</p>
        <div class="columns reorder" id="columns">
        {{#columns}}
        <section class="column" data-move="/boards/{{board.id}}/columns/{{id}}/move" data-kind="column" draggable="true"
        data-order="{{order}}" aria-label="Column {{title}}">
        <h2>{{title}} <span class="muted">{{count}}</span></h2>
        <form method="post" action="/boards/{{board.id}}/columns/{{id}}/move" class="inline">
        <input type="hidden" name="csrf" value="{{csrf}}">
        {{#hasLeft}}<button type="submit" name="position" value="{{left}}" class="link" aria-label="Move column {{title}} left">←</button>{{/hasLeft}}
        {{#hasRight}}<button type="submit" name="position" value="{{right}}" class="link" aria-label="Move column {{title}} right">→</button>{{/hasRight}}
        </form>
        <ul class="cards" data-drop-column="{{id}}" data-count="{{total}}">
        {{#cards}}
        <li data-move="/boards/{{board.id}}/cards/{{id}}/move" data-kind="card" draggable="true" data-order="{{order}}"
        class="{{#isArchived}}archived{{/isArchived}}" id="card-{{id}}">
        <span class="title">{{title}}</span>
        <form method="post" action="/boards/{{board.id}}/cards/{{id}}/move" class="inline arrows">
        <input type="hidden" name="csrf" value="{{csrf}}">
        <input type="hidden" name="column" value="{{column}}">
        {{#hasUp}}<button type="submit" name="position" value="{{up}}" class="link" aria-label="Move {{title}} up">↑</button>{{/hasUp}}
        {{#hasDown}}<button type="submit" name="position" value="{{down}}" class="link" aria-label="Move {{title}} down">↓</button>{{/hasDown}}
        </form>
        {{#hasPrevious}}<form method="post" action="/boards/{{board.id}}/cards/{{id}}/move" class="inline arrows">
        <input type="hidden" name="csrf" value="{{csrf}}"><input type="hidden" name="column" value="{{previous}}">
        <button type="submit" class="link" aria-label="Move {{title}} to the previous column">←</button></form>{{/hasPrevious}}
        {{#hasNext}}<form method="post" action="/boards/{{board.id}}/cards/{{id}}/move" class="inline arrows">
        <input type="hidden" name="csrf" value="{{csrf}}"><input type="hidden" name="column" value="{{next}}">
        <button type="submit" class="link" aria-label="Move {{title}} to the next column">→</button></form>{{/hasNext}}
        {{#hasDescription}}<p class="description">{{{descriptionHTML}}}</p>{{/hasDescription}}
        <details class="edit"><summary>Details</summary>
        <form method="post" action="/boards/{{board.id}}/cards/{{id}}" class="stack">
        <input type="hidden" name="csrf" value="{{csrf}}">
        <label>Title <input name="title" required maxlength="200" value="{{title}}"></label>
        <label>Description <textarea name="description" rows="3">{{description}}</textarea></label>
        <button type="submit">Save</button>
        </form>
        <form method="post" action="/boards/{{board.id}}/cards/{{id}}/archive" class="inline">
        <input type="hidden" name="csrf" value="{{csrf}}">
        {{#isArchived}}<input type="hidden" name="archived" value="false">
        <button type="submit" class="link">Restore</button>{{/isArchived}}
        {{^isArchived}}<input type="hidden" name="archived" value="true">
        <button type="submit" class="link">Archive</button>{{/isArchived}}
        </form>
        <form method="post" action="/boards/{{board.id}}/cards/{{id}}/delete" class="inline">
        <input type="hidden" name="csrf" value="{{csrf}}">
        <details class="confirm"><summary class="link danger">Delete</summary>
        <button type="submit" class="danger small">Yes, delete</button></details>
        </form>
        </details>
        </li>
        {{/cards}}
        </ul>
        <form method="post" action="/boards/{{board.id}}/columns/{{id}}/cards" class="row add-card">
        <input type="hidden" name="csrf" value="{{csrf}}">
        <input name="title" required maxlength="200" aria-label="New card in {{title}}" placeholder="New card"{{#justAdded}} autofocus{{/justAdded}}>
        <button type="submit" class="small">Add</button>
        </form>
        </section>
        {{/columns}}
        </div>
        <form method="post" action="/boards/{{board.id}}/columns" class="row" id="add-column">
        <input type="hidden" name="csrf" value="{{csrf}}">
        <input name="title" required maxlength="200" aria-label="New column" placeholder="New column">
        <button type="submit" class="small">Add column</button>
        </form>
        <details class="edit"><summary>Rename or delete the board</summary>
        <form method="post" action="/boards/{{board.id}}/rename" class="row">
        <input type="hidden" name="csrf" value="{{csrf}}">
        <label>Title <input name="title" required maxlength="200" value="{{board.title}}"></label>
        <button type="submit" class="small">Rename</button>
        </form>
        <form method="post" action="/boards/{{board.id}}/delete" class="inline">
        <input type="hidden" name="csrf" value="{{csrf}}">
        <details class="confirm"><summary class="link danger">Delete this board</summary>
        <button type="submit" class="danger small">Yes, delete this board</button></details>
        </form>
        </details>
        {{/content}}{{/layout}}
        """

    static let lists = """
        {{<layout}}{{$content}}
        <h1>Lists</h1>
        {{#hasLists}}
        <ul class="cards reorder" id="lists" aria-label="Lists (drag to reorder, or use the arrows)">
        {{#lists}}
        <li draggable="true" data-move="/lists/{{id}}/move" data-order="{{order}}">
        <a href="/lists/{{id}}"><strong>{{name}}</strong></a>
        <span class="counts">{{count}} items</span>
        <form method="post" action="/lists/{{id}}/move" class="inline">
        <input type="hidden" name="csrf" value="{{csrf}}">
        {{#hasUp}}<button type="submit" name="position" value="{{up}}" class="link" aria-label="Move {{name}} up">↑</button>{{/hasUp}}
        {{#hasDown}}<button type="submit" name="position" value="{{down}}" class="link" aria-label="Move {{name}} down">↓</button>{{/hasDown}}
        </form>
        </li>
        {{/lists}}
        </ul>
        {{/hasLists}}
        {{^hasLists}}<p>No lists yet: create one below.</p>{{/hasLists}}
        <h2>New list</h2>
        <form method="post" action="/lists" class="stack">
        <input type="hidden" name="csrf" value="{{csrf}}">
        <label for="name">Name</label>
        <input id="name" name="name" required maxlength="100">
        <button type="submit">Create list</button>
        </form>
        {{/content}}{{/layout}}
        """

    static let list = """
        {{<layout}}{{$content}}
        <h1>{{list.name}}</h1>
        <form method="post" action="/lists/{{list.id}}/items" class="stack" id="add-item">
        <input type="hidden" name="csrf" value="{{csrf}}">
        <label for="title">New item</label>
        <input id="title" name="title" required maxlength="200" value="{{draft.title}}"{{#justAdded}} autofocus{{/justAdded}}>
        <label for="quantity">Quantity</label>
        <input id="quantity" name="quantity" inputmode="numeric" size="5" value="{{draft.quantity}}">
        <label for="description">Description</label>
        <textarea id="description" name="description" rows="2">{{draft.description}}</textarea>
        <button type="submit">Add item</button>
        </form>
        {{#hasItems}}
        <ul class="cards reorder" id="items" aria-label="Items (drag to reorder, or use the arrows)">
        {{#items}}
        <li draggable="true" data-move="/lists/{{list.id}}/items/{{id}}/move" data-order="{{order}}"
        class="{{#crossed}}crossed{{/crossed}}">
        <form method="post" action="/lists/{{list.id}}/items/{{id}}/cross" class="inline">
        <input type="hidden" name="csrf" value="{{csrf}}">
        <button type="submit" class="check" aria-pressed="{{crossed}}"
        aria-label="{{#crossed}}Uncross{{/crossed}}{{^crossed}}Cross out{{/crossed}} {{title}}">{{#crossed}}✓{{/crossed}}</button>
        </form>
        <span class="title">{{title}}</span>{{#hasQuantity}} <span class="muted">× {{quantity}}</span>{{/hasQuantity}}
        {{#hasImages}}<span class="muted image-count">{{imageLabel}}</span>{{/hasImages}}
        {{#hasDescription}}<p class="description">{{{descriptionHTML}}}</p>{{/hasDescription}}
        <form method="post" action="/lists/{{list.id}}/items/{{id}}/move" class="inline">
        <input type="hidden" name="csrf" value="{{csrf}}">
        {{#hasUp}}<button type="submit" name="position" value="{{up}}" class="link" aria-label="Move {{title}} up">↑</button>{{/hasUp}}
        {{#hasDown}}<button type="submit" name="position" value="{{down}}" class="link" aria-label="Move {{title}} down">↓</button>{{/hasDown}}
        </form>
        <details class="edit"><summary>Edit</summary>
        <form method="post" action="/lists/{{list.id}}/items/{{id}}" class="stack">
        <input type="hidden" name="csrf" value="{{csrf}}">
        <label>Title <input name="title" required maxlength="200" value="{{title}}"></label>
        <label>Quantity <input name="quantity" inputmode="numeric" size="5" value="{{quantity}}"></label>
        <label>Description <textarea name="description" rows="2">{{description}}</textarea></label>
        <button type="submit">Save</button>
        </form>
        {{#hasImages}}<ul class="images">{{#images}}<li><a href="/images/{{sha256}}" target="_blank"
        rel="noopener"><img src="/images/{{sha256}}/thumbnail" alt="Image of {{title}}" class="thumbnail" loading="lazy"></a>
        <form method="post" action="/lists/{{list.id}}/items/{{itemId}}/images/{{id}}/delete" class="inline">
        <input type="hidden" name="csrf" value="{{csrf}}">
        <details class="confirm"><summary class="link danger" aria-label="Remove this image">Remove</summary>
        <button type="submit" class="danger small">Yes, remove</button></details></form></li>{{/images}}</ul>{{/hasImages}}
        {{#canAddImage}}<form method="post" action="/lists/{{list.id}}/items/{{id}}/images?csrf={{csrf}}" enctype="multipart/form-data"
        class="row">
        <input type="hidden" name="csrf" value="{{csrf}}">
        <label>Add an image <input type="file" name="image" accept="image/jpeg,image/png,image/heic" required></label>
        <button type="submit" class="small">Upload</button>
        </form>{{/canAddImage}}
        {{#hasOtherLists}}
        <form method="post" action="/lists/{{list.id}}/items/{{id}}/move" class="row">
        <input type="hidden" name="csrf" value="{{csrf}}">
        <label>Move to <select name="list">{{#otherLists}}<option value="{{id}}">{{name}}</option>{{/otherLists}}</select></label>
        <button type="submit" class="small">Move</button>
        </form>
        {{/hasOtherLists}}
        <form method="post" action="/lists/{{list.id}}/items/{{id}}/delete" class="inline">
        <input type="hidden" name="csrf" value="{{csrf}}">
        <details class="confirm"><summary class="link danger">Delete</summary>
        <button type="submit" class="danger small">Yes, delete</button></details>
        </form>
        </details>
        </li>
        {{/items}}
        </ul>
        {{/hasItems}}
        {{^hasItems}}<p id="no-items">{{#isEmpty}}No items yet: add the first one above.{{/isEmpty}}{{^isEmpty}}Every item is crossed out.{{/isEmpty}}</p>{{/hasItems}}
        <form method="post" action="/lists/{{list.id}}/crossed-out" class="toggle">
        <input type="hidden" name="csrf" value="{{csrf}}">
        {{#showCrossedOut}}<input type="hidden" name="show" value="false">
        <button type="submit" class="link" id="toggle-crossed">Hide crossed-out items</button>{{/showCrossedOut}}
        {{^showCrossedOut}}<input type="hidden" name="show" value="true">
        <button type="submit" class="link" id="toggle-crossed">Show crossed-out items</button>{{/showCrossedOut}}
        </form>
        <details class="edit"><summary>Rename or delete the list</summary>
        <form method="post" action="/lists/{{list.id}}/rename" class="row">
        <input type="hidden" name="csrf" value="{{csrf}}">
        <label>Name <input name="name" required maxlength="100" value="{{list.name}}"></label>
        <button type="submit" class="small">Rename</button>
        </form>
        <form method="post" action="/lists/{{list.id}}/delete" class="inline">
        <input type="hidden" name="csrf" value="{{csrf}}">
        <details class="confirm"><summary class="link danger">Delete this list and its items</summary>
        <button type="submit" class="danger small">Yes, delete this list and its items</button></details>
        </form>
        </details>
        {{/content}}{{/layout}}
        """

    static let message = """
        {{<layout}}{{$content}}
        <h1>{{title}}</h1>
        <p class="error" role="alert">{{message}}</p>
        <p><a href="/">Back to Cardbox</a></p>
        {{/content}}{{/layout}}
        """

    static let layout = """
        <!doctype html>
        <html lang="en">
        <head>
        <meta charset="utf-8">
        <meta name="viewport" content="width=device-width, initial-scale=1">
        <title>{{title}} · Cardbox</title>
        <link rel="stylesheet" href="/static/app.css">
        <script src="/static/app.js" defer></script>
        </head>
        <body{{#live}} data-live="{{live}}"{{/live}}>
        <header>
        <a class="brand" href="/">Cardbox</a>
        {{#signedIn}}
        <nav aria-label="Main">
        <a href="/decks">Decks</a>
        <a href="/lists">Lists</a>
        <a href="/boards">Boards</a>
        <a href="/exchange">Import</a>
        <a href="/account">Account</a>
        <form method="post" action="/signout" class="inline">
        <input type="hidden" name="csrf" value="{{csrf}}">
        <button type="submit" class="link">Sign out</button>
        </form>
        </nav>
        {{/signedIn}}
        </header>
        <main id="main">
        <p class="notice" role="status" id="changed" hidden>This changed elsewhere. <a href="">Show the changes</a></p>
        {{#error}}<p class="error" role="alert">{{error}}{{#limitReached}}
        <a href="/account#plan" class="button small" id="upgrade">Upgrade</a>{{/limitReached}}</p>{{/error}}
        {{#notice}}<p class="notice" role="status">{{notice}}</p>{{/notice}}
        {{$content}}{{/content}}
        </main>
        </body>
        </html>
        """

    static let signIn = """
        {{<layout}}{{$content}}
        <h1>Sign in</h1>
        <form method="post" action="/signin" class="stack">
        <input type="hidden" name="timeZone" value="">
        <label for="user">Account name</label>
        <input id="user" name="user" autocomplete="username" required value="{{user}}">
        <label for="password">Password</label>
        <input id="password" name="password" type="password" autocomplete="current-password" required>
        <button type="submit">Sign in</button>
        </form>
        {{#canSignUp}}<p>New here? <a href="/signup" id="signup-link">Create an account</a></p>{{/canSignUp}}
        {{/content}}{{/layout}}
        """

    /// The form that makes an account, for the first run and for sign-up: it posts to the page it is on.
    static let newAccount = """
        <form method="post" class="stack">
        <input type="hidden" name="timeZone" value="">
        <label for="user">Account name</label>
        <input id="user" name="user" autocomplete="username" required value="{{user}}">
        <label for="password">Password (at least 8 characters)</label>
        <input id="password" name="password" type="password" autocomplete="new-password" required minlength="8">
        <button type="submit">Create the account</button>
        </form>
        """

    static let signUp = """
        {{<layout}}{{$content}}
        <h1>Create an account</h1>
        {{> newaccount}}
        <p>Have one? <a href="/signin">Sign in</a></p>
        {{/content}}{{/layout}}
        """

    static let setup = """
        {{<layout}}{{$content}}
        <h1>Welcome to Cardbox</h1>
        <p>This server has no account yet. Create the first one: it is the server's administrator.</p>
        {{#hasToken}}{{> newaccount}}{{/hasToken}}
        {{^hasToken}}<p id="setup-link">To create it, open the setup link that <code>cardbox serve</code> printed
        when it started (it ends in <code>/setup?token=…</code>).</p>{{/hasToken}}
        {{/content}}{{/layout}}
        """

    static let decks = """
        {{<layout}}{{$content}}
        <h1>Decks</h1>
        {{#limit}}
        <section class="limit" aria-label="Card limit">
        <div>
        <p>{{used}} of {{limit}} cards used{{#nearLimit}} — {{remaining}} left{{/nearLimit}}</p>
        <progress value="{{used}}" max="{{limit}}">{{used}} of {{limit}}</progress>
        </div>
        <a class="button small" href="/account#plan">Upgrade</a>
        </section>
        {{/limit}}
        {{#hasDecks}}
        <ul class="cards" id="decks">
        {{#decks}}
        <li>
        <a href="/decks/{{id}}"><strong>{{name}}</strong></a>
        <span class="muted">{{languages}}</span>
        <span class="counts">{{current}} cards · <span class="due">{{due}} due</span> · {{new}} new</span>
        {{#canStudy}}<a class="button small" href="/decks/{{id}}/study">Study</a>{{/canStudy}}
        </li>
        {{/decks}}
        </ul>
        {{/hasDecks}}
        {{^hasDecks}}<p>No decks yet: create one below, or start from a preset.</p>{{/hasDecks}}
        <h2>Start from a preset</h2>
        <ul class="cards" id="presets">
        {{#presets}}<li><strong>{{name}}</strong> <span class="muted">{{languages}} · {{count}} cards</span>
        <form method="post" action="/presets/{{slug}}" class="actions">
        <input type="hidden" name="csrf" value="{{csrf}}"><button type="submit" class="small">Add {{name}}</button></form></li>{{/presets}}
        </ul>
        <h2>New deck</h2>
        <form method="post" action="/decks" class="stack">
        <input type="hidden" name="csrf" value="{{csrf}}">
        <label for="name">Name</label>
        <input id="name" name="name" required maxlength="100">
        <div class="row">
        <span><label for="front">Language you learn (front)</label>
        <select id="front" name="front">{{#frontLanguages}}<option value="{{code}}"{{#selected}} selected{{/selected}}>{{name}}</option>{{/frontLanguages}}</select></span>
        <span><label for="back">Your language (back)</label>
        <select id="back" name="back">{{#backLanguages}}<option value="{{code}}"{{#selected}} selected{{/selected}}>{{name}}</option>{{/backLanguages}}</select></span>
        </div>
        <button type="submit">Create deck</button>
        </form>
        {{/content}}{{/layout}}
        """

    static let deck = """
        {{<layout}}{{$content}}
        <h1>{{deck.name}}</h1>
        <p class="muted">{{deck.languages}} · {{current}} cards ·
        {{due}} due · {{new}} new</p>
        <p class="row">{{#canStudy}}<a class="button" href="/decks/{{deck.id}}/study">Study now</a>{{/canStudy}}
        <a href="/decks/{{deck.id}}/stats" id="stats-link">Stats</a></p>
        <nav class="tabs" aria-label="The deck's lists">
        {{#tabs}}<a href="/decks/{{deck.id}}?tab={{name}}" id="tab-{{name}}"{{#selected}} aria-current="page"{{/selected}}>{{label}}
        <span class="muted">{{count}}</span></a>{{/tabs}}
        </nav>
        {{#isCurrent}}
        <h2 id="add-card">Add a card</h2>
        <form method="post" action="/decks/{{deck.id}}/cards" class="stack">
        <input type="hidden" name="csrf" value="{{csrf}}">
        <label for="front">Front (or a cloze text: &#123;&#123;c1::answer&#125;&#125; hides “answer”)</label>
        <input id="front" name="front" required value="{{draft.front}}"{{#justAdded}} autofocus{{/justAdded}}>
        <button type="button" class="secondary small" data-cloze-for="front" hidden>Make a deletion
        <kbd>Ctrl+Shift+C</kbd></button>
        <label for="back">Back (may wait: a card without one is incomplete)</label>
        <input id="back" name="back" value="{{draft.back}}">
        <label for="tags">Tags (separated by commas)</label>
        <input id="tags" name="tags" value="{{draft.tags}}">
        <button type="submit">Add card</button>
        </form>
        {{#hasDue}}<form method="post" action="/decks/{{deck.id}}/flows/archive-due" class="inline">
        <input type="hidden" name="csrf" value="{{csrf}}"><input type="hidden" name="tab" value="current">
        <button type="submit" class="secondary small">Archive due cards</button></form>{{/hasDue}}
        {{/isCurrent}}
        {{#filter}}
        <form method="get" action="/decks/{{deck.id}}" class="row filters" role="search">
        <input type="hidden" name="tab" value="{{tab}}">
        <label>Search <input name="q" value="{{q}}" type="search"></label>
        <label>Tag <select name="tag"><option value="">any</option>{{#tags}}<option{{#selected}} selected{{/selected}}>{{name}}</option>{{/tags}}</select></label>
        <label>Language <select name="language"><option value="">any</option>{{#languages}}<option value="{{code}}"{{#selected}} selected{{/selected}}>{{name}}</option>{{/languages}}</select></label>
        <label><input type="checkbox" name="favorites" value="1"{{#favorites}} checked{{/favorites}}> Favorites</label>
        <button type="submit" class="small">Filter</button>
        {{#isFiltered}}<a href="/decks/{{deck.id}}?tab={{tab}}">Clear</a>{{/isFiltered}}
        </form>
        {{/filter}}
        {{#isCurrent}}{{> cardlist}}{{/isCurrent}}
        {{#isArchived}}{{> cardlist}}{{/isArchived}}
        {{#isSuggestions}}
        {{#hasSuggestions}}
        <form method="post" action="/decks/{{deck.id}}/flows/clear-suggestions" class="inline">
        <input type="hidden" name="csrf" value="{{csrf}}"><input type="hidden" name="tab" value="suggestions">
        <button type="submit" class="secondary small">Clear all suggestions</button></form>
        <ul class="cards suggestions" id="suggestions">
        {{#suggestions}}
        <li id="suggestion-{{id}}">
        {{#hasImage}}<a href="/images/{{image}}"><img src="/images/{{image}}/thumbnail" alt="Picture for {{front}}"
        class="thumbnail" loading="lazy"></a>{{/hasImage}}
        <div><strong>{{front}}</strong> <span>{{back}}</span> <span class="tag">{{category}}</span>
        <p class="muted">{{context}}</p>
        <form method="post" action="/decks/{{deck.id}}/suggestions/{{id}}/accept" class="inline">
        <input type="hidden" name="csrf" value="{{csrf}}"><button type="submit">Accept</button></form>
        <form method="post" action="/decks/{{deck.id}}/suggestions/{{id}}/reject" class="inline">
        <input type="hidden" name="csrf" value="{{csrf}}"><button type="submit" class="secondary">Reject</button></form>
        <form method="post" action="/decks/{{deck.id}}/suggestions/{{id}}/skip" class="inline">
        <input type="hidden" name="csrf" value="{{csrf}}"><button type="submit" class="link">Skip</button></form>
        </div></li>
        {{/suggestions}}
        </ul>
        {{/hasSuggestions}}
        {{^hasSuggestions}}<p class="muted">No suggestions to review.</p>{{/hasSuggestions}}
        {{/isSuggestions}}
        {{#isWaiting}}
        <p class="muted">Suggestions waiting for their picture, and skipped ones (shown again when rejected
        suggestions are reset).</p>
        {{#hasWaiting}}<ul class="cards" id="waiting">{{#waiting}}<li><strong>{{front}}</strong> <span>{{back}}</span>
        <span class="tag">{{#skipped}}skipped{{/skipped}}{{^skipped}}waiting for a picture{{/skipped}}</span></li>{{/waiting}}</ul>{{/hasWaiting}}
        {{^hasWaiting}}<p>None.</p>{{/hasWaiting}}
        {{/isWaiting}}
        {{#isCurrent}}
        <details class="settings" id="deck-settings"{{#settingsOpen}} open{{/settingsOpen}}><summary>Deck settings</summary>
        <form method="post" action="/decks/{{deck.id}}/settings" class="stack">
        <input type="hidden" name="csrf" value="{{csrf}}">
        <label for="deck-name">Name</label>
        <input id="deck-name" name="name" required maxlength="100" value="{{deck.name}}">
        <label for="queued">Suggestions to keep queued (0: none; the server makes them in the background)</label>
        <input id="queued" name="queuedSuggestions" type="number" min="0" value="{{queuedSuggestions}}">
        {{#study}}<fieldset><legend>Study (FSRS)</legend>
        <label for="retention">Desired retention (0.7 to 0.99: how sure you want to be to remember a card when it comes due)</label>
        <input id="retention" name="desiredRetention" type="number" min="0.7" max="0.99" step="0.01" value="{{desiredRetention}}">
        <p class="muted" id="retention-advice">{{#recommendation}}Recommended: <strong>{{recommendation}}</strong>, the least study time per card memorized over a year of this deck (filled in: Save keeps it).{{/recommendation}}{{^recommendation}}<a href="/decks/{{deck.id}}/recommended-retention">Recommend a retention</a> (simulates a year of this deck's study; a few seconds).{{/recommendation}}</p>
        <label for="new-per-day">New cards a day</label>
        <input id="new-per-day" name="newCardsPerDay" type="number" min="0" value="{{newCardsPerDay}}">
        <label for="reviews-per-day">Reviews a day</label>
        <input id="reviews-per-day" name="reviewsPerDay" type="number" min="0" value="{{reviewsPerDay}}">
        <label for="learning-steps">Learning steps (e.g. 1m,10m)</label>
        <input id="learning-steps" name="learningSteps" value="{{learningSteps}}">
        <label for="relearning-steps">Relearning steps</label>
        <input id="relearning-steps" name="relearningSteps" value="{{relearningSteps}}">
        <label for="maximum-interval">Longest interval, in days</label>
        <input id="maximum-interval" name="maximumInterval" type="number" min="1" value="{{maximumInterval}}">
        <label><input type="checkbox" name="enableFuzz" value="true"{{#enableFuzz}} checked{{/enableFuzz}}> Spread due days a little (fuzz)</label>
        </fieldset>{{/study}}
        <button type="submit">Save</button>
        </form>
        <div id="fsrs-fit">
        {{#fit}}<p>Fitted to {{reviews}} reviews: log loss {{logLossBefore}} → {{logLossAfter}}, RMSE {{rmseBefore}} → {{rmseAfter}} (lower predicts your reviews better).</p>
        {{#improves}}<form method="post" action="/decks/{{deck.id}}/parameters" class="inline"><input type="hidden" name="csrf" value="{{csrf}}"><input type="hidden" name="parameters" value="{{parameters}}"><button type="submit">Keep the fitted parameters</button></form> <a href="/decks/{{deck.id}}">Discard</a>{{/improves}}
        {{^improves}}<p class="muted">They predict your reviews no better: the deck keeps its own.</p>{{/improves}}{{/fit}}
        {{^fit}}<form method="post" action="/decks/{{deck.id}}/optimize" class="inline"><input type="hidden" name="csrf" value="{{csrf}}"><button type="submit" class="secondary">Optimize</button></form>
        <span class="muted">fits FSRS to this deck's reviews (400 or more, a day or more apart) and shows the old and new fit before anything is kept.</span>{{/fit}}
        </div>
        <form method="post" action="/decks/{{deck.id}}/flows/delete-all-cards" class="inline">
        <input type="hidden" name="csrf" value="{{csrf}}"><input type="hidden" name="tab" value="current">
        <details class="confirm"><summary class="link danger">Delete all its cards (the deck stays)</summary>
        <button type="submit" class="danger small">Yes, delete all its cards (the deck stays)</button></details></form>
        <form method="post" action="/decks/{{deck.id}}/delete" class="inline">
        <input type="hidden" name="csrf" value="{{csrf}}">
        <details class="confirm"><summary class="link danger">Delete this deck and its cards</summary>
        <button type="submit" class="danger small">Yes, delete this deck and its cards</button></details></form>
        </details>
        {{/isCurrent}}
        {{#isRejected}}
        {{#hasRejected}}
        <form method="post" action="/decks/{{deck.id}}/flows/reset-rejected" class="inline">
        <input type="hidden" name="csrf" value="{{csrf}}"><input type="hidden" name="tab" value="rejected">
        <button type="submit" class="secondary small">Reset rejected suggestions</button></form>
        <ul class="cards" id="rejected">{{#rejected}}<li><strong>{{front}}</strong> <span class="muted">{{date}}</span></li>{{/rejected}}</ul>
        {{/hasRejected}}
        {{^hasRejected}}<p>No rejected suggestions.</p>{{/hasRejected}}
        {{/isRejected}}
        {{/content}}{{/layout}}
        """

    /// A page of the current or archived cards, each with what can be done to it there.
    static let cardlist = """
        {{#hasCards}}
        <ul class="cards" id="cards">
        {{{cardRows}}}
        </ul>
        {{/hasCards}}
        {{^hasCards}}<p>No cards{{#filter.isFiltered}} match{{/filter.isFiltered}}{{#isArchived}} archived{{/isArchived}}.</p>{{/hasCards}}
        {{#paging}}
        <nav class="row" aria-label="Pages of cards">
        {{#hasPrevious}}<a href="{{previous}}">Previous</a>{{/hasPrevious}}
        <span class="muted">page {{page}} of {{pages}}</span>
        {{#hasNext}}<a href="{{next}}" id="next-page">Next</a>{{/hasNext}}
        </nav>
        {{/paging}}
        """

    static let card = """
        {{<layout}}{{$content}}
        <p><a href="/decks/{{deck.id}}">← {{deck.name}}</a></p>
        <h1>Edit card</h1>
        <form method="post" action="/decks/{{deck.id}}/cards/{{card.id}}?csrf={{csrf}}" enctype="multipart/form-data" class="stack"
        id="card-editor">
        <input type="hidden" name="csrf" value="{{csrf}}">
        <label for="front">Front{{#card.isCloze}} (the cloze text, shared by its cards){{/card.isCloze}}</label>
        <textarea id="front" name="front" required rows="2">{{card.front}}</textarea>
        <button type="button" class="secondary small" data-cloze-for="front" hidden>Make a deletion
        <kbd>Ctrl+Shift+C</kbd></button>
        <label for="back">Back (may wait: a card without one is incomplete)</label>
        <textarea id="back" name="back" rows="3">{{card.back}}</textarea>
        <div class="row">
        <label for="frontLanguage">Front language</label>
        <select id="frontLanguage" name="frontLanguage">{{#frontLanguages}}<option value="{{code}}"{{#selected}} selected{{/selected}}>{{name}}</option>{{/frontLanguages}}</select>
        <label for="backLanguage">Back language</label>
        <select id="backLanguage" name="backLanguage">{{#backLanguages}}<option value="{{code}}"{{#selected}} selected{{/selected}}>{{name}}</option>{{/backLanguages}}</select>
        </div>
        <label for="cardType">Type</label>
        <input id="cardType" name="cardType" value="{{card.cardType}}" list="card-types" required>
        <datalist id="card-types">{{#cardTypes}}<option value="{{.}}">{{/cardTypes}}</datalist>
        <label for="notes">Notes</label>
        <textarea id="notes" name="notes" rows="3">{{card.notes}}</textarea>
        <label for="tags">Tags (separated by commas; a new name makes a new tag)</label>
        <input id="tags" name="tags" value="{{card.tags}}" list="known-tags">
        <datalist id="known-tags">{{#knownTags}}<option value="{{.}}">{{/knownTags}}</datalist>
        <label><input type="checkbox" name="isFavorite" value="true" id="isFavorite"{{#card.isFavorite}} checked{{/card.isFavorite}}>
        Favorite</label>
        <fieldset><legend>Picture</legend>
        {{#hasImage}}<a href="/images/{{image}}"><img src="/images/{{image}}/thumbnail" alt="The card's picture"
        class="thumbnail" id="current-image"></a>
        <label><input type="checkbox" name="removeImage" value="true" id="removeImage"> Remove the picture</label>{{/hasImage}}
        <label for="image">{{#hasImage}}Replace it with{{/hasImage}}{{^hasImage}}Add a picture{{/hasImage}}
        (JPEG, PNG or HEIC, at most 5 MB)</label>
        <input type="file" id="image" name="image" accept="image/jpeg,image/png,image/heic" data-preview="image-preview">
        <img id="image-preview" alt="The picture chosen" class="thumbnail" hidden>
        </fieldset>
        <button type="submit">Save</button>
        </form>
        {{/content}}{{/layout}}
        """

    static let exchange = """
        {{<layout}}{{$content}}
        <h1>Import and export</h1>
        {{#report}}
        <section class="report" id="report" role="status" aria-label="Import report">
        <h2>Imported</h2>
        <ul>{{#lines}}<li>{{.}}</li>{{/lines}}</ul>
        </section>
        {{/report}}
        <h2>Import a file</h2>
        <p class="muted">An Anki package (.apkg), cards as CSV or TSV (Anki's plain text), ListAll JSON, a
        Trello board, or a Cardbox backup (into an account with nothing in it). The format is told from the
        file. All of it comes in, or nothing: a problem anywhere is shown here.</p>
        <form method="post" action="/exchange/import?csrf={{csrf}}" enctype="multipart/form-data" class="stack" id="import">
        <input type="hidden" name="csrf" value="{{csrf}}">
        <label for="file">File (at most 64 MB)</label>
        <input type="file" id="file" name="file" required>
        <label for="import-format">Format</label>
        <select id="import-format" name="format">{{#formats}}<option value="{{value}}"{{#selected}} selected{{/selected}}>{{label}}</option>{{/formats}}</select>
        <label for="import-deck">Deck for CSV/TSV cards without a deck column (an existing one, or a new name)</label>
        <input id="import-deck" name="deck" list="deck-names" value="{{typedDeck}}">
        <datalist id="deck-names">{{#decks}}<option value="{{name}}">{{/decks}}</datalist>
        <div class="row">
        <label for="import-front">New decks' front language</label>
        <select id="import-front" name="front"><option value="">(none: only decks that exist)</option>{{#frontLanguages}}<option value="{{code}}"{{#selected}} selected{{/selected}}>{{name}}</option>{{/frontLanguages}}</select>
        <label for="import-back">and back language</label>
        <select id="import-back" name="back">{{#backLanguages}}<option value="{{code}}"{{#selected}} selected{{/selected}}>{{name}}</option>{{/backLanguages}}</select>
        </div>
        <label for="on-duplicate">Records already here</label>
        <select id="on-duplicate" name="onDuplicate">{{#duplicates}}<option value="{{value}}"{{#selected}} selected{{/selected}}>{{label}}</option>{{/duplicates}}</select>
        <button type="submit">Import</button>
        </form>
        <h2>Export</h2>
        <ul class="cards" id="exports">
        <li><a href="/exchange/export/backup" download>Backup of everything</a> <span class="muted">(Cardbox JSON)</span></li>
        <li><a href="/exchange/export/listall" download>All lists</a> <span class="muted">(ListAll JSON)</span></li>
        {{#decks}}<li>{{name}}: <a href="/exchange/export/tsv?deck={{id}}" download>TSV</a> ·
        <a href="/exchange/export/csv?deck={{id}}" download>CSV</a> <span class="muted">(Anki's plain text)</span></li>{{/decks}}
        </ul>
        {{/content}}{{/layout}}
        """

    static let stats = """
        {{<layout}}{{$content}}
        <p><a href="/decks/{{deck.id}}">← {{deck.name}}</a></p>
        <h1>Stats: {{deck.name}}</h1>
        <form method="get" action="/decks/{{deck.id}}/stats" class="row">
        <label for="days">Span</label>
        <select id="days" name="days">{{#spans}}<option value="{{days}}"{{#selected}} selected{{/selected}}>{{days}} days</option>{{/spans}}</select>
        <button type="submit" class="small">Show</button>
        </form>
        <h2>Reviews per day</h2>
        <p class="muted">Reviews in the last {{days}} study days: {{reviewTotal}}</p>
        {{{reviewsChart}}}
        <h2>Retention</h2>
        <p class="muted" id="retention">Reviews remembered — last {{days}} days: {{retentionRecent}}; all time: {{retentionAll}}</p>
        {{{retentionChart}}}
        <h2>Coming due</h2>
        <p class="muted">Cards due in the next {{days}} study days (overdue ones count today): {{forecastTotal}}</p>
        {{{forecastChart}}}
        <h2>Workload ahead</h2>
        {{#workload}}<p class="muted" id="workload">Simulated at desired retention {{retention}} for the next {{days}} days: {{reviews}} reviews, {{newCards}} new cards, {{hours}} hours; {{memorized}} cards memorized at the end.</p>{{/workload}}
        {{{workloadChart}}}
        <h2>Cards</h2>
        <ul class="states" id="card-states">{{#cardCounts}}<li><strong>{{count}}</strong> {{name}}</li>{{/cardCounts}}</ul>
        {{/content}}{{/layout}}
        """

    static let study = """
        {{<layout}}{{$content}}
        <h1>{{deck.name}}</h1>
        {{#next}}
        <p class="remaining" id="remaining"><span class="new" title="New">{{remaining.new}} new</span>
        <span class="learning" title="Learning">{{remaining.learning}} learning</span>
        <span class="review" title="Review">{{remaining.review}} to review</span></p>
        <article class="study" id="study">
        <p class="front{{#card.isCloze}} cloze-question{{/card.isCloze}}" id="front">{{{card.question}}}</p>
        <details id="answer">
        <summary class="button show-answer">Show answer <kbd>space</kbd></summary>
        {{#card.isCloze}}<p class="front" id="cloze-answer">{{{card.revealed}}}</p>{{/card.isCloze}}
        <hr>
        <p class="back" id="back">{{card.back}}</p>
        {{#hasNotes}}<p class="muted">{{card.notes}}</p>{{/hasNotes}}
        <form method="post" action="/decks/{{deck.id}}/study" class="ratings">
        <input type="hidden" name="csrf" value="{{csrf}}">
        <input type="hidden" name="card" value="{{card.id}}">
        {{#buttons}}
        <button type="submit" name="rating" value="{{rating}}" data-key="{{rating}}" class="rating-{{rating}}">{{label}}
        <small>{{interval}}</small></button>
        {{/buttons}}
        </form>
        </details>
        </article>
        {{/next}}
        {{^next}}
        <p id="done">Nothing left to study in this deck today.</p>
        <p><a href="/decks/{{deck.id}}">Back to the deck</a></p>
        {{/next}}
        {{#canUndo}}
        <form method="post" action="/decks/{{deck.id}}/study/undo" class="inline">
        <input type="hidden" name="csrf" value="{{csrf}}">
        <button type="submit" class="link" data-key="u">Undo the last answer <kbd>u</kbd></button>
        </form>
        {{/canUndo}}
        {{/content}}{{/layout}}
        """

    static let account = """
        {{<layout}}{{$content}}
        <h1>Account</h1>
        <p>Signed in as <strong>{{account.name}}</strong>.</p>
        <h2 id="plan">Plan</h2>
        <p>{{planText}}</p>
        {{#free}}<p class="muted">The server's administrator moves an account to the premium plan:
        <code>cardbox admin user set-plan {{account.name}} premium</code>.</p>{{/free}}
        <h2>Devices and their sync</h2>
        <ul class="cards" id="devices">
        {{#devices}}
        <li><strong>{{name}}</strong>
        <span class="muted">{{#current}}this browser · {{/current}}last seen {{lastSeen}}{{#revoked}} ·
        signed out{{/revoked}}</span>
        {{#sync}}<span class="sync">last sync {{last}} ·
        {{#upToDate}}up to date{{/upToDate}}{{^upToDate}}changes made since wait for its next sync{{/upToDate}}</span>
        {{#hasError}}<span class="error" role="status">Its changes wait: {{error}} ({{errorAt}})</span>{{/hasError}}{{/sync}}
        {{^revoked}}{{^current}}
        <form method="post" action="/account/devices/{{id}}/revoke" class="inline">
        <input type="hidden" name="csrf" value="{{csrf}}">
        <button type="submit" class="link">Sign out this device</button>
        </form>
        {{/current}}{{/revoked}}
        </li>
        {{/devices}}
        </ul>
        {{/content}}{{/layout}}
        """
}
