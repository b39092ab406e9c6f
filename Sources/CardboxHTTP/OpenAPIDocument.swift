import CardboxCore

/// The API's description, served at `/openapi.yaml`; CI checks the server against it with
/// schemathesis (`scripts/api-check.sh`): every answer has a documented status and shape.
enum OpenAPIDocument {
    /// Each documented path template's segments and methods, read from the document once.
    private static let operations: [(segments: [Substring], methods: [String])] = {
        var operations: [(segments: [Substring], methods: [String])] = []
        for line in yaml.split(separator: "\n") {
            if line.hasPrefix("  /"), line.hasSuffix(":"), !line.hasPrefix("   ") {
                let template = line.dropFirst(2).dropLast()
                operations.append((template.split(separator: "/", omittingEmptySubsequences: false), []))
            } else if line.hasPrefix("    "), !line.hasPrefix("     "), line.hasSuffix(":"), !operations.isEmpty {
                let method = line.trimmingCharacters(in: .whitespaces).dropLast().uppercased()
                if ["GET", "POST", "PUT", "PATCH", "DELETE"].contains(method) {
                    operations[operations.count - 1].methods.append(method)
                }
            }
        }
        return operations
    }()

    /// The methods the document gives `path`: of the templates it matches, those with the most
    /// literal segments. Nil for a path it does not describe.
    static func methods(for path: String) -> [String]? {
        let parts = path.split(separator: "/", omittingEmptySubsequences: false)
        var best: (literals: Int, methods: [String])?
        for operation in operations where operation.segments.count == parts.count {
            var literals = 0
            let matches = zip(operation.segments, parts).allSatisfy { template, part in
                if template.hasPrefix("{") { return !part.isEmpty }
                literals += 1
                return template == part
            }
            guard matches else { continue }
            if literals > best?.literals ?? -1 {
                best = (literals, operation.methods)
            } else if literals == best?.literals {
                best?.methods += operation.methods
            }
        }
        return best.map { Array(Set($0.methods)).sorted() }
    }

