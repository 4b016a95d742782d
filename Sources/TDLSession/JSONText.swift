/// JSON written byte by byte, as Foundation's `JSONSerialization` writes it with sorted keys
/// and unescaped slashes: `tdl list --json` prints a million objects, and serializing one
/// dictionary per task took most of a minute.
public enum JSONText {
    /// `text` as a JSON string: quotes, backslashes and control characters escaped (\b \f \n
    /// \r \t by name, the rest as \u00xx); everything else, DEL and non-ASCII too, as it is.
    public static func appendString(_ text: String, to out: inout [UInt8]) {
        out.append(UInt8(ascii: "\""))
        // Most texts need no escape: copied in one piece.
        if !text.utf8.contains(where: { $0 < 0x20 || $0 == UInt8(ascii: "\"") || $0 == UInt8(ascii: "\\") }) {
            out.append(contentsOf: text.utf8)
            out.append(UInt8(ascii: "\""))
            return
        }
        for byte in text.utf8 {
            switch byte {
            case UInt8(ascii: "\""): out.append(contentsOf: [UInt8(ascii: "\\"), UInt8(ascii: "\"")])
            case UInt8(ascii: "\\"): out.append(contentsOf: [UInt8(ascii: "\\"), UInt8(ascii: "\\")])
            case 0x08: out.append(contentsOf: [UInt8(ascii: "\\"), UInt8(ascii: "b")])
            case 0x0C: out.append(contentsOf: [UInt8(ascii: "\\"), UInt8(ascii: "f")])
            case 0x0A: out.append(contentsOf: [UInt8(ascii: "\\"), UInt8(ascii: "n")])
            case 0x0D: out.append(contentsOf: [UInt8(ascii: "\\"), UInt8(ascii: "r")])
            case 0x09: out.append(contentsOf: [UInt8(ascii: "\\"), UInt8(ascii: "t")])
            case ..<0x20:
                let hex = Array("0123456789abcdef".utf8)
                out.append(contentsOf: [UInt8(ascii: "\\"), UInt8(ascii: "u"), UInt8(ascii: "0"), UInt8(ascii: "0"),
                                        hex[Int(byte >> 4)], hex[Int(byte & 15)]])
            default: out.append(byte)
            }
        }
        out.append(UInt8(ascii: "\""))
    }

    public static func appendString(_ text: String?, to out: inout [UInt8]) {
        guard let text else { return out.append(contentsOf: "null".utf8) }
        appendString(text, to: &out)
    }

    public static func appendNumber(_ number: Int64?, to out: inout [UInt8]) {
        out.append(contentsOf: (number.map { String($0) } ?? "null").utf8)
    }

    /// An object with these members, in the order given (the caller sorts the keys).
    public static func appendObject(_ members: [(key: String, value: Value)], to out: inout [UInt8]) {
        out.append(UInt8(ascii: "{"))
        for (i, member) in members.enumerated() {
            if i > 0 { out.append(UInt8(ascii: ",")) }
            appendString(member.key, to: &out)
            out.append(UInt8(ascii: ":"))
            switch member.value {
            case .string(let text): appendString(text, to: &out)
            case .number(let number): appendNumber(number, to: &out)
            }
        }
        out.append(UInt8(ascii: "}"))
    }

    /// A member's value: text or a whole number, either possibly null.
    public enum Value: Sendable {
        case string(String?)
        case number(Int64?)
    }
}
