/// A small XML reader for documents from outside (a Metalink file from any server): elements,
/// attributes, text, comments, CDATA, processing instructions and the five predefined entities
/// with character references; nothing else. A DOCTYPE (and with it any entity declaration) is
/// refused, so no entity expands, and no external file or URL is ever read. Sizes are capped.
/// Not a validator: what it reads, it reads strictly (matching end tags, quoted attributes,
/// UTF-8), and anything it does not know is an error with its line.
public enum StrictXML {
    public struct Element: Sendable, Equatable {
        /// The name's prefix ("" when none) and local part: `m:file` is ("m", "file").
        public var prefix: String
        public var name: String
        public var attributes: [(name: String, value: String)]
        public var children: [Element]
        /// The element's own text (CDATA included), children's left out.
        public var text: String

        public func attribute(_ name: String) -> String? {
            attributes.first { $0.name == name }?.value
        }

        public static func == (lhs: Element, rhs: Element) -> Bool {
            lhs.prefix == rhs.prefix && lhs.name == rhs.name && lhs.text == rhs.text && lhs.children == rhs.children
                && lhs.attributes.map(\.name) == rhs.attributes.map(\.name) && lhs.attributes.map(\.value) == rhs.attributes.map(\.value)
        }
    }

    public struct Failure: Error, Sendable, Equatable, CustomStringConvertible {
        public let line: Int
        public let reason: String
        public var description: String { "line \(line): \(reason)" }
    }

    public struct Limits: Sendable {
        public var bytes = 4 << 20
        public var elements = 200_000
        public var depth = 32
        /// One element's text, or one attribute's value.
        public var textBytes = 64 * 1024
        public var attributesPerElement = 32

        public init() {}
    }

    /// The root element of `bytes`, or where and why it is not XML this reader takes.
    public static func parse(_ bytes: [UInt8], limits: Limits = Limits()) throws(Failure) -> Element {
        var reader = Reader(bytes: bytes, limits: limits)
        return try reader.document()
    }
}

private struct Reader {
    let bytes: [UInt8]
    let limits: StrictXML.Limits
    var i = 0
    var elementCount = 0

    init(bytes: [UInt8], limits: StrictXML.Limits) {
        self.bytes = bytes
        self.limits = limits
    }

    func fail(_ reason: String, at position: Int? = nil) -> StrictXML.Failure {
        let end = min(position ?? i, bytes.count)
        return StrictXML.Failure(line: 1 + bytes[..<end].lazy.filter { $0 == 10 }.count, reason: reason)
    }

    mutating func document() throws(StrictXML.Failure) -> StrictXML.Element {
        guard bytes.count <= limits.bytes else { throw fail("larger than \(limits.bytes >> 20) MiB", at: 0) }
        guard String(validating: bytes, as: UTF8.self) != nil else { throw fail("not valid UTF-8", at: firstBadUTF8()) }
        if bytes.starts(with: [0xEF, 0xBB, 0xBF]) { i = 3 }
        if startsWith("<?xml") { try declaration() }
        try miscellany()
        guard i < bytes.count, bytes[i] == UInt8(ascii: "<") else { throw fail("no root element") }
        let root = try element()
        try miscellany()
        guard i == bytes.count else { throw fail("text after the root element") }
        return root
    }

    /// Only UTF-8 is read: a declaration naming another encoding is refused, not guessed at.
    mutating func declaration() throws(StrictXML.Failure) {
        guard let end = find("?>") else { throw fail("unterminated XML declaration") }
        let text = String(decoding: bytes[i..<end], as: UTF8.self).lowercased()
        if let range = text.range(of: "encoding=") {
            let value = text[range.upperBound...].dropFirst().prefix { $0 != "\"" && $0 != "'" }
            guard value == "utf-8" || value == "utf8" || value == "us-ascii" else { throw fail("encoding \(value) is not UTF-8") }
        }
        i = end + 2
    }

    /// Blank space, comments and processing instructions around the root; a DOCTYPE is refused.
    mutating func miscellany() throws(StrictXML.Failure) {
        while i < bytes.count {
            if isBlank(bytes[i]) {
                i += 1
            } else if startsWith("<!--") {
                try comment()
            } else if startsWith("<?") {
                try instruction()
            } else if startsWith("<!") {
                throw fail("DOCTYPE and entity declarations are refused")
            } else {
                return
            }
        }
    }

    mutating func comment() throws(StrictXML.Failure) {
        guard let end = find("-->", from: i + 4) else { throw fail("unterminated comment") }
        i = end + 3
    }

