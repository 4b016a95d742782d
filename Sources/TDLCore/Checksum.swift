/// A checksum the finished file must match.
public struct Checksum: Hashable, Sendable, Codable {
    public enum Algorithm: String, Sendable, CaseIterable {
        case md5, sha1, sha256, sha512

        /// "sha256", "SHA-256" (aria2's spelling) or "sha-256".
        public init?(spelled name: String) {
            self.init(rawValue: String(name.lowercased().filter { $0 != "-" }))
        }
    }
    public var algorithm: Algorithm
    public var hex: String

    public init(algorithm: Algorithm, hex: String) {
        self.algorithm = algorithm
        self.hex = hex.lowercased()
    }

    /// Parses "sha256=ABCD…" (or aria2's "sha-256=ABCD…"); nil when the algorithm is unknown or
    /// the digest is not hex of the right length.
    public init?(_ text: String) {
        let parts = text.split(separator: "=", maxSplits: 1).map(String.init)
        guard parts.count == 2, let algorithm = Algorithm(spelled: parts[0]) else { return nil }
        let hex = parts[1].lowercased()
        let lengths: [Algorithm: Int] = [.md5: 32, .sha1: 40, .sha256: 64, .sha512: 128]
        guard hex.count == lengths[algorithm], hex.allSatisfy({ $0.isHexDigit }) else { return nil }
        self.init(algorithm: algorithm, hex: hex)
    }

    public var description: String { "\(algorithm.rawValue)=\(hex)" }

    /// The algorithm whose digests have this many hex digits.
    public static func algorithm(forHexLength length: Int) -> Algorithm? {
        [32: .md5, 40: .sha1, 64: .sha256, 128: .sha512][length]
    }

    /// What a person reads when a checksum given as text is not one.
    public static let expectedForm = "md5|sha1|sha256|sha512=<hex digits of the right length> (sha-256= too)"

    // Saved and sent as the text a user types ("sha256=…").
    public init(from decoder: Decoder) throws {
        let text = try decoder.singleValueContainer().decode(String.self)
        guard let checksum = Checksum(text) else {
            throw DecodingError.dataCorrupted(.init(codingPath: decoder.codingPath, debugDescription: "not a checksum: \(text)"))
        }
        self = checksum
    }

    public func encode(to encoder: Encoder) throws {
        var container = encoder.singleValueContainer()
        try container.encode(description)
    }
}
