import Foundation

/// A sum file as `sha256sum`, `sha512sum`, `md5sum` (and `shasum`) write it: "HEX  name", or
/// "HEX *name" for binary mode; the BSD form "SHA256 (name) = HEX" too. The algorithm is told
/// by the digest's length. Names are matched on their last path component.
public struct ChecksumList: Sendable, Equatable {
    public private(set) var byName: [String: Checksum] = [:]
    /// A digest with no name (a `.sha256` file holding only the hex): it is for the one file asked.
    public private(set) var unnamed: Checksum?
    /// "line 3: not a checksum line" — the rest is still used.
    public private(set) var problems: [String] = []

    public init(text: String) {
        for (number, raw) in text.split(separator: "\n", omittingEmptySubsequences: false).enumerated() {
            let line = raw.trimmingWhitespace()
            if line.isEmpty || line.hasPrefix("#") { continue }
            guard let (hex, name, algorithm) = Self.parse(line), let checksum = Checksum(algorithm: algorithm, validHex: hex) else {
                problems.append("line \(number + 1): not a checksum line")
                continue
            }
            if let name { byName[Self.baseName(name)] = checksum } else { unnamed = checksum }
        }
    }

    public var isEmpty: Bool { byName.isEmpty && unnamed == nil }

    /// The checksum listed for a file of this name, nil when it is not listed.
    public func checksum(forFileName name: String) -> Checksum? { byName[Self.baseName(name)] }

    private static func baseName<S: StringProtocol>(_ path: S) -> String {
        let text = String(path)
        guard let slash = text.lastIndex(of: "/") else { return text }
        return String(text[text.index(after: slash)...])
    }

    private static func parse(_ line: Substring) -> (String, Substring?, Checksum.Algorithm)? {
        // BSD: "SHA256 (name) = hex"
        if let open = line.firstIndex(of: "("), let close = line.range(of: ") = ", options: .backwards),
           let algorithm = Checksum.Algorithm(spelled: String(line[..<open].trimmingWhitespace())) {
            return (String(line[close.upperBound...]), line[line.index(after: open) ..< close.lowerBound], algorithm)
        }
        let hexEnd = line.firstIndex { $0 == " " || $0 == "\t" } ?? line.endIndex
        var hex = String(line[..<hexEnd])
        // A name with a backslash or line end is escaped, and its line starts with "\".
        if hex.hasPrefix("\\") { hex.removeFirst() }
        guard let algorithm = Checksum.algorithm(forHexLength: hex.count) else { return nil }
        var rest = line[hexEnd...].drop { $0 == " " || $0 == "\t" }
        if rest.first == "*" { rest = rest.dropFirst() }
        return (hex, rest.isEmpty ? nil : rest, algorithm)
    }
}

extension Checksum {
    /// Nil when `hex` is not hex of the algorithm's length.
    init?(algorithm: Algorithm, validHex hex: String) {
        self.init(algorithm.rawValue + "=" + hex)
    }
}
