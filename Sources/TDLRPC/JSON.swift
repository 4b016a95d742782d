import Foundation

/// A JSON value as JSON-RPC carries it: parsed from a request's bytes and written back without
/// Foundation's serializer, whose numbers and booleans are ambiguous on Linux and which costs
/// more than the rest of a status answer. Objects keep their keys' order, so an answer reads
/// as aria2's does.
public enum JSON: Equatable, Sendable {
    case null
    case bool(Bool)
    case number(Double)
    case string(String)
    case array([JSON])
    case object([(String, JSON)])

    public static func == (lhs: JSON, rhs: JSON) -> Bool {
        switch (lhs, rhs) {
        case (.null, .null): return true
        case let (.bool(a), .bool(b)): return a == b
        case let (.number(a), .number(b)): return a == b
        case let (.string(a), .string(b)): return a == b
        case let (.array(a), .array(b)): return a == b
        case let (.object(a), .object(b)): return a.count == b.count && zip(a, b).allSatisfy { $0.0 == $1.0 && $0.1 == $1.1 }
        default: return false
        }
    }

    public subscript(key: String) -> JSON? {
        guard case .object(let pairs) = self else { return nil }
        return pairs.first { $0.0 == key }?.1
    }

    public var string: String? { if case .string(let s) = self { return s } else { return nil } }
    public var array: [JSON]? { if case .array(let a) = self { return a } else { return nil } }
    public var object: [(String, JSON)]? { if case .object(let o) = self { return o } else { return nil } }
    /// A whole number given as a number or, as aria2's clients often do, as a string of digits.
    public var integer: Int? {
        switch self {
        case .number(let d): return d.rounded() == d && abs(d) < 1e15 ? Int(d) : nil
        case .string(let s): return Int(s)
        default: return nil
        }
    }

    // MARK: - Writing

    public var serialized: Data {
        var out = [UInt8]()
        out.reserveCapacity(256)
        write(into: &out)
        return Data(out)
    }

    public var text: String { String(decoding: serialized, as: UTF8.self) }

    func write(into out: inout [UInt8]) {
        switch self {
        case .null: out.append(contentsOf: "null".utf8)
        case .bool(let b): out.append(contentsOf: (b ? "true" : "false").utf8)
        case .number(let d):
            if d.rounded() == d && abs(d) < 1e15 { out.append(contentsOf: String(Int64(d)).utf8) }
            else if d.isFinite { out.append(contentsOf: String(d).utf8) }
            else { out.append(contentsOf: "null".utf8) }
        case .string(let s): Self.writeString(s, into: &out)
        case .array(let items):
            out.append(UInt8(ascii: "["))
            for (n, item) in items.enumerated() {
                if n > 0 { out.append(UInt8(ascii: ",")) }
                item.write(into: &out)
            }
            out.append(UInt8(ascii: "]"))
        case .object(let pairs):
            out.append(UInt8(ascii: "{"))
            for (n, (key, value)) in pairs.enumerated() {
                if n > 0 { out.append(UInt8(ascii: ",")) }
                Self.writeString(key, into: &out)
                out.append(UInt8(ascii: ":"))
                value.write(into: &out)
            }
            out.append(UInt8(ascii: "}"))
        }
    }

    static let hexDigits = Array("0123456789abcdef".utf8)

    static func writeString(_ s: String, into out: inout [UInt8]) {
        out.append(UInt8(ascii: "\""))
        for byte in s.utf8 {
            switch byte {
            case UInt8(ascii: "\""): out.append(UInt8(ascii: "\\")); out.append(byte)
            case UInt8(ascii: "\\"): out.append(UInt8(ascii: "\\")); out.append(byte)
            case 0x0A: out.append(UInt8(ascii: "\\")); out.append(UInt8(ascii: "n"))
            case 0x0D: out.append(UInt8(ascii: "\\")); out.append(UInt8(ascii: "r"))
            case 0x09: out.append(UInt8(ascii: "\\")); out.append(UInt8(ascii: "t"))
            case 0..<0x20, 0x7F:
                out.append(contentsOf: "\\u00".utf8)
                out.append(hexDigits[Int(byte >> 4)])
                out.append(hexDigits[Int(byte & 0xF)])
            default: out.append(byte)
            }
        }
        out.append(UInt8(ascii: "\""))
    }

    // MARK: - Reading

    public struct ParseError: Error {}

    /// Parses one JSON text. Nesting is bounded: a request cannot exhaust the stack.
    public static func parse(_ data: Data) throws -> JSON {
        try data.withUnsafeBytes { raw in
            var parser = Parser(bytes: raw.bindMemory(to: UInt8.self))
            parser.skipSpace()
            let value = try parser.value(depth: 0)
            parser.skipSpace()
            guard parser.at == parser.bytes.count else { throw ParseError() }
            return value
        }
    }

    public static func parse(_ text: String) throws -> JSON { try parse(Data(text.utf8)) }

    struct Parser {
        let bytes: UnsafeBufferPointer<UInt8>
        var at = 0
        static let maxDepth = 64

        init(bytes: UnsafeBufferPointer<UInt8>) { self.bytes = bytes }