    mutating func instruction() throws(StrictXML.Failure) {
        guard let end = find("?>", from: i + 2) else { throw fail("unterminated processing instruction") }
        i = end + 2
    }

    /// The element starting at `i` ("<"), with everything inside it; a stack, not recursion.
    mutating func element() throws(StrictXML.Failure) -> StrictXML.Element {
        var stack: [(element: StrictXML.Element, qualified: String)] = []
        while true {
            // At "<" of a start tag.
            let (open, qualified, empty) = try startTag()
            if empty {
                if stack.isEmpty { return open }
                stack[stack.count - 1].element.children.append(open)
            } else {
                guard stack.count < limits.depth else { throw fail("elements nested deeper than \(limits.depth)") }
                stack.append((open, qualified))
            }
            // Content until the next start tag, or end tags closing elements.
            while true {
                guard i < bytes.count else { throw fail("unterminated element <\(stack.last?.qualified ?? qualified)>") }
                if startsWith("</") {
                    let nameStart = i + 2
                    i = nameStart
                    let name = readName()
                    skipBlanks()
                    guard i < bytes.count, bytes[i] == UInt8(ascii: ">") else { throw fail("malformed end tag") }
                    i += 1
                    guard let top = stack.popLast(), top.qualified == name else {
                        throw fail("end tag </\(name)> does not match", at: nameStart)
                    }
                    if stack.isEmpty { return top.element }
                    stack[stack.count - 1].element.children.append(top.element)
                } else if startsWith("<!--") {
                    try comment()
                } else if startsWith("<![CDATA[") {
                    guard let end = find("]]>", from: i + 9) else { throw fail("unterminated CDATA") }
                    try appendText(String(decoding: bytes[(i + 9)..<end], as: UTF8.self), to: &stack[stack.count - 1].element)
                    i = end + 3
                } else if startsWith("<?") {
                    try instruction()
                } else if startsWith("<!") {
                    throw fail("DOCTYPE and entity declarations are refused")
                } else if bytes[i] == UInt8(ascii: "<") {
                    break
                } else {
                    let start = i
                    while i < bytes.count, bytes[i] != UInt8(ascii: "<") { i += 1 }
                    let text = try decoded(bytes[start..<i])
                    try appendText(text, to: &stack[stack.count - 1].element)
                }
            }
        }
    }

    func appendText(_ text: String, to element: inout StrictXML.Element) throws(StrictXML.Failure) {
        // The indentation between child elements is no text of the parent's: a long
        // pretty-printed list would otherwise reach the text limit.
        if !element.children.isEmpty, text.utf8.allSatisfy({ $0 == 0x20 || $0 == 0x09 || $0 == 0x0A || $0 == 0x0D }) { return }
        guard element.text.utf8.count + text.utf8.count <= limits.textBytes else {
            throw fail("text longer than \(limits.textBytes / 1024) KiB")
        }
        element.text += text
    }

    /// "<name attr="v" …>" or "…/>": the element, its qualified name, and whether it is empty.
    mutating func startTag() throws(StrictXML.Failure) -> (StrictXML.Element, String, Bool) {
        elementCount += 1
        guard elementCount <= limits.elements else { throw fail("more than \(limits.elements) elements") }
        i += 1
        let qualified = readName()
        guard !qualified.isEmpty else { throw fail("malformed start tag") }
        let parts = qualified.split(separator: ":", maxSplits: 1, omittingEmptySubsequences: false)
        guard parts.allSatisfy({ !$0.isEmpty }) else { throw fail("malformed name \(qualified)") }
        var element = StrictXML.Element(prefix: parts.count == 2 ? String(parts[0]) : "", name: String(parts.last!),
                                        attributes: [], children: [], text: "")
        while true {
            let hadBlank = i < bytes.count && isBlank(bytes[i])
            skipBlanks()
            guard i < bytes.count else { throw fail("unterminated start tag <\(qualified)>") }
            if bytes[i] == UInt8(ascii: ">") {
                i += 1
                return (element, qualified, false)
            }
            if startsWith("/>") {
                i += 2
                return (element, qualified, true)
            }
            guard hadBlank else { throw fail("malformed start tag <\(qualified)>") }
            let name = readName()
            skipBlanks()
            guard !name.isEmpty, i < bytes.count, bytes[i] == UInt8(ascii: "=") else { throw fail("malformed attribute in <\(qualified)>") }
            i += 1
            skipBlanks()
            guard i < bytes.count, bytes[i] == UInt8(ascii: "\"") || bytes[i] == UInt8(ascii: "'") else {
                throw fail("attribute \(name) without quotes")
            }
            let quote = bytes[i]
            let start = i + 1
            guard let end = bytes[start...].firstIndex(of: quote) else { throw fail("unterminated attribute \(name)") }
            guard end - start <= limits.textBytes else { throw fail("attribute \(name) longer than \(limits.textBytes / 1024) KiB") }
            guard !bytes[start..<end].contains(UInt8(ascii: "<")) else { throw fail("\"<\" in attribute \(name)") }
            let value = try decoded(bytes[start..<end])
            i = end + 1
            guard element.attribute(name) == nil else { throw fail("attribute \(name) given twice") }
            guard element.attributes.count < limits.attributesPerElement else { throw fail("too many attributes in <\(qualified)>") }
            element.attributes.append((name, value))
        }
    }

