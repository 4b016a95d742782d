/// Numbers read back from the session file, held to the ranges tdl writes: a file changed by
/// hand or by another program costs a download its progress or an option, never a trap in
/// the arithmetic done on them later.
public enum SavedNumbers {
    /// An exbibyte: offsets and sizes up to it leave room for every sum tdl makes of them.
    public static let largestOffset: Int64 = 1 << 60

    /// A size or count of bytes, or nil when it is outside 0…largestOffset.
    public static func bytes(_ value: Int64?) -> Int64? {
        guard let value, (0...largestOffset).contains(value) else { return nil }
        return value
    }

    /// The segments as recorded, or none (the download starts from zero) when one of them is
    /// outside the file tdl could have written.
    public static func segments(_ list: [Segment]) -> [Segment] {
        let valid = list.allSatisfy { s in
            bytes(s.start) != nil && bytes(s.done) != nil && s.end.map { bytes($0) != nil && $0 >= s.start && s.done <= $0 - s.start } ?? true
        }
        return valid ? list : []
    }
}

extension DownloadOptions {
    /// These options with a connection count or a rate outside what tdl accepts dropped.
    public var withinRanges: DownloadOptions {
        var options = self
        if let n = connections, !(1...Self.maxConnections).contains(n) { options.connections = nil }
        if let rate = rateLimit, !(0...RateText.largest).contains(rate) { options.rateLimit = nil }
        if let n = checksumRetries, n < 0 { options.checksumRetries = nil }
        return options
    }
}
