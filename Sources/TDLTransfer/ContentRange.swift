import TDLCore

/// A `Content-Range: bytes FIRST-LAST/TOTAL` read strictly (RFC 9110): TOTAL is digits or `*`.
/// A server that writes `/-1` or `/abc` is not guessed at: its answer cannot be placed in a file.
struct ContentRange: Equatable {
    let first: Int64
    let last: Int64
    /// nil for `*` (the server does not know).
    let total: Int64?

    init?(_ value: String) {
        let text = value.trimmingWhitespace()
        guard text.lowercased().hasPrefix("bytes ") else { return nil }
        let spec = text.dropFirst(6).trimmingWhitespace()
        guard let slash = spec.firstIndex(of: "/") else { return nil }
        let span = spec[..<slash], totalText = spec[spec.index(after: slash)...]
        let ends = span.split(separator: "-", omittingEmptySubsequences: false)
        guard ends.count == 2, let first = Self.digits(ends[0]), let last = Self.digits(ends[1]), first <= last else { return nil }
        if totalText == "*" {
            total = nil
        } else {
            guard let total = Self.digits(totalText), last < total else { return nil }
            self.total = total
        }
        self.first = first
        self.last = last
    }

    private static func digits(_ text: Substring) -> Int64? {
        guard !text.isEmpty, text.allSatisfy({ $0.isASCII && $0.isNumber }) else { return nil }
        return Connection.byteCount(text)
    }
}

/// Whether a 206's total can be the file being written: a total that is broken, smaller than
/// the bytes already held, or another than the one this download knows under the same strong
/// ETag ends the download with the reason, where it once made tdl reconnect without end.
enum TotalCheck {
    enum Verdict: Equatable {
        case fine
        /// The server's answer cannot be right: the download fails with this reason.
        case broken(String)
        /// Another total without a validator that vouches for the file: the file changed.
        case changed(String)
    }

    /// - Parameters:
    ///   - total: the Content-Range's total (nil for `*`).
    ///   - requestStart: the first byte asked for (0 for a request without a range).
    ///   - held: the end of the bytes already received for this download.
    ///   - known: the size this download knows (nil before the first answer).
    ///   - sameStrongETag: the answer's strong ETag is the one stored with the partial.
    static func verdict(total: Int64?, requestStart: Int64, held: Int64, known: Int64?, sameStrongETag: Bool) -> Verdict {
        guard let total else { return .fine }
        if total < max(requestStart, held) {
            return .broken("the server's total (\(total) bytes) is less than what was already received (\(max(requestStart, held)))")
        }
        if let known, total != known {
            let what = "the server's total changed from \(known) to \(total) bytes"
            return sameStrongETag ? .broken(what + " under the same ETag") : .changed(what)
        }
        return .fine
    }
}
