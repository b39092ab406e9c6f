import Foundation

/// A view model as swift-mustache reads it fastest: dictionaries, arrays and plain values.
///
/// Why not the structs themselves: swift-mustache finds a struct's names by reflection, a `Mirror`
/// of every struct on the context stack for every `{{name}}` it looks up, and the study page took
/// twice as long to render that way as to encode and render it from dictionaries. A view model's
/// synthesized `Encodable` conformance lists its fields with no reflection at all; a field that is
/// nil is left out, so the template looks for its name further up, as for a missing key.
enum TemplateValues {
    static func of(_ model: some Encodable) -> Any {
        let encoder = ValuesEncoder(codingPath: [])
        // Encoding into memory cannot fail: no container here throws, and a view model's fields
        // are strings, numbers, booleans and other view models.
        try? model.encode(to: encoder)
        return encoder.node.value
    }
}

/// What an encoder made: one value, or a dictionary or an array whose members are still being made.
private final class Node {
    enum Content {
        case empty
        case null
        case value(Any)
        case dictionary([String: Node])
        case array([Node])
    }

    var content = Content.empty

    /// What the template reads; a member that is nil is left out of its dictionary or array.
    var value: Any {
        switch content {
        case .empty, .null: [String: Any]()
        case .value(let value): value
        case .dictionary(let members): members.filter { !$0.value.isNull }.mapValues(\.value)
        case .array(let members): members.filter { !$0.isNull }.map(\.value)
        }
    }

    var isNull: Bool {
        if case .null = content { return true }
        return false
    }

    func set(_ key: String, _ member: Node) {
        guard case .dictionary(var members) = content else {
            content = .dictionary([key: member])
            return
        }
        content = .empty
        members[key] = member
        content = .dictionary(members)
    }

    func append(_ member: Node) {
        guard case .array(var members) = content else {
            content = .array([member])
            return
        }
        content = .empty
        members.append(member)
        content = .array(members)
    }

    var count: Int {
        if case .array(let members) = content { return members.count }
        return 0
    }

    /// `value` as it is when it is a plain one (no need to encode it), else encoded.
    static func of<T: Encodable>(_ value: T, codingPath: [any CodingKey]) throws -> Node {
        let node = Node()
        // Plain values are kept as they are (their own `encode(to:)` would come back here).
        switch value {
        case let text as String: node.content = .value(text)
        case let flag as Bool: node.content = .value(flag)
        case let number as any BinaryInteger: node.content = .value(number)
        case let number as any BinaryFloatingPoint: node.content = .value(number)
        default:
            let encoder = ValuesEncoder(codingPath: codingPath, node: node)
            try value.encode(to: encoder)
        }
        return node
    }
}

private struct ValuesEncoder: Encoder {
    let codingPath: [any CodingKey]
    var userInfo: [CodingUserInfoKey: Any] { [:] }
    var node = Node()

    init(codingPath: [any CodingKey], node: Node = Node()) {
        self.codingPath = codingPath
        self.node = node
    }

    func container<Key: CodingKey>(keyedBy type: Key.Type) -> KeyedEncodingContainer<Key> {
        if case .empty = node.content { node.content = .dictionary([:]) }
        return KeyedEncodingContainer(Keyed(node: node, codingPath: codingPath))
    }

    func unkeyedContainer() -> any UnkeyedEncodingContainer {
        if case .empty = node.content { node.content = .array([]) }
        return Unkeyed(node: node, codingPath: codingPath)
    }

    func singleValueContainer() -> any SingleValueEncodingContainer { Single(node: node, codingPath: codingPath) }

    struct Keyed<Key: CodingKey>: KeyedEncodingContainerProtocol {
        let node: Node
        let codingPath: [any CodingKey]

        /// Nil is left out: the template then looks for the name further up, as for a missing key.
        mutating func encodeNil(forKey key: Key) throws {}

        mutating func encode<T: Encodable>(_ value: T, forKey key: Key) throws {
            node.set(key.stringValue, try Node.of(value, codingPath: codingPath + [key]))
        }

        mutating func nestedContainer<NestedKey: CodingKey>(keyedBy keyType: NestedKey.Type, forKey key: Key)
            -> KeyedEncodingContainer<NestedKey>
        {
            let member = Node()
            node.set(key.stringValue, member)
            return ValuesEncoder(codingPath: codingPath + [key], node: member).container(keyedBy: keyType)
        }

        mutating func nestedUnkeyedContainer(forKey key: Key) -> any UnkeyedEncodingContainer {
            let member = Node()
            node.set(key.stringValue, member)
            return ValuesEncoder(codingPath: codingPath + [key], node: member).unkeyedContainer()
        }

        mutating func superEncoder() -> any Encoder { ValuesEncoder(codingPath: codingPath, node: node) }

        mutating func superEncoder(forKey key: Key) -> any Encoder {
            let member = Node()
            node.set(key.stringValue, member)
            return ValuesEncoder(codingPath: codingPath + [key], node: member)
        }
    }

    struct Unkeyed: UnkeyedEncodingContainer {
        let node: Node
        let codingPath: [any CodingKey]
        var count: Int { node.count }

        mutating func encodeNil() throws {
            let member = Node()
            member.content = .null
            node.append(member)
        }

        mutating func encode<T: Encodable>(_ value: T) throws {
            node.append(try Node.of(value, codingPath: codingPath))
        }

        mutating func nestedContainer<NestedKey: CodingKey>(keyedBy keyType: NestedKey.Type)
            -> KeyedEncodingContainer<NestedKey>
        {
            let member = Node()
            node.append(member)
            return ValuesEncoder(codingPath: codingPath, node: member).container(keyedBy: keyType)
        }

        mutating func nestedUnkeyedContainer() -> any UnkeyedEncodingContainer {
            let member = Node()
            node.append(member)
            return ValuesEncoder(codingPath: codingPath, node: member).unkeyedContainer()
        }

        mutating func superEncoder() -> any Encoder {
            let member = Node()
            node.append(member)
            return ValuesEncoder(codingPath: codingPath, node: member)
        }
    }

    struct Single: SingleValueEncodingContainer {
        let node: Node
        let codingPath: [any CodingKey]

        mutating func encodeNil() throws { node.content = .null }

        mutating func encode<T: Encodable>(_ value: T) throws {
            node.content = try Node.of(value, codingPath: codingPath).content
        }
    }
}