    /// The text with `&amp;`-style references replaced; any other reference is an error.
    func decoded(_ slice: ArraySlice<UInt8>) throws(StrictXML.Failure) -> String {
        guard slice.contains(UInt8(ascii: "&")) else { return String(decoding: slice, as: UTF8.self) }
        var out = String.UnicodeScalarView()
        var j = slice.startIndex
        while j < slice.endIndex {
            if slice[j] == UInt8(ascii: "&") {
                guard let semicolon = slice[j...].prefix(12).firstIndex(of: UInt8(ascii: ";")) else {
                    throw fail("bare & or unterminated reference", at: j)
                }
                let name = String(decoding: slice[(j + 1)..<semicolon], as: UTF8.self)
                guard let scalar = Self.reference(name) else { throw fail("unknown entity &\(name);", at: j) }
                out.append(scalar)
                j = semicolon + 1
            } else {
                // Copy a run of bytes up to the next "&" (valid UTF-8: checked for the whole input).
                let runEnd = slice[j...].firstIndex(of: UInt8(ascii: "&")) ?? slice.endIndex
                out.append(contentsOf: String(decoding: slice[j..<runEnd], as: UTF8.self).unicodeScalars)
                j = runEnd
            }
        }
        return String(out)
    }

    static func reference(_ name: String) -> Unicode.Scalar? {
        switch name {
        case "amp": return "&"
        case "lt": return "<"
        case "gt": return ">"
        case "quot": return "\""
        case "apos": return "'"
        default:
            guard name.hasPrefix("#") else { return nil }
            let number = name.dropFirst()
            let value = number.hasPrefix("x") ? UInt32(number.dropFirst(), radix: 16) : UInt32(number, radix: 10)
            // NUL is not a character XML allows.
            guard let value, value != 0, let scalar = Unicode.Scalar(value) else { return nil }
            return scalar
        }
    }

    mutating func readName() -> String {
        let start = i
        while i < bytes.count, Self.isNameByte(bytes[i]) { i += 1 }
        return String(decoding: bytes[start..<i], as: UTF8.self)
    }

    /// Letters, digits, "_-.:" and any non-ASCII byte (names in other scripts).
    static func isNameByte(_ b: UInt8) -> Bool {
        switch b {
        case UInt8(ascii: "a")...UInt8(ascii: "z"), UInt8(ascii: "A")...UInt8(ascii: "Z"), UInt8(ascii: "0")...UInt8(ascii: "9"),
             UInt8(ascii: "_"), UInt8(ascii: "-"), UInt8(ascii: "."), UInt8(ascii: ":"), 0x80...0xFF:
            return true
        default:
            return false
        }
    }

    func isBlank(_ b: UInt8) -> Bool { b == 0x20 || b == 0x09 || b == 0x0A || b == 0x0D }

    mutating func skipBlanks() { while i < bytes.count, isBlank(bytes[i]) { i += 1 } }

    func startsWith(_ text: StaticString) -> Bool {
        let count = text.utf8CodeUnitCount
        guard i + count <= bytes.count else { return false }
        return text.withUTF8Buffer { bytes[i..<(i + count)].elementsEqual($0) }
    }

    /// Where `text` next occurs from `from` (default `i`).
    func find(_ text: StaticString, from: Int? = nil) -> Int? {
        text.withUTF8Buffer { needle -> Int? in
            var k = from ?? i
            while k + needle.count <= bytes.count {
                if bytes[k] == needle[0], bytes[k..<(k + needle.count)].elementsEqual(needle) { return k }
                k += 1
            }
            return nil
        }
    }

    func firstBadUTF8() -> Int {
        // Lines before the first bad byte: find it by decoding prefixes a line at a time.
        var start = 0
        for (k, b) in bytes.enumerated() where b == 10 {
            if String(validating: bytes[start..<k], as: UTF8.self) == nil { return start }
            start = k + 1
        }
        return start
    }
}
