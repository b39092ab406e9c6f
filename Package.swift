// swift-tools-version:6.1
import PackageDescription

/// The web app's page templates (`Sources/CardboxHTTP/Web/Templates`), one per `Template` case.
let webTemplates = [
    "account", "board", "boardbody", "boards", "boardsbody", "card", "cardbody", "deck", "deckbody", "decks",
    "exchange",
    "layout",
    "list", "listbody",
    "lists",
    "listsbody", "message", "newaccount", "offline", "offlinelists", "setup", "signin", "signup", "stats", "study",
    "studybody", "users",
]

/// Executables built with `--static-swift-stdlib` get `-export-dynamic` from the toolchain's link
/// arguments: every symbol of Cardbox and its packages (57,000) went into the dynamic symbol table,
/// which the loader and `dladdr` walk at each start. Nothing looks Cardbox's symbols up by name
/// (crash backtraces read the symbol table itself), so they stay out: about 3 ms of every command's
/// start (docs/performance.md).
let ownSymbolsHidden: [LinkerSetting] = [.unsafeFlags(["-Xlinker", "--no-export-dynamic"])]

let package = Package(
    name: "Cardbox",
    platforms: [.macOS(.v15)],
    products: [
        .executable(name: "cardbox", targets: ["cardbox"]),
        .executable(name: "cardbox-server", targets: ["cardbox-server"]),
        .executable(name: "cardbox-image-worker", targets: ["cardbox-image-worker"]),
        .executable(name: "cardbox-bench", targets: ["cardbox-bench"]),
        .library(name: "CardboxCore", targets: ["CardboxCore"]),
        .library(name: "CardboxSync", targets: ["CardboxSync"]),
        .library(name: "CardboxScheduling", targets: ["CardboxScheduling"]),
        .library(name: "CardboxStore", targets: ["CardboxStore"]),
    ],
    dependencies: [
        .package(url: "https://github.com/groue/GRDB.swift", from: "7.10.0"),
        .package(url: "https://github.com/apple/swift-argument-parser", from: "1.8.2"),
        .package(url: "https://github.com/apple/swift-crypto", from: "3.12.3"),
        .package(url: "https://github.com/weichsel/ZIPFoundation", from: "0.9.20"),
        .package(url: "https://github.com/vapor/postgres-nio", from: "1.33.2"),
        .package(url: "https://github.com/apple/swift-nio", from: "2.101.2"),
        .package(url: "https://github.com/apple/swift-nio-ssl", from: "2.37.6"),
        .package(url: "https://github.com/apple/swift-nio-extras", from: "1.35.2"),
        .package(url: "https://github.com/apple/swift-log", from: "1.16.2"),
        .package(url: "https://github.com/hummingbird-project/hummingbird-auth", from: "2.5.0"),
        .package(url: "https://github.com/hummingbird-project/hummingbird", from: "2.28.1"),
        .package(url: "https://github.com/hummingbird-project/swift-mustache", from: "2.1.1"),
        .package(url: "https://github.com/swift-server/async-http-client", from: "1.37.0"),
        .package(url: "https://github.com/swift-server/swift-prometheus", from: "2.4.1"),
        .package(url: "https://github.com/swift-server/swift-service-lifecycle", from: "2.13.0"),
        .package(url: "https://github.com/vapor/multipart-kit", from: "4.7.1"),
    ],
    targets: [
        // Domain values and rules. Pure: no I/O.
        .target(name: "CardboxCore", dependencies: ["CardboxFSRS", "CardboxReplica"]),
        // What every replica of an account runs alike, in Swift that imports nothing, so the browser's
        // WebAssembly build (Wasm/) runs the same code: JSON values, clocks, records and their merge,
        // the study queue and what an answer writes.
        .target(name: "CardboxReplica", dependencies: ["CardboxFSRS"]),
        // FSRS-6 scheduling: memory states, next intervals, retrievability, replay. Pure.
        .target(name: "CardboxScheduling", dependencies: ["CardboxCore", "CardboxFSRS"]),
        // The FSRS-6 step in Swift that imports nothing: the same code natively and, compiled to
        // WebAssembly (Wasm/), in the browser.
        .target(name: "CardboxFSRS"),
        // Hybrid logical clock, position keys, change records.
        .target(
            name: "CardboxSync",
            dependencies: ["CardboxCore", .product(name: "Crypto", package: "swift-crypto")]
        ),
        // The store: schema, migrations, queries, transactions, change capture. All SQL lives here.
        // The sync API's and /api/v1's request and answer bodies, as Codable values: the server, the
        // device's client and the tests write and read the same types.
        .target(name: "CardboxWire", dependencies: ["CardboxCore", "CardboxSync"]),
        .target(
            name: "CardboxStore",
            dependencies: [
                "CardboxCore", "CardboxSync", "CardboxScheduling", "CardboxImaging", "CSQLiteSettings",
                .product(name: "GRDB", package: "GRDB.swift"),
                .product(name: "GRDBSQLite", package: "GRDB.swift"),
                .product(name: "Crypto", package: "swift-crypto"),
            ]
        ),
        // SQLite's process-wide settings (`sqlite3_config` is variadic, out of Swift's reach).
        .target(name: "CSQLiteSettings", dependencies: [.product(name: "GRDBSQLite", package: "GRDB.swift")]),
        // The server's side of sync, behind one seam (push, pull, accounts, devices, images): the
        // rules, and the types every implementation shares. No database library.
        .target(
            name: "CardboxServer",
            dependencies: [
                "CardboxCore", "CardboxSync", "CardboxImaging", .product(name: "Crypto", package: "swift-crypto"),
                .product(name: "HummingbirdBcrypt", package: "hummingbird-auth"),
            ]
        ),
        // The seam on an embedded SQLite database (GRDB).
        .target(
            name: "CardboxServerSQLite",
            dependencies: [
                "CardboxCore", "CardboxSync", "CardboxServer", .product(name: "GRDB", package: "GRDB.swift"),
            ]
        ),
        // The server's own store of each account (`AccountCopy`, `AccountReplicas`): device stores kept
        // up to date from the sync state, for the web app, suggestions and snapshots.
        .target(
            name: "CardboxAccountCopies",
            dependencies: [
                "CardboxCore", "CardboxSync", "CardboxServer", "CardboxStore",
                .product(name: "Crypto", package: "swift-crypto"),
            ]
        ),
        // The same seam on PostgreSQL (postgres-nio), for servers that share a database.
        .target(
            name: "CardboxServerPostgres",
            dependencies: [
                "CardboxCore", "CardboxSync", "CardboxServer",
                .product(name: "PostgresNIO", package: "postgres-nio"),
                .product(name: "NIOCore", package: "swift-nio"),
                .product(name: "Logging", package: "swift-log"),
            ]
        ),
        // The server's HTTP side (Hummingbird): the sync API (accounts, sessions, push and pull, over a
        // ServerDatabase) and the web app's pages (Mustache templates over the server's account stores).
        .target(
            name: "CardboxHTTP",
            dependencies: [
                "CardboxCore", "CardboxSync", "CardboxWire", "CardboxServer", "CardboxServerSQLite",
                "CardboxAccountCopies", "CAllocator",
                "CardboxStore", "CardboxSuggest", "CardboxExchange", "CardboxWebAssembly",
                .product(name: "Mustache", package: "swift-mustache"),
                .product(name: "MultipartKit", package: "multipart-kit"),
                .product(name: "NIOHTTP1", package: "swift-nio"),
                .product(name: "NIOHTTPTypes", package: "swift-nio-extras"),
                .product(name: "Hummingbird", package: "hummingbird"),
                .product(name: "HummingbirdCore", package: "hummingbird"),
                .product(name: "HummingbirdTLS", package: "hummingbird"),
                .product(name: "NIOSSL", package: "swift-nio-ssl"),
                .product(name: "Prometheus", package: "swift-prometheus"),
                .product(name: "ServiceLifecycle", package: "swift-service-lifecycle"),
            ],
            // The pages' templates and the API's description, embedded in the binary.
            resources: [
                .embedInCode("Resources/openapi.yaml"), .embedInCode("Web/Scripts/scheduler.js"),
                .embedInCode("Web/Scripts/offline.js"), .embedInCode("Web/Scripts/service-worker.js"),
                .embedInCode("Web/Scripts/replica.js"), .embedInCode("Web/Scripts/device.js"),
                .embedInCode("Web/Icons/icon.svg"), .embedInCode("Web/Icons/icon-180.png"),
                .embedInCode("Web/Icons/icon-192.png"), .embedInCode("Web/Icons/icon-512.png"),
            ] + webTemplates.map { .embedInCode("Web/Templates/\($0).mustache") }
        ),
        // The browser's WebAssembly modules (the FSRS step, the replica), compiled from CardboxFSRS and
        // CardboxReplica by the package's own plugin and held as bytes.
        .target(name: "CardboxWebAssembly", plugins: ["WasmModules"]),
        .plugin(name: "WasmModules", capability: .buildTool(), dependencies: ["cardbox-wasm-build"]),
        .executableTarget(name: "cardbox-wasm-build"),
        // A device's side of sync: the API's client and the push-then-pull loop over a store.
        .target(
            name: "CardboxSyncClient",
            dependencies: [
                "CardboxCore", "CardboxSync", "CardboxWire", "CardboxStore",
                .product(name: "AsyncHTTPClient", package: "async-http-client"),
                .product(name: "Crypto", package: "swift-crypto"),
                .product(name: "NIOCore", package: "swift-nio"),
                .product(name: "NIOHTTP1", package: "swift-nio"),
                .product(name: "NIOPosix", package: "swift-nio"),
                .product(name: "NIOSSL", package: "swift-nio-ssl"),
            ]
        ),
        // libvips (Debian's libvips-dev) behind a few plain C functions: decoding, checking, shrinking
        // and thumbnailing images, and drawing the offline image provider's pictures.
        .systemLibrary(name: "CVips", pkgConfig: "vips", providers: [.apt(["libvips-dev"])]),
        .target(name: "CVipsShim", dependencies: ["CVips"], linkerSettings: [.linkedLibrary("fontconfig")]),
        // Image work as the rest of Cardbox asks for it: sent to worker processes, so that nothing else
        // links libvips and a decoder's crash costs one image.
        .target(name: "CardboxImaging", dependencies: ["CardboxCore", "CSpawn"]),
        // glibc's posix_spawn extensions that Swift's Glibc module leaves out.
        .target(name: "CSpawn"),
        .target(name: "CAllocator"),
        // The work itself, with libvips: what the worker runs.
        .target(name: "CardboxImageDecoding", dependencies: ["CardboxCore", "CardboxImaging", "CVipsShim"]),
        .executableTarget(
            name: "cardbox-image-worker", dependencies: ["CardboxImageDecoding"], linkerSettings: ownSymbolsHidden),
        // The system's zlib, for dictzip dictionaries (raw deflate read by chunk).
        .systemLibrary(name: "CSystemZlib", providers: [.apt(["zlib1g-dev"])]),
        // Suggested cards: the providers (offline dictionaries, chat completions) and seed 000's
        // maintenance step that keeps a deck's queue filled.
        .target(
            name: "CardboxSuggest",
            dependencies: ["CardboxCore", "CardboxStore", "CardboxImaging", "CSystemZlib"]
        ),
        // Suggestions and images from OpenAI-compatible services over HTTP, and the choice of providers
        // by name. Apart from CardboxSuggest, so what reads dictionaries (and the fuzz build) needs no
        // HTTP client.
        .target(
            name: "CardboxSuggestServices",
            dependencies: [
                "CardboxCore", "CardboxSuggest",
                .product(name: "AsyncHTTPClient", package: "async-http-client"),
                .product(name: "NIOCore", package: "swift-nio"),
                .product(name: "NIOHTTP1", package: "swift-nio"),
            ]
        ),
        // Import and export formats: ListAll JSON, CSV/TSV, backups, Anki packages, Trello boards.
        .target(
            name: "CardboxExchange",
            dependencies: [
                "CardboxCore", "CardboxStore", "CardboxScheduling", "CSystemZlib",
                .product(name: "GRDB", package: "GRDB.swift"),
                .product(name: "ZIPFoundation", package: "ZIPFoundation"),
            ]
        ),
        // The command line's commands, as a library so tests can drive them in-process too. Not the
        // server's: `cardbox serve` and `cardbox admin` hand the process to `cardbox-server`.
        .target(
            name: "CardboxCLI",
            dependencies: [
                "CardboxCore", "CardboxSync", "CardboxStore", "CardboxScheduling", "CardboxExchange",
                "CardboxSyncClient", "CardboxSuggest", "CardboxSuggestServices", "CardboxImaging",
                .product(name: "ArgumentParser", package: "swift-argument-parser"),
            ]
        ),
        .executableTarget(name: "cardbox", dependencies: ["CardboxCLI"], linkerSettings: ownSymbolsHidden),
        // The server's commands (`serve`, `admin`): the one program that links the HTTP stack and the
        // server databases, so that every other command starts without them.
        .target(
            name: "CardboxServerCLI",
            dependencies: [
                "CardboxCLI", "CardboxCore", "CardboxStore", "CardboxServer", "CardboxServerSQLite",
                "CardboxServerPostgres", "CardboxHTTP", "CardboxSuggest", "CardboxSuggestServices",
                .product(name: "ArgumentParser", package: "swift-argument-parser"),
                .product(name: "Logging", package: "swift-log"),
            ]
        ),
        .executableTarget(
            name: "cardbox-server", dependencies: ["CardboxServerCLI"], linkerSettings: ownSymbolsHidden),
        // Randomized convergence: replicas exchanging change sets in any order end in the same state.
        .target(
            name: "CardboxConvergence",
            dependencies: [
                "CardboxStore", "CardboxSync", "CardboxCore", "CardboxServer", "CardboxServerSQLite", "CardboxImaging",
            ]),
        .executableTarget(
            name: "cardbox-converge",
            dependencies: [
                "CardboxConvergence", "CardboxWebAssembly",
                .product(name: "ArgumentParser", package: "swift-argument-parser"),
            ]),
        // The benchmark command: `scripts/bench.sh` runs it in release mode beside its peers.
        .executableTarget(
            name: "cardbox-bench",
            dependencies: [
                "CardboxCore", "CardboxStore", "CardboxScheduling", "CardboxSync",
                .product(name: "ArgumentParser", package: "swift-argument-parser"),
            ]
        ),
        // The sync benchmark's Cardbox side: `scripts/sync_bench.sh` runs it beside Anki's sync server.
        .executableTarget(
            name: "cardbox-sync-bench",
            dependencies: [
                "CardboxCore", "CardboxStore", "CardboxSyncClient",
                .product(name: "ArgumentParser", package: "swift-argument-parser"),
                .product(name: "AsyncHTTPClient", package: "async-http-client"),
                .product(name: "NIOCore", package: "swift-nio"),
            ]
        ),
        // Issue 10's benchmark: `scripts/suggest_bench.sh` runs it in release mode.
        .executableTarget(
            name: "cardbox-suggest-bench",
            dependencies: [
                "CardboxCore", "CardboxStore", "CardboxSuggest", "CardboxImaging",
                .product(name: "ArgumentParser", package: "swift-argument-parser"),
            ]
        ),
        // Fuzz targets: every decoder fed by people or other devices, each must survive any input.
        .target(
            name: "CardboxFuzzTargets",
            dependencies: [
                "CardboxCore", "CardboxSync", "CardboxScheduling", "CardboxExchange", "CardboxStore", "CardboxSuggest",
                "CardboxImaging", "CardboxImageDecoding",
            ]
        ),
        // The fuzzer (`scripts/fuzz.sh` builds it with libFuzzer: -DFUZZING); otherwise it replays inputs.
        .executableTarget(name: "cardbox-fuzz", dependencies: ["CardboxFuzzTargets"]),
        .testTarget(name: "CardboxCoreTests", dependencies: ["CardboxCore"]),
        // Replays every fuzz seed and every saved crash through its target.
        .testTarget(name: "CardboxFuzzTests", dependencies: ["CardboxFuzzTargets"]),
        .testTarget(
            name: "CardboxSyncTests", dependencies: ["CardboxSync", .product(name: "Crypto", package: "swift-crypto")]),
        .testTarget(
            name: "CardboxSchedulingTests", dependencies: ["CardboxScheduling", "CardboxFSRS"], exclude: ["Fixtures"]
        ),
        .testTarget(
            name: "CardboxStoreTests", dependencies: ["CardboxStore", "CardboxImaging", "CardboxSync"],
            exclude: ["Fixtures"]),
        .testTarget(name: "CardboxImagingTests", dependencies: ["CardboxImaging", "CardboxCore"]),
        .testTarget(
            name: "CardboxSuggestTests",
            dependencies: [
                "CardboxSuggest", "CardboxSuggestServices", "CardboxStore", "CardboxCore", "CardboxImaging",
                "CardboxTestSupport", .product(name: "Hummingbird", package: "hummingbird"),
                .product(name: "NIOCore", package: "swift-nio"),
            ]),
        .testTarget(name: "CardboxConvergenceTests", dependencies: ["CardboxConvergence"]),
        .testTarget(name: "CardboxWireTests", dependencies: ["CardboxWire", "CardboxSync", "CardboxCore"]),
        .testTarget(
            name: "CardboxCLITests",
            dependencies: ["CardboxCLI", "CardboxServerCLI", "CardboxStore", "CardboxTestSupport", "CardboxImaging"]),
        // What several test targets share: a real PostgreSQL started for the test run.
        .target(
            name: "CardboxTestSupport",
            dependencies: [
                "CSpawn",
                .product(name: "Hummingbird", package: "hummingbird"),
                .product(name: "ServiceLifecycle", package: "swift-service-lifecycle"),
            ], path: "Tests/CardboxTestSupport"),
        .testTarget(
            name: "CardboxServerTests",
            dependencies: [
                "CardboxTestSupport", "CardboxServer", "CardboxServerSQLite", "CardboxAccountCopies",
                "CardboxScheduling",
                "CardboxServerPostgres", "CardboxStore", "CardboxSync",
                "CardboxImaging", "CardboxExchange",
                "CardboxHTTP", "CardboxSyncClient", "CardboxConvergence", "CardboxWire", "CAllocator",
                .product(name: "GRDB", package: "GRDB.swift"),
                .product(name: "Hummingbird", package: "hummingbird"),
                .product(name: "HummingbirdTesting", package: "hummingbird"),
                .product(name: "AsyncHTTPClient", package: "async-http-client"),
                .product(name: "Crypto", package: "swift-crypto"),
                .product(name: "NIOCore", package: "swift-nio"),
                .product(name: "NIOEmbedded", package: "swift-nio"),
                .product(name: "NIOHTTP1", package: "swift-nio"),
                .product(name: "ServiceLifecycle", package: "swift-service-lifecycle"),
            ]),
        .testTarget(
            name: "CardboxExchangeTests",
            dependencies: [
                "CardboxExchange", "CardboxImaging", .product(name: "ZIPFoundation", package: "ZIPFoundation"),
            ],
            exclude: ["Fixtures"]
        ),
    ]
)
