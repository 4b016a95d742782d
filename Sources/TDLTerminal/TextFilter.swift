import TDLCore

/// The list's filter: whether a row's name or URL has the typed text, in any case.
///
/// Text of ASCII characters (what a filter nearly always is) is looked for in the UTF-8 bytes,
/// folding only ASCII case: a million names and URLs in a fraction of a second, where
/// lowercasing each one took seconds per keystroke. Other text compares lowercased strings.
struct TextFilter {
    let text: String
    /// The text's bytes with ASCII letters in lower case; nil when the text is not ASCII.
    private let foldedBytes: [UInt8]?
    private let lowercased: String

    init(_ text: String) {
        self.text = text
        lowercased = text.lowercased()
        foldedBytes = text.utf8.allSatisfy { $0 < 0x80 } ? text.utf8.map(Self.fold) : nil
    }

    var isEmpty: Bool { text.isEmpty }

    func matches(_ candidate: String) -> Bool {
        guard let needle = foldedBytes else { return candidate.lowercased().contains(lowercased) }
        if needle.isEmpty { return true }
        if let found = candidate.utf8.withContiguousStorageIfAvailable({ Self.contains($0, needle) }) { return found }
        var copy = candidate
        return copy.withUTF8 { Self.contains($0, needle) }
    }

    /// `matches` of the string these bytes are.
    func matches(utf8 candidate: UnsafeBufferPointer<UInt8>) -> Bool {
        guard let needle = foldedBytes else { return matches(String(decoding: candidate, as: UTF8.self)) }
        return needle.isEmpty || Self.contains(candidate, needle)
    }

    /// Whether the URL as the list shows it (`URLCheck.withoutPassword`) has the text. A URL
    /// without "@" has no password to hide: its own bytes are searched, with no copy made.
    func matches(url: String) -> Bool {
        if let needle = foldedBytes, !needle.isEmpty, let found = url.utf8.withContiguousStorageIfAvailable({ bytes -> Bool? in
            bytes.contains(UInt8(ascii: "@")) ? nil : Self.contains(bytes, needle)
        }), let found {
            return found
        }
        return matches(URLCheck.withoutPassword(url))
    }

    private static func fold(_ byte: UInt8) -> UInt8 {
        byte >= UInt8(ascii: "A") && byte <= UInt8(ascii: "Z") ? byte | 0x20 : byte
    }

    /// Looks eight bytes at a time for the needle's first byte in either case (a byte's 0x20
    /// bit set: a superset of those that fold to it), and compares the needle only there.
    private static func contains(_ haystack: UnsafeBufferPointer<UInt8>, _ needle: [UInt8]) -> Bool {
        guard haystack.count >= needle.count, let base = haystack.baseAddress else { return false }
        return needle.withUnsafeBufferPointer { needle in
            let lastStart = haystack.count - needle.count
            let ones: UInt64 = 0x0101_0101_0101_0101
            let wanted = UInt64(needle[0] | 0x20) &* ones
            func matches(at start: Int) -> Bool {
                var k = 0
                while k < needle.count && fold(base[start + k]) == needle[k] { k += 1 }
                return k == needle.count
            }
            var start = 0
            while start + 8 <= lastStart + 1 {
                let word = UnsafeRawPointer(base + start).loadUnaligned(as: UInt64.self)
                let differences = (word | 0x2020_2020_2020_2020) ^ wanted
                // A byte of `differences` is zero where the first byte may be: the usual zero-byte test.
                if (differences &- ones) & ~differences & 0x8080_8080_8080_8080 != 0 {
                    for candidate in start ..< start + 8 where matches(at: candidate) { return true }
                }
                start += 8
            }
            while start <= lastStart {
                if matches(at: start) { return true }
                start += 1
            }
            return false
        }
    }
}
