// The browser's replica as a WebAssembly interface, compiled with Sources/CardboxReplica into one
// Embedded Swift module (with Wasm/Runtime for memory). Text goes in through memory the page
// allocates (`allocate`, then `release`) and comes out through one output buffer (`outputPointer`,
// `outputLength`). `Sources/CardboxHTTP/Web/Scripts/replica.js` is the page's side of it.

nonisolated(unsafe) var replica: ReplicaRecords? = nil
nonisolated(unsafe) var output: [UInt8] = []

/// Status codes: 0 done; 1 refused, `output` says why.
func refuse(_ problem: some CustomStringConvertible) -> Int32 {
    output = Array(problem.description.utf8)
    return 1
}

func text(_ pointer: UnsafePointer<UInt8>, _ count: Int32) -> String {
    String(decoding: UnsafeBufferPointer(start: pointer, count: Int(count)), as: UTF8.self)
}

@_expose(wasm, "allocate") @_cdecl("allocate")
func allocate(_ count: Int32) -> UnsafeMutableRawPointer {
    UnsafeMutableRawPointer.allocate(byteCount: Int(max(count, 1)), alignment: 16)
}

@_expose(wasm, "release") @_cdecl("release")
func release(_ pointer: UnsafeMutableRawPointer) { pointer.deallocate() }

@_expose(wasm, "outputPointer") @_cdecl("outputPointer")
func outputPointer() -> UnsafeRawPointer { output.withUnsafeBytes { $0.baseAddress! } }

@_expose(wasm, "outputLength") @_cdecl("outputLength")
func outputLength() -> Int32 { Int32(output.count) }

/// Starts an empty replica for the schema's entities (`ReplicaSchema.json`'s text).
@_expose(wasm, "configure") @_cdecl("configure")
func configure(_ pointer: UnsafePointer<UInt8>, _ count: Int32) -> Int32 {
    let json: JSONValue
    do throws(JSONParser.Failure) {
        json = try JSONParser.parse(text(pointer, count))
    } catch {
        return refuse("schema: \(error.description)")
    }
    do throws(WireProblem) {
        replica = ReplicaRecords(schema: try ReplicaSchema(json: json))
    } catch {
        return refuse(error)
    }
    return 0
}

/// Merges one change set in its wire form.
@_expose(wasm, "applyChanges") @_cdecl("applyChanges")
func applyChanges(_ pointer: UnsafePointer<UInt8>, _ count: Int32) -> Int32 {
    guard let schema = replica?.schema else { return refuse("configure the replica first") }
    let json: JSONValue
    do throws(JSONParser.Failure) {
        json = try JSONParser.parse(text(pointer, count))
    } catch {
        return refuse("changes: \(error.description)")
    }
    do throws(WireProblem) {
        // Applied in place: a copy of the replica would copy every record it holds.
        replica!.apply(try WireChanges(json: json, schema: schema))
    } catch {
        return refuse(error)
    }
    return 0
}

/// Writes the replica's canonical dump (`ReplicaRecords.canonicalDump`) to the output.
@_expose(wasm, "dumpRecords") @_cdecl("dumpRecords")
func dumpRecords() -> Int32 {
    guard let records = replica else { return refuse("configure the replica first") }
    output = Array(records.canonicalDump().utf8)
    return 0
}