    static let yaml = """
        openapi: 3.1.0
        info:
          title: Cardbox server
          version: "1"
          description: >-
            Accounts, device sessions and offline-first sync of change sets. Every route under /v1
            but sign-up and sign-in needs a device token (Authorization: Bearer TOKEN) and works on
            that token's account only. The web app's actions are under /api/v1, with a device token or
            the browser's session cookie (then a request that changes something carries the page's
            CSRF token in X-CSRF-Token). Every error is JSON: {"error": "..."}.
        servers:
          - url: /
        components:
          securitySchemes:
            deviceToken:
              type: http
              scheme: bearer
          schemas:
            Error:
              type: object
              required: [error]
              properties:
                error: {type: string}
            Account:
              type: object
              required: [id, name, plan, createdAt]
              properties:
                id: {type: string, format: uuid}
                name: {type: string}
                plan: {type: string, enum: [free, premium]}
                createdAt: {type: string, format: date-time}
            Device:
              type: object
              required: [id, name, createdAt]
              properties:
                id: {type: string, format: uuid}
                name: {type: string}
                createdAt: {type: string, format: date-time}
                lastSeenAt: {type: string, format: date-time}
                revokedAt: {type: string, format: date-time}
            Credentials:
              type: object
              required: [user, password]
              properties:
                user: {type: string, pattern: "^[A-Za-z0-9._@-]{1,64}$"}
                password: {type: string, minLength: 8, maxLength: 1024}
            SignIn:
              type: object
              required: [user, password, device]
              properties:
                user: {type: string}
                password: {type: string}
                device: {type: string, minLength: 1, maxLength: 100}
            ChangeSet:
              type: object
              description: The change set's wire form (docs/sync.md), format cardbox-changes version 1.
              required: [format, version, registry, accountId, replicaId, clocks, rows, tombstones]
              properties:
                format: {const: cardbox-changes}
                version: {const: 1}
                registry: {const: 1}
                accountId: {type: string, format: uuid}
                replicaId: {type: string}
                clocks:
                  type: array
                  items:
                    type: array
                    prefixItems: [{type: integer}, {type: string}]
                rows:
                  type: array
                  items:
                    type: object
                    required: [entity, id, created, fields]
                    properties:
                      entity: {enum: [account, setting, deck, card, tag, cardTag, suggestion, rejectedSuggestion, reviewLog, itemList, item, itemImage, board, boardColumn, boardCard]}
                      id: {type: string}
                      created: {type: integer}
                      fields: {type: object}
                tombstones:
                  type: array
                  items:
                    type: object
                    required: [entity, id, clock]
                    properties:
                      entity: {enum: [account, setting, deck, card, tag, cardTag, suggestion, rejectedSuggestion, reviewLog, itemList, item, itemImage, board, boardColumn, boardCard]}
                      id: {type: string}
                      clock: {type: integer}
            Deck:
              type: object
              required: [id, name, frontLanguage, backLanguage, queuedSuggestions, createdAt, modifiedAt]
              properties:
                id: {type: string, format: uuid}
                name: {type: string}
                frontLanguage: {type: string}
                backLanguage: {type: string}
                queuedSuggestions: {type: integer}
                createdAt: {type: string, format: date-time}
                modifiedAt: {type: string, format: date-time}
            Record:
              description: A list, item, image, board, column or device, as its JSON (every one has an id).
              type: object
              required: [id]
              properties:
                id: {type: string}
            Card:
              type: object
              required: [id, deckId, front, back, cardType, notes, tags, isFavorite, isArchived, state, reps, lapses]
              properties:
                id: {type: string, format: uuid}
                deckId: {type: string, format: uuid}
                front: {type: string}
                back: {type: string}
                cardType: {type: string}
                notes: {type: string}
                tags: {type: array, items: {type: string}}
                isFavorite: {type: boolean}
                isArchived: {type: boolean}
                state: {enum: [new, learning, review, relearning]}
                dueAt: {type: [string, "null"], format: date-time}
                reps: {type: integer}
                lapses: {type: integer}
                clozeNumber: {type: [integer, "null"], minimum: 1, maximum: 999, description: The deletion a cloze card studies.}
            Suggestion:
              type: object
              required: [id, deckId, front, back, cardType, context, category, isVisible, isHidden, createdAt]
              properties:
                id: {type: string, format: uuid}
                deckId: {type: string, format: uuid}
                front: {type: string}
                back: {type: string}
                cardType: {type: string}
                imagePrompt: {type: [string, "null"]}
                context: {type: string}
                category: {enum: [related_vocabulary, usage_examples, opposites, progressive_complexity]}
                isVisible: {type: boolean}
                isHidden: {type: boolean}
                imageHash: {type: [string, "null"]}
                createdAt: {type: string, format: date-time}
            DeckCounts:
              type: object
              required: [currentCards, archivedCards, dueCards, visibleSuggestions, invisibleSuggestions, rejectedSuggestions]
              properties:
                currentCards: {type: integer}
                archivedCards: {type: integer}
                dueCards: {type: integer}
                visibleSuggestions: {type: integer}
                invisibleSuggestions: {type: integer}
                rejectedSuggestions: {type: integer}
            StudyCounts:
              type: object
              description: What is left to study today in each part of the queue.
              required: [learning, review, new]
              properties:
                learning: {type: integer}
                review: {type: integer}
                new: {type: integer}
            Language:
              description: An ISO 639-1 code.
              enum: [\(Language.codes.joined(separator: ", "))]
            CardBody:
              type: object
              required: [front]
              properties:
                front:
                  type: string
                  minLength: 1
                  maxLength: 40000
                  pattern: "\\\\S"
                  description: At most 10,000 characters (grapheme clusters) and 40,000 Unicode scalars.
                back:
                  type: string
                  maxLength: 200000
                  description: >-
                    May be empty (an incomplete card). At most 50,000 characters and 200,000 Unicode scalars.
                notes: {type: string, maxLength: 200000, description: "At most 50,000 characters."}
                tags:
                  type: array
                  items:
                    type: string
                    minLength: 1
                    maxLength: 200
                    pattern: "\\\\S"
                    description: At most 50 characters and 200 Unicode scalars.
          requestBodies:
            ChangeSet:
              required: true
              content:
                application/json:
                  schema: {$ref: "#/components/schemas/ChangeSet"}
          parameters:
            Batch:
              name: batch
              in: query
              required: true
              description: The change set's id; a batch sent again is answered, not applied again.
              schema: {type: string, format: uuid}
            After:
              name: after
              in: query
              description: The cursor to read after (0, everything).
              schema: {type: integer, format: int64, minimum: 0, maximum: 9223372036854775807, default: 0}
            Limit:
              name: limit
              in: query
              description: The most records in the page.
              schema: {type: integer, minimum: 1, maximum: 5000, default: 5000}
            Deck:
              name: deck
              in: path
              required: true
              description: The deck's id.
              schema: {type: string}
            SuggestionId:
              name: suggestion
              in: path
              required: true
              description: The suggestion's id.
              schema: {type: string}
            Review:
              name: review
              in: path
              required: true
              description: accept (it becomes a card), reject (never suggested again) or skip (hidden until rejected suggestions are reset).
              schema: {enum: [accept, reject, skip]}
            Sha256:
              name: sha256
              in: path
              required: true
              description: The image's SHA-256, 64 lowercase hex digits.
              schema: {type: string}
          responses:
            Conflict:
              description: A record of that name exists already (a deck's name is unique in its account).
              content:
                application/json:
                  schema: {$ref: "#/components/schemas/Error"}
            NotFound:
              description: No such record in the caller's account.
              content:
                application/json:
                  schema: {$ref: "#/components/schemas/Error"}
            BadRequest:
              description: The request is malformed; nothing changed.
              content:
                application/json:
                  schema: {$ref: "#/components/schemas/Error"}
            Unauthorized:
              description: No valid device token, or a wrong user name or password.
              content:
                application/json:
                  schema: {$ref: "#/components/schemas/Error"}
            Forbidden:
              description: Not allowed (closed sign-up; a push past the plan's card limit).
              content:
                application/json:
                  schema: {$ref: "#/components/schemas/Error"}
            TooLarge:
              description: The body is larger than the server takes.
              content:
                application/json:
                  schema: {$ref: "#/components/schemas/Error"}
            Throttled:
              description: Too many failed sign-ins for this name, or too many requests for this account; try again after Retry-After seconds.
              headers:
                Retry-After:
                  schema: {type: integer}
              content:
                application/json:
                  schema: {$ref: "#/components/schemas/Error"}
        paths:
          /health:
            get:
              summary: Whether the server is up.
              responses:
                "200":
                  description: Up.
                  content:
                    application/json:
                      schema:
                        type: object
                        required: [status]
                        properties:
                          status: {const: ok}
          /metrics:
            get:
              summary: Prometheus metrics.
              responses:
                "200":
                  description: Metrics in Prometheus's text format.
                  content:
                    text/plain:
                      schema: {type: string}
          /openapi.yaml:
            get:
              summary: This document.
              responses:
                "200":
                  description: The OpenAPI document.
                  content:
                    application/yaml:
                      schema: {type: string}
          /v1/accounts:
            post:
              summary: Create an account (servers started with --open-signup).
              requestBody:
                required: true
                content:
                  application/json:
                    schema: {$ref: "#/components/schemas/Credentials"}
              responses:
                "201":
                  description: Created.
                  content:
                    application/json:
                      schema:
                        type: object
                        required: [account]
                        properties:
                          account: {$ref: "#/components/schemas/Account"}
                "400": {$ref: "#/components/responses/BadRequest"}
                "403": {$ref: "#/components/responses/Forbidden"}
                "409":
                  description: The name is taken.
                  content:
                    application/json:
                      schema: {$ref: "#/components/schemas/Error"}
                "413": {$ref: "#/components/responses/TooLarge"}
          /v1/sessions:
            post:
              summary: Sign a device in; the token is shown only here.
              requestBody:
                required: true
                content:
                  application/json:
                    schema: {$ref: "#/components/schemas/SignIn"}
              responses:
                "201":
                  description: Signed in.
                  content:
                    application/json:
                      schema:
                        type: object
                        required: [token, account, device]
                        properties:
                          token: {type: string}
                          account: {$ref: "#/components/schemas/Account"}
                          device: {$ref: "#/components/schemas/Device"}
                "400": {$ref: "#/components/responses/BadRequest"}
                "401": {$ref: "#/components/responses/Unauthorized"}
                "429": {$ref: "#/components/responses/Throttled"}
                "413": {$ref: "#/components/responses/TooLarge"}
          /v1/sessions/current:
            delete:
              summary: Sign this device out (revokes its token).
              security: [{deviceToken: []}]
              responses:
                "204": {description: Signed out.}
                "401": {$ref: "#/components/responses/Unauthorized"}
                "429": {$ref: "#/components/responses/Throttled"}
          /v1/account:
            get:
              summary: The caller's account (with its plan) and device.
              security: [{deviceToken: []}]
              responses:
                "200":
                  description: The account and device.
                  content:
                    application/json:
                      schema:
                        type: object
                        required: [account, device]
                        properties:
                          account: {$ref: "#/components/schemas/Account"}
                          device: {$ref: "#/components/schemas/Device"}
                "401": {$ref: "#/components/responses/Unauthorized"}
                "429": {$ref: "#/components/responses/Throttled"}
          /v1/sync/push:
            post:
              summary: Merge a change set into the account; a batch id seen before is answered, not applied again.
              security: [{deviceToken: []}]
              parameters:
                - $ref: "#/components/parameters/Batch"
                - name: heldBack
                  in: query
                  description: >-
                    The change set is what a push refused for the card limit held but its new cards, which
                    still wait on the device: the device's refusal stays shown on the account page.
                  schema: {type: boolean, default: false}
              requestBody: {$ref: "#/components/requestBodies/ChangeSet"}
              responses:
                "200":
                  description: Merged (or a retry, answered with the first receipt).
                  content:
                    application/json:
                      schema:
                        type: object
                        required: [cursor, retry, previousCursor]
                        properties:
                          cursor: {type: integer, minimum: 0}
                          retry: {type: boolean}
                          previousCursor:
                            type: [integer, "null"]
                            minimum: 0
                            description: >-
                              The account's cursor just before this push (null for a retry). When it is the
                              cursor the pusher holds everything up to, nobody else pushed in between, and the
                              pusher holds everything up to `cursor`.
                "400": {$ref: "#/components/responses/BadRequest"}
                "401": {$ref: "#/components/responses/Unauthorized"}
                "429": {$ref: "#/components/responses/Throttled"}
                "403": {$ref: "#/components/responses/Forbidden"}
                "413": {$ref: "#/components/responses/TooLarge"}
          /v1/sync/exchange:
            post:
              summary: >-
                A push and the first page of a pull in one request (a device's usual sync): merge the change set,
                then answer the records changed after a cursor. A refused push refuses the whole request.
              security: [{deviceToken: []}]
              parameters:
                - $ref: "#/components/parameters/Batch"
                - $ref: "#/components/parameters/After"
                - $ref: "#/components/parameters/Limit"
              requestBody: {$ref: "#/components/requestBodies/ChangeSet"}
              responses:
                "200":
                  description: Merged (or a retry), and one page after the cursor.
                  content:
                    application/json:
                      schema:
                        type: object
                        required: [changes, cursor, hasMore, plan, pushed, retry]
                        properties:
                          changes: {$ref: "#/components/schemas/ChangeSet"}
                          cursor: {type: integer, minimum: 0}
                          hasMore: {type: boolean}
                          plan: {enum: [free, premium]}
                          pushed: {type: integer, minimum: 0}
                          retry: {type: boolean}
                "400": {$ref: "#/components/responses/BadRequest"}
                "401": {$ref: "#/components/responses/Unauthorized"}
                "429": {$ref: "#/components/responses/Throttled"}
                "403": {$ref: "#/components/responses/Forbidden"}
                "413": {$ref: "#/components/responses/TooLarge"}
          /v1/sync/pull:
            get:
              summary: The records changed after a cursor, oldest first, in pages.
              security: [{deviceToken: []}]
              parameters:
                - $ref: "#/components/parameters/After"
                - $ref: "#/components/parameters/Limit"
              responses:
                "200":
                  description: One page.
                  content:
                    application/json:
                      schema:
                        type: object
                        required: [changes, cursor, hasMore, plan]
                        properties:
                          changes: {$ref: "#/components/schemas/ChangeSet"}
                          cursor: {type: integer, minimum: 0}
                          hasMore: {type: boolean}
                          plan: {enum: [free, premium]}
                "400": {$ref: "#/components/responses/BadRequest"}
                "401": {$ref: "#/components/responses/Unauthorized"}
                "429": {$ref: "#/components/responses/Throttled"}
          /v1/sync/snapshot:
            get:
              summary: >-
                The caller's account as one store file (SQLite), for a device that holds nothing yet; then it
                pulls after the cursor the Cardbox-Cursor header names.
              security: [{deviceToken: []}]
              responses:
                "200":
                  description: The store file.
                  headers:
                    Cardbox-Cursor:
                      description: The sync-state cursor the file holds everything up to.
                      required: true
                      schema: {type: integer, minimum: 0}
                    Cardbox-SHA256:
                      description: The file's SHA-256, lowercase hex; the device checks what arrived against it.
                      required: true
                      schema: {type: string, pattern: "^[0-9a-f]{64}$"}
                    Cardbox-Account-Cursor:
                      description: >-
                        The account's cursor when the request came. When Cardbox-Cursor is at least this, the file
                        holds everything pushed before the request and is the sync's pull.
                      required: true
                      schema: {type: integer, minimum: 0}
                    Cardbox-Plan:
                      description: The account's plan, as a page of a pull says it.
                      required: true
                      schema: {type: string, enum: [free, premium]}
                  content:
                    application/vnd.sqlite3:
                      schema: {type: string, format: binary}
                "401": {$ref: "#/components/responses/Unauthorized"}
                "404":
                  description: This server keeps no copies of accounts; pull every record instead.
                  content:
                    application/json:
                      schema: {$ref: "#/components/schemas/Error"}
                "429": {$ref: "#/components/responses/Throttled"}
          /v1/images/{sha256}:
            parameters:
              - name: sha256
                in: path
                required: true
                schema: {type: string, pattern: "^[0-9a-f]{64}$"}
            put:
              summary: Upload an image's bytes (JPEG, PNG or HEIC by content, at most 5 MB) under their SHA-256.
              security: [{deviceToken: []}]
              requestBody:
                required: true
                content:
                  application/octet-stream:
                    schema: {type: string, format: binary}
              responses:
                "201":
                  description: Stored (or already held).
                  content:
                    application/json:
                      schema:
                        type: object
                        required: [sha256, mimeType, byteCount]
                        properties:
                          sha256: {type: string}
                          mimeType: {enum: [image/jpeg, image/png, image/heic]}
                          byteCount: {type: integer}
                "400": {$ref: "#/components/responses/BadRequest"}
                "401": {$ref: "#/components/responses/Unauthorized"}
                "429": {$ref: "#/components/responses/Throttled"}
                "413": {$ref: "#/components/responses/TooLarge"}
            get:
              summary: An image's bytes.
              security: [{deviceToken: []}]
              responses:
                "200":
                  description: The bytes.
                  content:
                    image/jpeg:
                      schema: {type: string, format: binary}
                    image/png:
                      schema: {type: string, format: binary}
                    image/heic:
                      schema: {type: string, format: binary}
                "400": {$ref: "#/components/responses/BadRequest"}
                "401": {$ref: "#/components/responses/Unauthorized"}
                "429": {$ref: "#/components/responses/Throttled"}
                "404":
                  description: The account holds no such image.
                  content:
                    application/json:
                      schema: {$ref: "#/components/schemas/Error"}
          /v1/images/missing:
            post:
              summary: Which of these images the server has no bytes for.
              security: [{deviceToken: []}]
              requestBody:
                required: true
                content:
                  application/json:
                    schema:
                      type: object
                      required: [sha256]
                      properties:
                        sha256:
                          type: array
                          maxItems: 10000
                          items: {type: string, pattern: "^[0-9a-f]{64}$"}
              responses:
                "200":
                  description: The hashes it lacks.
                  content:
                    application/json:
                      schema:
                        type: object
                        required: [missing]
                        properties:
                          missing:
                            type: array
                            items: {type: string}
                "400": {$ref: "#/components/responses/BadRequest"}
                "401": {$ref: "#/components/responses/Unauthorized"}
                "429": {$ref: "#/components/responses/Throttled"}
                "413": {$ref: "#/components/responses/TooLarge"}
          /v1/sync/events:
            get:
              summary: Server-sent events, one 'changes' event each time the account moves past the cursor.
              security: [{deviceToken: []}]
              parameters:
                - $ref: "#/components/parameters/After"
              responses:
                "200":
                  description: 'A stream of events: "event: changes", "data: {\\"cursor\\": N}".'
                  content:
                    text/event-stream:
                      schema: {type: string}
                "400": {$ref: "#/components/responses/BadRequest"}
                "401": {$ref: "#/components/responses/Unauthorized"}
                "429": {$ref: "#/components/responses/Throttled"}
          /api/v1/decks:
            get:
              summary: The account's decks, each with its counts, and the plan's card allowance.
              security: [{deviceToken: []}]
              responses:
                "200":
                  description: The decks.
                  content:
                    application/json:
                      schema:
                        type: object
                        required: [decks, allowance]
                        properties:
                          decks:
                            type: array
                            items:
                              type: object
                              required: [deck, counts, today]
                              properties:
                                deck: {$ref: "#/components/schemas/Deck"}
                                counts: {$ref: "#/components/schemas/DeckCounts"}
                                today: {$ref: "#/components/schemas/StudyCounts"}
                          allowance:
                            type: object
                            required: [plan, cardCount]
                            properties:
                              plan: {enum: [free, premium]}
                              cardCount: {type: integer}
                              cardLimit: {type: integer}
                "401": {$ref: "#/components/responses/Unauthorized"}
                "429": {$ref: "#/components/responses/Throttled"}
            post:
              summary: Create a deck.
              security: [{deviceToken: []}]
              requestBody:
                required: true
                content:
                  application/json:
                    schema:
                      type: object
                      required: [name, frontLanguage, backLanguage]
                      properties:
                        name:
                          type: string
                          minLength: 1
                          maxLength: 400
                          pattern: "\\\\S"
                          description: At most 100 characters (grapheme clusters) and 400 Unicode scalars.
                        frontLanguage: {$ref: "#/components/schemas/Language"}
                        backLanguage: {$ref: "#/components/schemas/Language"}
              responses:
                "201":
                  description: Created.
                  content:
                    application/json:
                      schema:
                        type: object
                        required: [deck]
                        properties:
                          deck: {$ref: "#/components/schemas/Deck"}
                "400": {$ref: "#/components/responses/BadRequest"}
                "401": {$ref: "#/components/responses/Unauthorized"}
                "403": {$ref: "#/components/responses/Forbidden"}
                "409":
                  description: The account has a deck of that name.
                  content:
                    application/json:
                      schema: {$ref: "#/components/schemas/Error"}
                "413": {$ref: "#/components/responses/TooLarge"}
                "429": {$ref: "#/components/responses/Throttled"}
          /api/v1/decks/{deck}:
            get:
              summary: A deck with its counts and its current cards (at most 500).
              security: [{deviceToken: []}]
              parameters:
                - $ref: "#/components/parameters/Deck"
              responses:
                "200":
                  description: The deck.
                  content:
                    application/json:
                      schema:
                        type: object
                        required: [deck, counts, today, cards]
                        properties:
                          deck: {$ref: "#/components/schemas/Deck"}
                          counts: {$ref: "#/components/schemas/DeckCounts"}
                          today: {$ref: "#/components/schemas/StudyCounts"}
                          cards: {type: array, items: {$ref: "#/components/schemas/Card"}}
                "401": {$ref: "#/components/responses/Unauthorized"}
                "404": {$ref: "#/components/responses/NotFound"}
                "429": {$ref: "#/components/responses/Throttled"}
            delete:
              summary: Delete a deck with its cards and suggestions.
              security: [{deviceToken: []}]
              parameters:
                - {name: deck, in: path, required: true, description: "The deck's id.", schema: {type: string}}
              responses:
                "204": {description: Done.}
                "400": {$ref: "#/components/responses/BadRequest"}
                "401": {$ref: "#/components/responses/Unauthorized"}
                "403": {$ref: "#/components/responses/Forbidden"}
                "404": {$ref: "#/components/responses/NotFound"}
                "429": {$ref: "#/components/responses/Throttled"}
          /api/v1/decks/{deck}/cards:
            get:
              summary: A deck's current (or archived, newest first) cards through seed 001's filters, a page at a time.
              security: [{deviceToken: []}]
              parameters:
                - $ref: "#/components/parameters/Deck"
                - {name: archived, in: query, schema: {type: boolean, default: false}}
                - {name: favorites, in: query, schema: {type: boolean, default: false}}
                - {name: tag, in: query, schema: {type: string}}
                - {name: language, in: query, description: An ISO 639-1 code., schema: {type: string}}
                - {name: q, in: query, description: Text the front, back or notes contain (any case)., schema: {type: string}}
                - {name: limit, in: query, schema: {type: integer, minimum: 1, maximum: 500, default: 500}}
                - {name: offset, in: query, schema: {type: integer, minimum: 0, maximum: 9223372036854775807, default: 0}}
              responses:
                "200":
                  description: The page of cards, and how many match in all.
                  content:
                    application/json:
                      schema:
                        type: object
                        required: [cards, total]
                        properties:
                          cards: {type: array, items: {$ref: "#/components/schemas/Card"}}
                          total: {type: integer}
                "400": {$ref: "#/components/responses/BadRequest"}
                "401": {$ref: "#/components/responses/Unauthorized"}
                "404": {$ref: "#/components/responses/NotFound"}
                "429": {$ref: "#/components/responses/Throttled"}
            post:
              summary: Add a card to a deck (the free plan's card limit applies, with seed 001's message).
              security: [{deviceToken: []}]
              parameters:
                - $ref: "#/components/parameters/Deck"
              requestBody:
                required: true
                content:
                  application/json:
                    schema: {$ref: "#/components/schemas/CardBody"}
              responses:
                "201":
                  description: Added; a front with cloze deletions ({{c1::answer}}) makes one card per deletion number, all in cards.
                  content:
                    application/json:
                      schema:
                        type: object
                        required: [card, cards]
                        properties:
                          card: {$ref: "#/components/schemas/Card"}
                          cards: {type: array, items: {$ref: "#/components/schemas/Card"}}
                "400": {$ref: "#/components/responses/BadRequest"}
                "401": {$ref: "#/components/responses/Unauthorized"}
                "403": {$ref: "#/components/responses/Forbidden"}
                "404": {$ref: "#/components/responses/NotFound"}
                "413": {$ref: "#/components/responses/TooLarge"}
                "429": {$ref: "#/components/responses/Throttled"}
          /api/v1/decks/{deck}/study:
            get:
              summary: The deck's next card to study with each rating's next due time; null when none is left today.
              security: [{deviceToken: []}]
              parameters:
                - $ref: "#/components/parameters/Deck"
              responses:
                "200":
                  description: The next card, or null.
                  content:
                    application/json:
                      schema:
                        type: object
                        required: [next]
                        properties:
                          next:
                            oneOf:
                              - type: "null"
                              - type: object
                                required: [card, queue, nextDue, remaining, at]
                                properties:
                                  card: {$ref: "#/components/schemas/Card"}
                                  queue: {type: string}
                                  nextDue:
                                    type: object
                                    additionalProperties: {type: string, format: date-time}
                                  remaining: {$ref: "#/components/schemas/StudyCounts"}
                                  at: {type: string, format: date-time}
                "401": {$ref: "#/components/responses/Unauthorized"}
                "404": {$ref: "#/components/responses/NotFound"}
                "429": {$ref: "#/components/responses/Throttled"}
            post:
              summary: Answer a card of the deck (rating 1 again, 2 hard, 3 good, 4 easy).
              security: [{deviceToken: []}]
              parameters:
                - $ref: "#/components/parameters/Deck"
              requestBody:
                required: true
                content:
                  application/json:
                    schema:
                      type: object
                      required: [card, rating]
                      properties:
                        card: {type: string, format: uuid}
                        rating: {type: integer, minimum: 1, maximum: 4}
              responses:
                "200":
                  description: The card after the answer, and the review it logged.
                  content:
                    application/json:
                      schema:
                        type: object
                        required: [card, log]
                        properties:
                          card: {$ref: "#/components/schemas/Card"}
                          log: {type: object}
                "400": {$ref: "#/components/responses/BadRequest"}
                "401": {$ref: "#/components/responses/Unauthorized"}
                "403": {$ref: "#/components/responses/Forbidden"}
                "404": {$ref: "#/components/responses/NotFound"}
                "413": {$ref: "#/components/responses/TooLarge"}
                "429": {$ref: "#/components/responses/Throttled"}
          /api/v1/decks/{deck}/study/undo:
            post:
              summary: Undo the deck's last answer; the card is back as it was.
              security: [{deviceToken: []}]
              parameters:
                - $ref: "#/components/parameters/Deck"
              responses:
                "200":
                  description: The card as it was before the answer.
                  content:
                    application/json:
                      schema:
                        type: object
                        required: [card]
                        properties:
                          card: {$ref: "#/components/schemas/Card"}
                "400": {$ref: "#/components/responses/BadRequest"}
                "401": {$ref: "#/components/responses/Unauthorized"}
                "403": {$ref: "#/components/responses/Forbidden"}
                "404": {$ref: "#/components/responses/NotFound"}
                "429": {$ref: "#/components/responses/Throttled"}

          /api/v1/import:
            post:
              summary: Import a file into the account - all of it, or nothing if anything in it is wrong.
              description: >-
                An Anki package, Anki's plain text (CSV/TSV), ListAll JSON, a Trello board or a Cardbox backup
                (into an account with no data yet); the format is told from the content unless `format` says.
              security: [{deviceToken: []}]
              parameters:
                - {name: format, in: query, required: false, schema: {enum: [listall, backup, csv, tsv, trello, apkg]}}
                - {name: deck, in: query, required: false, description: "The deck (by name) for CSV/TSV rows without a deck column.", schema: {type: string}}
                - {name: front, in: query, required: false, description: "Front language of decks the import creates.", schema: {type: string}}
                - {name: back, in: query, required: false, schema: {type: string}}
                - {name: onDuplicate, in: query, required: false, schema: {enum: [skip, replace, copy]}}
              requestBody:
                required: true
                content:
                  application/octet-stream:
                    schema: {type: string, format: binary}
              responses:
                "200":
                  description: What was created, replaced and skipped by kind, and what could not come over.
                  content:
                    application/json:
                      schema:
                        type: object
                        required: [created, replaced, skipped, notImported, fieldMapping]
                        properties:
                          created: {type: object, additionalProperties: {type: integer}}
                          replaced: {type: object, additionalProperties: {type: integer}}
                          skipped: {type: object, additionalProperties: {type: integer}}
                          notImported: {type: array, items: {type: string}}
                          fieldMapping: {type: array, items: {type: string}}
                "400": {$ref: "#/components/responses/BadRequest"}
                "401": {$ref: "#/components/responses/Unauthorized"}
                "403": {$ref: "#/components/responses/Forbidden"}
                "404": {$ref: "#/components/responses/NotFound"}
                "409": {$ref: "#/components/responses/Conflict"}
                "429": {$ref: "#/components/responses/Throttled"}
                "413": {$ref: "#/components/responses/TooLarge"}
          /api/v1/export/{format}:
            get:
              summary: A file of the account - a backup of everything, ListAll JSON (all lists, or `list`), or a deck's cards as CSV/TSV.
              security: [{deviceToken: []}]
              parameters:
                - {name: format, in: path, required: true, schema: {enum: [listall, backup, csv, tsv]}}
                - {name: deck, in: query, required: false, description: "The deck, for csv and tsv (required there).", schema: {type: string}}
                - {name: list, in: query, required: false, description: "One list, for listall.", schema: {type: string}}
              responses:
                "200":
                  description: The file, as an attachment.
                  content:
                    application/json:
                      schema: {type: object}
                    text/csv:
                      schema: {type: string}
                    text/tab-separated-values:
                      schema: {type: string}
                "400": {$ref: "#/components/responses/BadRequest"}
                "401": {$ref: "#/components/responses/Unauthorized"}
                "403": {$ref: "#/components/responses/Forbidden"}
                "404": {$ref: "#/components/responses/NotFound"}
                "429": {$ref: "#/components/responses/Throttled"}
          /api/v1/lists:
            get:
              summary: The lists in order, each with how many items it holds.
              security: [{deviceToken: []}]
              responses:
                "200":
                  description: Done; lists as it is now.
                  content:
                    application/json:
                      schema:
                        type: object
                        required: [lists]
                        properties:
                          lists: {type: array, items: {type: object, required: [list, items], properties: {list: {$ref: "#/components/schemas/Record"}, items: {type: integer}}}}
                "400": {$ref: "#/components/responses/BadRequest"}
                "401": {$ref: "#/components/responses/Unauthorized"}
                "403": {$ref: "#/components/responses/Forbidden"}
                "404": {$ref: "#/components/responses/NotFound"}
                "429": {$ref: "#/components/responses/Throttled"}
            post:
              summary: Create a list (seed 002).
              security: [{deviceToken: []}]
              requestBody:
                required: true
                content:
                  application/json:
                    schema:
                      type: object
                      additionalProperties: false
                      required: [name]
                      properties:
                        name: {type: string}
              responses:
                "201":
                  description: Done; list as it is now.
                  content:
                    application/json:
                      schema:
                        type: object
                        required: [list]
                        properties:
                          list: {$ref: "#/components/schemas/Record"}
                "400": {$ref: "#/components/responses/BadRequest"}
                "401": {$ref: "#/components/responses/Unauthorized"}
                "403": {$ref: "#/components/responses/Forbidden"}
                "404": {$ref: "#/components/responses/NotFound"}
                "409": {$ref: "#/components/responses/Conflict"}
                "429": {$ref: "#/components/responses/Throttled"}
          /api/v1/lists/{list}:
            get:
              summary: A list with its items (crossed-out ones as the showCrossedOutItems setting says), and the setting.
              security: [{deviceToken: []}]
              parameters:
                - {name: list, in: path, required: true, description: "The list's id.", schema: {type: string}}
              responses:
                "200":
                  description: Done; list as it is now.
                  content:
                    application/json:
                      schema:
                        type: object
                        required: [list]
                        properties:
                          list: {$ref: "#/components/schemas/Record"}
                "400": {$ref: "#/components/responses/BadRequest"}
                "401": {$ref: "#/components/responses/Unauthorized"}
                "403": {$ref: "#/components/responses/Forbidden"}
                "404": {$ref: "#/components/responses/NotFound"}
                "429": {$ref: "#/components/responses/Throttled"}
            delete:
              summary: Delete a list with its items.
              security: [{deviceToken: []}]
              parameters:
                - {name: list, in: path, required: true, description: "The list's id.", schema: {type: string}}
              responses:
                "204": {description: Done.}
                "400": {$ref: "#/components/responses/BadRequest"}
                "401": {$ref: "#/components/responses/Unauthorized"}
                "403": {$ref: "#/components/responses/Forbidden"}
                "404": {$ref: "#/components/responses/NotFound"}
                "429": {$ref: "#/components/responses/Throttled"}
          /api/v1/lists/{list}/rename:
            post:
              summary: Rename a list.
              security: [{deviceToken: []}]
              parameters:
                - {name: list, in: path, required: true, description: "The list's id.", schema: {type: string}}
              requestBody:
                required: true
                content:
                  application/json:
                    schema:
                      type: object
                      additionalProperties: false
                      required: [name]
                      properties:
                        name: {type: string}
              responses:
                "200":
                  description: Done; list as it is now.
                  content:
                    application/json:
                      schema:
                        type: object
                        required: [list]
                        properties:
                          list: {$ref: "#/components/schemas/Record"}
                "400": {$ref: "#/components/responses/BadRequest"}
                "401": {$ref: "#/components/responses/Unauthorized"}
                "403": {$ref: "#/components/responses/Forbidden"}
                "404": {$ref: "#/components/responses/NotFound"}
                "409": {$ref: "#/components/responses/Conflict"}
                "429": {$ref: "#/components/responses/Throttled"}
          /api/v1/lists/{list}/move:
            post:
              summary: Move a list to a place in the order (0 first).
              security: [{deviceToken: []}]
              parameters:
                - {name: list, in: path, required: true, description: "The list's id.", schema: {type: string}}
              requestBody:
                required: true
                content:
                  application/json:
                    schema:
                      type: object
                      additionalProperties: false
                      required: [position]
                      properties:
                        position: {type: integer, minimum: 0}
              responses:
                "200":
                  description: Done; list as it is now.
                  content:
                    application/json:
                      schema:
                        type: object
                        required: [list]
                        properties:
                          list: {$ref: "#/components/schemas/Record"}
                "400": {$ref: "#/components/responses/BadRequest"}
                "401": {$ref: "#/components/responses/Unauthorized"}
                "403": {$ref: "#/components/responses/Forbidden"}
                "404": {$ref: "#/components/responses/NotFound"}
                "429": {$ref: "#/components/responses/Throttled"}
          /api/v1/lists/{list}/items:
            post:
              summary: Add an item at the end of a list.
              security: [{deviceToken: []}]
              parameters:
                - {name: list, in: path, required: true, description: "The list's id.", schema: {type: string}}
              requestBody:
                required: true
                content:
                  application/json:
                    schema:
                      type: object
                      additionalProperties: false
                      required: [title]
                      properties:
                        title: {type: string}
                        description: {type: string}
                        quantity: {type: [integer, "null"]}
              responses:
                "201":
                  description: Done; item as it is now.
                  content:
                    application/json:
                      schema:
                        type: object
                        required: [item]
                        properties:
                          item: {$ref: "#/components/schemas/Record"}
                "400": {$ref: "#/components/responses/BadRequest"}
                "401": {$ref: "#/components/responses/Unauthorized"}
                "403": {$ref: "#/components/responses/Forbidden"}
                "404": {$ref: "#/components/responses/NotFound"}
                "429": {$ref: "#/components/responses/Throttled"}
          /api/v1/lists/{list}/items/{item}:
            post:
              summary: "Change an item: title, description (links become clickable on pages), quantity (null: none)."
              security: [{deviceToken: []}]
              parameters:
                - {name: list, in: path, required: true, description: "The list's id.", schema: {type: string}}
                - {name: item, in: path, required: true, description: "The item's id.", schema: {type: string}}
              requestBody:
                required: true
                content:
                  application/json:
                    schema:
                      type: object
                      additionalProperties: false
                      properties:
                        title: {type: string}
                        description: {type: string}
                        quantity: {type: [integer, "null"]}
              responses:
                "200":
                  description: Done; item as it is now.
                  content:
                    application/json:
                      schema:
                        type: object
                        required: [item]
                        properties:
                          item: {$ref: "#/components/schemas/Record"}
                "400": {$ref: "#/components/responses/BadRequest"}
                "401": {$ref: "#/components/responses/Unauthorized"}
                "403": {$ref: "#/components/responses/Forbidden"}
                "404": {$ref: "#/components/responses/NotFound"}
                "429": {$ref: "#/components/responses/Throttled"}
            delete:
              summary: Delete an item.
              security: [{deviceToken: []}]
              parameters:
                - {name: list, in: path, required: true, description: "The list's id.", schema: {type: string}}
                - {name: item, in: path, required: true, description: "The item's id.", schema: {type: string}}
              responses:
                "204": {description: Done.}
                "400": {$ref: "#/components/responses/BadRequest"}
                "401": {$ref: "#/components/responses/Unauthorized"}
                "403": {$ref: "#/components/responses/Forbidden"}
                "404": {$ref: "#/components/responses/NotFound"}
                "429": {$ref: "#/components/responses/Throttled"}
          /api/v1/lists/{list}/items/{item}/cross:
            post:
              summary: "Cross an item out or back (without crossedOut: the other way)."
              security: [{deviceToken: []}]
              parameters:
                - {name: list, in: path, required: true, description: "The list's id.", schema: {type: string}}
                - {name: item, in: path, required: true, description: "The item's id.", schema: {type: string}}
              requestBody:
                required: true
                content:
                  application/json:
                    schema:
                      type: object
                      additionalProperties: false
                      properties:
                        crossedOut: {type: boolean}
              responses:
                "200":
                  description: Done; item as it is now.
                  content:
                    application/json:
                      schema:
                        type: object
                        required: [item]
                        properties:
                          item: {$ref: "#/components/schemas/Record"}
                "400": {$ref: "#/components/responses/BadRequest"}
                "401": {$ref: "#/components/responses/Unauthorized"}
                "403": {$ref: "#/components/responses/Forbidden"}
                "404": {$ref: "#/components/responses/NotFound"}
                "429": {$ref: "#/components/responses/Throttled"}
          /api/v1/lists/{list}/items/{item}/move:
            post:
              summary: Move an item to a place in its list, or into another list.
              security: [{deviceToken: []}]
              parameters:
                - {name: list, in: path, required: true, description: "The list's id.", schema: {type: string}}
                - {name: item, in: path, required: true, description: "The item's id.", schema: {type: string}}
              requestBody:
                required: true
                content:
                  application/json:
                    schema:
                      type: object
                      additionalProperties: false
                      properties:
                        position: {type: integer, minimum: 0}
                        list: {type: string}
              responses:
                "200":
                  description: Done; item as it is now.
                  content:
                    application/json:
                      schema:
                        type: object
                        required: [item]
                        properties:
                          item: {$ref: "#/components/schemas/Record"}
                "400": {$ref: "#/components/responses/BadRequest"}
                "401": {$ref: "#/components/responses/Unauthorized"}
                "403": {$ref: "#/components/responses/Forbidden"}
                "404": {$ref: "#/components/responses/NotFound"}
                "429": {$ref: "#/components/responses/Throttled"}
          /api/v1/lists/{list}/items/{item}/images:
            put:
              summary: Attach an image to an item (JPEG, PNG or HEIC by content, at most 5 MB, 10 an item; seed 002).
              security: [{deviceToken: []}]
              parameters:
                - {name: list, in: path, required: true, description: "The list's id.", schema: {type: string}}
                - {name: item, in: path, required: true, description: "The item's id.", schema: {type: string}}
              requestBody:
                required: true
                content:
                  application/octet-stream:
                    schema: {type: string, format: binary}
              responses:
                "201":
                  description: Done; image as it is now.
                  content:
                    application/json:
                      schema:
                        type: object
                        required: [image]
                        properties:
                          image: {$ref: "#/components/schemas/Record"}
                "400": {$ref: "#/components/responses/BadRequest"}
                "401": {$ref: "#/components/responses/Unauthorized"}
                "403": {$ref: "#/components/responses/Forbidden"}
                "404": {$ref: "#/components/responses/NotFound"}
                "429": {$ref: "#/components/responses/Throttled"}
                "413": {$ref: "#/components/responses/TooLarge"}
          /api/v1/lists/{list}/items/{item}/images/{image}:
            delete:
              summary: Remove an item's image.
              security: [{deviceToken: []}]
              parameters:
                - {name: list, in: path, required: true, description: "The list's id.", schema: {type: string}}
                - {name: item, in: path, required: true, description: "The item's id.", schema: {type: string}}
                - {name: image, in: path, required: true, description: "The image's id.", schema: {type: string}}
              responses:
                "204": {description: Done.}
                "400": {$ref: "#/components/responses/BadRequest"}
                "401": {$ref: "#/components/responses/Unauthorized"}
                "403": {$ref: "#/components/responses/Forbidden"}
                "404": {$ref: "#/components/responses/NotFound"}
                "429": {$ref: "#/components/responses/Throttled"}
          /api/v1/settings:
            post:
              summary: >-
                Set whether lists show crossed-out items (seed 002 showCrossedOutItems), and the person's time
                zone (an IANA name), where their study days begin and end on the server's copy of the account.
              security: [{deviceToken: []}]
              requestBody:
                required: true
                content:
                  application/json:
                    schema:
                      type: object
                      additionalProperties: false
                      minProperties: 1
                      properties:
                        showCrossedOutItems: {type: boolean}
                        timeZone: {type: string, maxLength: 64, example: Europe/Madrid}
              responses:
                "200":
                  description: Done; the settings as they are now.
                  content:
                    application/json:
                      schema:
                        type: object
                        required: [showCrossedOutItems, timeZone]
                        properties:
                          showCrossedOutItems: {type: boolean}
                          timeZone: {type: [string, "null"]}
                "400": {$ref: "#/components/responses/BadRequest"}
                "401": {$ref: "#/components/responses/Unauthorized"}
                "403": {$ref: "#/components/responses/Forbidden"}
                "404": {$ref: "#/components/responses/NotFound"}
                "429": {$ref: "#/components/responses/Throttled"}
          /api/v1/boards:
            get:
              summary: The boards.
              security: [{deviceToken: []}]
              responses:
                "200":
                  description: Done; boards as it is now.
                  content:
                    application/json:
                      schema:
                        type: object
                        required: [boards]
                        properties:
                          boards: {type: array, items: {$ref: "#/components/schemas/Record"}}
                "400": {$ref: "#/components/responses/BadRequest"}
                "401": {$ref: "#/components/responses/Unauthorized"}
                "403": {$ref: "#/components/responses/Forbidden"}
                "404": {$ref: "#/components/responses/NotFound"}
                "429": {$ref: "#/components/responses/Throttled"}
            post:
              summary: Create a board (seed 003).
              security: [{deviceToken: []}]
              requestBody:
                required: true
                content:
                  application/json:
                    schema:
                      type: object
                      additionalProperties: false
                      required: [title]
                      properties:
                        title: {type: string}
              responses:
                "201":
                  description: Done; board as it is now.
                  content:
                    application/json:
                      schema:
                        type: object
                        required: [board]
                        properties:
                          board: {$ref: "#/components/schemas/Record"}
                "400": {$ref: "#/components/responses/BadRequest"}
                "401": {$ref: "#/components/responses/Unauthorized"}
                "403": {$ref: "#/components/responses/Forbidden"}
                "404": {$ref: "#/components/responses/NotFound"}
                "409": {$ref: "#/components/responses/Conflict"}
                "429": {$ref: "#/components/responses/Throttled"}
          /api/v1/boards/{board}:
            get:
              summary: A board with its columns and their cards in order.
              security: [{deviceToken: []}]
              parameters:
                - {name: board, in: path, required: true, description: "The board's id.", schema: {type: string}}
                - {name: archived, in: query, required: false, description: "true shows archived cards too.", schema: {enum: ["true", "false"]}}
              responses:
                "200":
                  description: Done; board as it is now.
                  content:
                    application/json:
                      schema:
                        type: object
                        required: [board]
                        properties:
                          board: {$ref: "#/components/schemas/Record"}
                "400": {$ref: "#/components/responses/BadRequest"}
                "401": {$ref: "#/components/responses/Unauthorized"}
                "403": {$ref: "#/components/responses/Forbidden"}
                "404": {$ref: "#/components/responses/NotFound"}
                "429": {$ref: "#/components/responses/Throttled"}
            delete:
              summary: Delete a board with its columns and cards.
              security: [{deviceToken: []}]
              parameters:
                - {name: board, in: path, required: true, description: "The board's id.", schema: {type: string}}
              responses:
                "204": {description: Done.}
                "400": {$ref: "#/components/responses/BadRequest"}
                "401": {$ref: "#/components/responses/Unauthorized"}
                "403": {$ref: "#/components/responses/Forbidden"}
                "404": {$ref: "#/components/responses/NotFound"}
                "429": {$ref: "#/components/responses/Throttled"}
          /api/v1/boards/{board}/rename:
            post:
              summary: Rename a board.
              security: [{deviceToken: []}]
              parameters:
                - {name: board, in: path, required: true, description: "The board's id.", schema: {type: string}}
              requestBody:
                required: true
                content:
                  application/json:
                    schema:
                      type: object
                      additionalProperties: false
                      required: [title]
                      properties:
                        title: {type: string}
              responses:
                "200":
                  description: Done; board as it is now.
                  content:
                    application/json:
                      schema:
                        type: object
                        required: [board]
                        properties:
                          board: {$ref: "#/components/schemas/Record"}
                "400": {$ref: "#/components/responses/BadRequest"}
                "401": {$ref: "#/components/responses/Unauthorized"}
                "403": {$ref: "#/components/responses/Forbidden"}
                "404": {$ref: "#/components/responses/NotFound"}
                "409": {$ref: "#/components/responses/Conflict"}
                "429": {$ref: "#/components/responses/Throttled"}
          /api/v1/boards/{board}/columns:
            post:
              summary: Add a column at the end of a board.
              security: [{deviceToken: []}]
              parameters:
                - {name: board, in: path, required: true, description: "The board's id.", schema: {type: string}}
              requestBody:
                required: true
                content:
                  application/json:
                    schema:
                      type: object
                      additionalProperties: false
                      required: [title]
                      properties:
                        title: {type: string}
              responses:
                "201":
                  description: Done; column as it is now.
                  content:
                    application/json:
                      schema:
                        type: object
                        required: [column]
                        properties:
                          column: {$ref: "#/components/schemas/Record"}
                "400": {$ref: "#/components/responses/BadRequest"}
                "401": {$ref: "#/components/responses/Unauthorized"}
                "403": {$ref: "#/components/responses/Forbidden"}
                "404": {$ref: "#/components/responses/NotFound"}
                "409": {$ref: "#/components/responses/Conflict"}
                "429": {$ref: "#/components/responses/Throttled"}
          /api/v1/boards/{board}/columns/{column}/move:
            post:
              summary: Move a column to a place on its board (0 first).
              security: [{deviceToken: []}]
              parameters:
                - {name: board, in: path, required: true, description: "The board's id.", schema: {type: string}}
                - {name: column, in: path, required: true, description: "The column's id.", schema: {type: string}}
              requestBody:
                required: true
                content:
                  application/json:
                    schema:
                      type: object
                      additionalProperties: false
                      required: [position]
                      properties:
                        position: {type: integer, minimum: 0}
              responses:
                "200":
                  description: Done; board as it is now.
                  content:
                    application/json:
                      schema:
                        type: object
                        required: [board]
                        properties:
                          board: {$ref: "#/components/schemas/Record"}
                "400": {$ref: "#/components/responses/BadRequest"}
                "401": {$ref: "#/components/responses/Unauthorized"}
                "403": {$ref: "#/components/responses/Forbidden"}
                "404": {$ref: "#/components/responses/NotFound"}
                "429": {$ref: "#/components/responses/Throttled"}
          /api/v1/boards/{board}/columns/{column}/cards:
            post:
              summary: Add a card at the end of a column.
              security: [{deviceToken: []}]
              parameters:
                - {name: board, in: path, required: true, description: "The board's id.", schema: {type: string}}
                - {name: column, in: path, required: true, description: "The column's id.", schema: {type: string}}
              requestBody:
                required: true
                content:
                  application/json:
                    schema:
                      type: object
                      additionalProperties: false
                      required: [title]
                      properties:
                        title: {type: string}
              responses:
                "201":
                  description: Done; board as it is now.
                  content:
                    application/json:
                      schema:
                        type: object
                        required: [board]
                        properties:
                          board: {$ref: "#/components/schemas/Record"}
                "400": {$ref: "#/components/responses/BadRequest"}
                "401": {$ref: "#/components/responses/Unauthorized"}
                "403": {$ref: "#/components/responses/Forbidden"}
                "404": {$ref: "#/components/responses/NotFound"}
                "429": {$ref: "#/components/responses/Throttled"}
          /api/v1/boards/{board}/cards/{card}:
            post:
              summary: Change a board card's title or description.
              security: [{deviceToken: []}]
              parameters:
                - {name: board, in: path, required: true, description: "The board's id.", schema: {type: string}}
                - {name: card, in: path, required: true, description: "The board card's id.", schema: {type: string}}
              requestBody:
                required: true
                content:
                  application/json:
                    schema:
                      type: object
                      additionalProperties: false
                      properties:
                        title: {type: string}
                        description: {type: string}
              responses:
                "200":
                  description: Done; board as it is now.
                  content:
                    application/json:
                      schema:
                        type: object
                        required: [board]
                        properties:
                          board: {$ref: "#/components/schemas/Record"}
                "400": {$ref: "#/components/responses/BadRequest"}
                "401": {$ref: "#/components/responses/Unauthorized"}
                "403": {$ref: "#/components/responses/Forbidden"}
                "404": {$ref: "#/components/responses/NotFound"}
                "429": {$ref: "#/components/responses/Throttled"}
            delete:
              summary: Delete a board card.
              security: [{deviceToken: []}]
              parameters:
                - {name: board, in: path, required: true, description: "The board's id.", schema: {type: string}}
                - {name: card, in: path, required: true, description: "The board card's id.", schema: {type: string}}
              responses:
                "204": {description: Done.}
                "400": {$ref: "#/components/responses/BadRequest"}
                "401": {$ref: "#/components/responses/Unauthorized"}
                "403": {$ref: "#/components/responses/Forbidden"}
                "404": {$ref: "#/components/responses/NotFound"}
                "429": {$ref: "#/components/responses/Throttled"}
          /api/v1/boards/{board}/cards/{card}/move:
            post:
              summary: Move a board card to a place in its column, or into another column of the board.
              security: [{deviceToken: []}]
              parameters:
                - {name: board, in: path, required: true, description: "The board's id.", schema: {type: string}}
                - {name: card, in: path, required: true, description: "The board card's id.", schema: {type: string}}
              requestBody:
                required: true
                content:
                  application/json:
                    schema:
                      type: object
                      additionalProperties: false
                      properties:
                        position: {type: integer, minimum: 0}
                        column: {type: string}
              responses:
                "200":
                  description: Done; board as it is now.
                  content:
                    application/json:
                      schema:
                        type: object
                        required: [board]
                        properties:
                          board: {$ref: "#/components/schemas/Record"}
                "400": {$ref: "#/components/responses/BadRequest"}
                "401": {$ref: "#/components/responses/Unauthorized"}
                "403": {$ref: "#/components/responses/Forbidden"}
                "404": {$ref: "#/components/responses/NotFound"}
                "429": {$ref: "#/components/responses/Throttled"}
          /api/v1/boards/{board}/cards/{card}/archive:
            post:
              summary: "Archive a board card (archived false: restore it)."
              security: [{deviceToken: []}]
              parameters:
                - {name: board, in: path, required: true, description: "The board's id.", schema: {type: string}}
                - {name: card, in: path, required: true, description: "The board card's id.", schema: {type: string}}
              requestBody:
                required: true
                content:
                  application/json:
                    schema:
                      type: object
                      additionalProperties: false
                      properties:
                        archived: {type: boolean}
              responses:
                "200":
                  description: Done; board as it is now.
                  content:
                    application/json:
                      schema:
                        type: object
                        required: [board]
                        properties:
                          board: {$ref: "#/components/schemas/Record"}
                "400": {$ref: "#/components/responses/BadRequest"}
                "401": {$ref: "#/components/responses/Unauthorized"}
                "403": {$ref: "#/components/responses/Forbidden"}
                "404": {$ref: "#/components/responses/NotFound"}
                "429": {$ref: "#/components/responses/Throttled"}
          /api/v1/account/devices:
            get:
              summary: "The account's devices: when each was last seen, and whether it is signed out."
              security: [{deviceToken: []}]
              responses:
                "200":
                  description: Done; devices as it is now.
                  content:
                    application/json:
                      schema:
                        type: object
                        required: [devices]
                        properties:
                          devices: {type: array, items: {$ref: "#/components/schemas/Record"}}
                "400": {$ref: "#/components/responses/BadRequest"}
                "401": {$ref: "#/components/responses/Unauthorized"}
                "403": {$ref: "#/components/responses/Forbidden"}
                "404": {$ref: "#/components/responses/NotFound"}
                "429": {$ref: "#/components/responses/Throttled"}
          /api/v1/account/devices/{device}/revoke:
            post:
              summary: Sign a device out (its token stops working).
              security: [{deviceToken: []}]
              parameters:
                - {name: device, in: path, required: true, description: "The device's id.", schema: {type: string}}
              responses:
                "204": {description: Done.}
                "400": {$ref: "#/components/responses/BadRequest"}
                "401": {$ref: "#/components/responses/Unauthorized"}
                "403": {$ref: "#/components/responses/Forbidden"}
                "404": {$ref: "#/components/responses/NotFound"}
                "429": {$ref: "#/components/responses/Throttled"}
          /api/v1/decks/{deck}/settings:
            post:
              summary: "Rename a deck and set how many suggestions it keeps queued (0: none; seed 000)."
              security: [{deviceToken: []}]
              parameters:
                - {name: deck, in: path, required: true, description: "The deck's id.", schema: {type: string}}
              requestBody:
                required: true
                content:
                  application/json:
                    schema:
                      type: object
                      additionalProperties: false
                      required: [name, queuedSuggestions]
                      properties:
                        name: {type: string}
                        queuedSuggestions: {type: integer, minimum: 0}
                        study:
                          type: object
                          required: [desiredRetention, learningSteps, relearningSteps, maximumInterval, newCardsPerDay, reviewsPerDay, enableFuzz]
                          properties:
                            desiredRetention: {type: number}
                            learningSteps: {type: string}
                            relearningSteps: {type: string}
                            maximumInterval: {type: integer}
                            newCardsPerDay: {type: integer}
                            reviewsPerDay: {type: integer}
                            enableFuzz: {type: boolean}
                        study:
                          type: object
                          required: [desiredRetention, learningSteps, relearningSteps, maximumInterval, newCardsPerDay, reviewsPerDay, enableFuzz]
                          properties:
                            desiredRetention: {type: number}
                            learningSteps: {type: string}
                            relearningSteps: {type: string}
                            maximumInterval: {type: integer}
                            newCardsPerDay: {type: integer}
                            reviewsPerDay: {type: integer}
                            enableFuzz: {type: boolean}
              responses:
                "200":
                  description: Done; deck as it is now.
                  content:
                    application/json:
                      schema:
                        type: object
                        required: [deck]
                        properties:
                          deck: {$ref: "#/components/schemas/Record"}
                "400": {$ref: "#/components/responses/BadRequest"}
                "401": {$ref: "#/components/responses/Unauthorized"}
                "403": {$ref: "#/components/responses/Forbidden"}
                "404": {$ref: "#/components/responses/NotFound"}
                "409": {$ref: "#/components/responses/Conflict"}
                "429": {$ref: "#/components/responses/Throttled"}
          /api/v1/presets:
            get:
              summary: The preset decks a new deck can start from.
              security: [{deviceToken: []}]
              responses:
                "200":
                  description: The presets.
                  content:
                    application/json:
                      schema:
                        type: object
                        required: [presets]
                        properties:
                          presets:
                            type: array
                            items:
                              type: object
                              required: [slug, name, frontLanguage, backLanguage, cards]
                              properties:
                                slug: {type: string}
                                name: {type: string}
                                frontLanguage: {type: string}
                                backLanguage: {type: string}
                                cards: {type: integer}
                "401": {$ref: "#/components/responses/Unauthorized"}
                "429": {$ref: "#/components/responses/Throttled"}
          /api/v1/presets/{preset}:
            post:
              summary: A new deck with all of a preset's cards, or none when the plan's card limit would be passed (seed 001).
              security: [{deviceToken: []}]
              parameters:
                - {name: preset, in: path, required: true, schema: {type: string}}
              responses:
                "201":
                  description: The deck made, and how many cards it has.
                  content:
                    application/json:
                      schema:
                        type: object
                        required: [deck, cards]
                        properties:
                          deck: {$ref: "#/components/schemas/Deck"}
                          cards: {type: integer}
                "400": {$ref: "#/components/responses/BadRequest"}
                "401": {$ref: "#/components/responses/Unauthorized"}
                "403": {$ref: "#/components/responses/Forbidden"}
                "404": {$ref: "#/components/responses/NotFound"}
                "409": {$ref: "#/components/responses/Conflict"}
                "429": {$ref: "#/components/responses/Throttled"}
          /api/v1/decks/{deck}/stats:
            get:
              summary: A deck's study figures over the last `days` study days - reviews per day, retention, the cards coming due.
              security: [{deviceToken: []}]
              parameters:
                - $ref: "#/components/parameters/Deck"
                - {name: days, in: query, required: false, schema: {type: integer, minimum: 1, maximum: 3650, default: 30}}
              responses:
                "200":
                  description: The figures.
                  content:
                    application/json:
                      schema:
                        type: object
                        required: [days, reviewsPerDay, retentionRecent, retentionAllTime, dueForecast, cardCounts]
                        properties:
                          days: {type: integer}
                          reviewsPerDay:
                            type: array
                            items:
                              type: object
                              required: [day, count]
                              properties:
                                day: {type: string, format: date-time}
                                count: {type: integer}
                          retentionRecent:
                            type: object
                            required: [reviews, passed, rate]
                            properties:
                              reviews: {type: integer}
                              passed: {type: integer}
                              rate: {type: [number, "null"]}
                          retentionAllTime:
                            type: object
                            required: [reviews, passed, rate]
                            properties:
                              reviews: {type: integer}
                              passed: {type: integer}
                              rate: {type: [number, "null"]}
                          dueForecast:
                            type: array
                            items:
                              type: object
                              required: [day, count]
                              properties:
                                day: {type: string, format: date-time}
                                count: {type: integer}
                          cardCounts: {type: object, additionalProperties: {type: integer}}
                "400": {$ref: "#/components/responses/BadRequest"}
                "401": {$ref: "#/components/responses/Unauthorized"}
                "403": {$ref: "#/components/responses/Forbidden"}
                "404": {$ref: "#/components/responses/NotFound"}
                "429": {$ref: "#/components/responses/Throttled"}
          /api/v1/decks/{deck}/cards/{card}:
            get:
              summary: A card of the deck, every field.
              security: [{deviceToken: []}]
              parameters:
                - $ref: "#/components/parameters/Deck"
                - {name: card, in: path, required: true, schema: {type: string}}
              responses:
                "200":
                  description: The card.
                  content:
                    application/json:
                      schema:
                        type: object
                        required: [card]
                        properties:
                          card: {$ref: "#/components/schemas/Card"}
                "400": {$ref: "#/components/responses/BadRequest"}
                "401": {$ref: "#/components/responses/Unauthorized"}
                "403": {$ref: "#/components/responses/Forbidden"}
                "404": {$ref: "#/components/responses/NotFound"}
                "429": {$ref: "#/components/responses/Throttled"}
            post:
              summary: Change a card of the deck (the card editor) - any of its fields; tags are found or created by name.
              security: [{deviceToken: []}]
              parameters:
                - $ref: "#/components/parameters/Deck"
                - {name: card, in: path, required: true, schema: {type: string}}
              requestBody:
                required: true
                content:
                  application/json:
                    schema:
                      type: object
                      additionalProperties: false
                      properties:
                        front: {type: string}
                        back: {type: string}
                        frontLanguage: {$ref: "#/components/schemas/Language"}
                        backLanguage: {$ref: "#/components/schemas/Language"}
                        cardType: {type: string}
                        notes: {type: string}
                        tags: {type: array, items: {type: string}}
                        isFavorite: {type: boolean}
                        removeImage: {type: boolean}
              responses:
                "200":
                  description: Changed; the card as it is now.
                  content:
                    application/json:
                      schema:
                        type: object
                        required: [card]
                        properties:
                          card: {$ref: "#/components/schemas/Card"}
                "400": {$ref: "#/components/responses/BadRequest"}
                "401": {$ref: "#/components/responses/Unauthorized"}
                "403": {$ref: "#/components/responses/Forbidden"}
                "404": {$ref: "#/components/responses/NotFound"}
                "429": {$ref: "#/components/responses/Throttled"}
          /api/v1/decks/{deck}/cards/{card}/image:
            put:
              summary: Give a card of the deck a picture (JPEG, PNG or HEIC by content, at most 5 MB and 50 megapixels), replacing its own.
              security: [{deviceToken: []}]
              parameters:
                - $ref: "#/components/parameters/Deck"
                - {name: card, in: path, required: true, schema: {type: string}}
              requestBody:
                required: true
                content:
                  application/octet-stream:
                    schema: {type: string, format: binary}
              responses:
                "200":
                  description: The card with its picture.
                  content:
                    application/json:
                      schema:
                        type: object
                        required: [card]
                        properties:
                          card: {$ref: "#/components/schemas/Card"}
                "400": {$ref: "#/components/responses/BadRequest"}
                "401": {$ref: "#/components/responses/Unauthorized"}
                "403": {$ref: "#/components/responses/Forbidden"}
                "404": {$ref: "#/components/responses/NotFound"}
                "429": {$ref: "#/components/responses/Throttled"}
                "413": {$ref: "#/components/responses/TooLarge"}
          /api/v1/decks/{deck}/cards/{card}/{move}:
            post:
              summary: Archive, restore, delete a card of the deck, or turn its favorite mark over (seed 000's movement flows).
              security: [{deviceToken: []}]
              parameters:
                - $ref: "#/components/parameters/Deck"
                - {name: card, in: path, required: true, schema: {type: string}}
                - {name: move, in: path, required: true, schema: {enum: [archive, restore, delete, favorite]}}
              responses:
                "200":
                  description: Done; the deck's counts.
                  content:
                    application/json:
                      schema:
                        type: object
                        required: [counts]
                        properties:
                          counts: {$ref: "#/components/schemas/DeckCounts"}
                "400": {$ref: "#/components/responses/BadRequest"}
                "401": {$ref: "#/components/responses/Unauthorized"}
                "403": {$ref: "#/components/responses/Forbidden"}
                "404": {$ref: "#/components/responses/NotFound"}
                "429": {$ref: "#/components/responses/Throttled"}
          /api/v1/decks/{deck}/flows/{flow}:
            post:
              summary: Archive the deck's due cards, clear its suggestions, reset its rejected suggestions (seed 000), or delete all its cards (seed 001).
              security: [{deviceToken: []}]
              parameters:
                - $ref: "#/components/parameters/Deck"
                - {name: flow, in: path, required: true, schema: {enum: [archive-due, clear-suggestions, reset-rejected, delete-all-cards]}}
              responses:
                "200":
                  description: Done; how many records it moved, and the deck's counts.
                  content:
                    application/json:
                      schema:
                        type: object
                        required: [moved, counts]
                        properties:
                          moved: {type: integer}
                          counts: {$ref: "#/components/schemas/DeckCounts"}
                "400": {$ref: "#/components/responses/BadRequest"}
                "401": {$ref: "#/components/responses/Unauthorized"}
                "403": {$ref: "#/components/responses/Forbidden"}
                "404": {$ref: "#/components/responses/NotFound"}
                "429": {$ref: "#/components/responses/Throttled"}
          /api/v1/decks/{deck}/suggestions:
            get:
              summary: The deck's suggestions ready for review (visible, not skipped), oldest first.
              security: [{deviceToken: []}]
              parameters:
                - $ref: "#/components/parameters/Deck"
              responses:
                "200":
                  description: The suggestions.
                  content:
                    application/json:
                      schema:
                        type: object
                        required: [suggestions]
                        properties:
                          suggestions: {type: array, items: {$ref: "#/components/schemas/Suggestion"}}
                "401": {$ref: "#/components/responses/Unauthorized"}
                "404": {$ref: "#/components/responses/NotFound"}
                "429": {$ref: "#/components/responses/Throttled"}
          /api/v1/decks/{deck}/suggestions/{suggestion}/{review}:
            post:
              summary: Accept, reject or skip a suggestion of the deck (seed 000); accepting is refused past the plan's card limit.
              security: [{deviceToken: []}]
              parameters:
                - $ref: "#/components/parameters/Deck"
                - $ref: "#/components/parameters/SuggestionId"
                - $ref: "#/components/parameters/Review"
              responses:
                "200":
                  description: Done; the deck's suggestions still to review.
                  content:
                    application/json:
                      schema:
                        type: object
                        required: [suggestions]
                        properties:
                          suggestions: {type: array, items: {$ref: "#/components/schemas/Suggestion"}}
                "400": {$ref: "#/components/responses/BadRequest"}
                "401": {$ref: "#/components/responses/Unauthorized"}
                "403": {$ref: "#/components/responses/Forbidden"}
                "404": {$ref: "#/components/responses/NotFound"}
                "429": {$ref: "#/components/responses/Throttled"}
          /api/v1/images/{sha256}:
            get:
              summary: An image of the account (a HEIC image is sent as JPEG).
              security: [{deviceToken: []}]
              parameters:
                - $ref: "#/components/parameters/Sha256"
              responses:
                "200":
                  description: The image.
                  content:
                    image/jpeg: {schema: {type: string, format: binary}}
                    image/png: {schema: {type: string, format: binary}}
                "400": {$ref: "#/components/responses/BadRequest"}
                "401": {$ref: "#/components/responses/Unauthorized"}
                "404": {$ref: "#/components/responses/NotFound"}
                "429": {$ref: "#/components/responses/Throttled"}
          /api/v1/images/{sha256}/thumbnail:
            get:
              summary: An image's thumbnail (at most 256 px; JPEG, or PNG with transparency).
              security: [{deviceToken: []}]
              parameters:
                - $ref: "#/components/parameters/Sha256"
              responses:
                "200":
                  description: The thumbnail.
                  content:
                    image/jpeg: {schema: {type: string, format: binary}}
                    image/png: {schema: {type: string, format: binary}}
                "400": {$ref: "#/components/responses/BadRequest"}
                "401": {$ref: "#/components/responses/Unauthorized"}
                "404": {$ref: "#/components/responses/NotFound"}
                "429": {$ref: "#/components/responses/Throttled"}
        """
}