        mutating func skipSpace() {
            while at < bytes.count, [0x20, 0x09, 0x0A, 0x0D].contains(bytes[at]) { at += 1 }
        }

        mutating func expect(_ word: String) throws {
            for byte in word.utf8 {
                guard at < bytes.count, bytes[at] == byte else { throw ParseError() }
                at += 1
            }
        }

        mutating func value(depth: Int) throws -> JSON {
            guard depth < Self.maxDepth, at < bytes.count else { throw ParseError() }
            switch bytes[at] {
            case UInt8(ascii: "n"): try expect("null"); return .null
            case UInt8(ascii: "t"): try expect("true"); return .bool(true)
            case UInt8(ascii: "f"): try expect("false"); return .bool(false)
            case UInt8(ascii: "\""): return .string(try string())
            case UInt8(ascii: "["):
                at += 1
                var items: [JSON] = []
                skipSpace()
                if at < bytes.count, bytes[at] == UInt8(ascii: "]") { at += 1; return .array(items) }
                while true {
                    skipSpace()
                    items.append(try value(depth: depth + 1))
                    skipSpace()
                    guard at < bytes.count else { throw ParseError() }
                    if bytes[at] == UInt8(ascii: ",") { at += 1; continue }
                    if bytes[at] == UInt8(ascii: "]") { at += 1; return .array(items) }
                    throw ParseError()
                }
            case UInt8(ascii: "{"):
                at += 1
                var pairs: [(String, JSON)] = []
                skipSpace()
                if at < bytes.count, bytes[at] == UInt8(ascii: "}") { at += 1; return .object(pairs) }
                while true {
                    skipSpace()
                    guard at < bytes.count, bytes[at] == UInt8(ascii: "\"") else { throw ParseError() }
                    let key = try string()
                    skipSpace()
                    try expect(":")
                    skipSpace()
                    pairs.append((key, try value(depth: depth + 1)))
                    skipSpace()
                    guard at < bytes.count else { throw ParseError() }
                    if bytes[at] == UInt8(ascii: ",") { at += 1; continue }
                    if bytes[at] == UInt8(ascii: "}") { at += 1; return .object(pairs) }
                    throw ParseError()
                }
            default:
                return .number(try number())
            }
        }

        mutating func number() throws -> Double {
            let start = at
            while at < bytes.count, "+-0123456789.eE".utf8.contains(bytes[at]) { at += 1 }
            guard at > start, let d = Double(String(decoding: UnsafeBufferPointer(rebasing: bytes[start..<at]), as: UTF8.self)) else {
                throw ParseError()
            }
            return d
        }

        mutating func hex4() throws -> UInt32 {
            guard at + 4 <= bytes.count,
                  let v = UInt32(String(decoding: UnsafeBufferPointer(rebasing: bytes[at..<at + 4]), as: UTF8.self), radix: 16) else {
                throw ParseError()
            }
            at += 4
            return v
        }

        mutating func string() throws -> String {
            at += 1  // the opening quote
            var out = [UInt8]()
            while true {
                guard at < bytes.count else { throw ParseError() }
                let byte = bytes[at]
                at += 1
                switch byte {
                case UInt8(ascii: "\""):
                    guard let s = String(validating: out, as: UTF8.self) else { throw ParseError() }
                    return s
                case UInt8(ascii: "\\"):
                    guard at < bytes.count else { throw ParseError() }
                    let escaped = bytes[at]
                    at += 1
                    switch escaped {
                    case UInt8(ascii: "\""), UInt8(ascii: "\\"), UInt8(ascii: "/"): out.append(escaped)
                    case UInt8(ascii: "n"): out.append(0x0A)
                    case UInt8(ascii: "r"): out.append(0x0D)
                    case UInt8(ascii: "t"): out.append(0x09)
                    case UInt8(ascii: "b"): out.append(0x08)
                    case UInt8(ascii: "f"): out.append(0x0C)
                    case UInt8(ascii: "u"):
                        var scalar = try hex4()
                        if (0xD800..<0xDC00).contains(scalar) {
                            try expect("\\u")
                            let low = try hex4()
                            guard (0xDC00..<0xE000).contains(low) else { throw ParseError() }
                            scalar = 0x10000 + ((scalar - 0xD800) << 10) + (low - 0xDC00)
                        }
                        guard let u = Unicode.Scalar(scalar) else { throw ParseError() }
                        out.append(contentsOf: Array(String(Character(u)).utf8))
                    default: throw ParseError()
                    }
                case 0..<0x20: throw ParseError()
                default: out.append(byte)
                }
            }
        }
    }
}

extension JSON: ExpressibleByStringLiteral, ExpressibleByArrayLiteral, ExpressibleByDictionaryLiteral, ExpressibleByBooleanLiteral,
                ExpressibleByIntegerLiteral {
    public init(integerLiteral value: Int) { self = .number(Double(value)) }
    public init(stringLiteral value: String) { self = .string(value) }
    public init(arrayLiteral elements: JSON...) { self = .array(elements) }
    public init(dictionaryLiteral elements: (String, JSON)...) { self = .object(elements) }
    public init(booleanLiteral value: Bool) { self = .bool(value) }
}
