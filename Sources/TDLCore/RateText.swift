/// A rate typed by a person or sent by a program ("500K", "2M", "1.5G", "800", "2MB/s"),
/// read with checked arithmetic: a value too large, too small or malformed is an error with
/// words for the user, never a trap (one value over RPC used to end `tdl serve`).
///
/// One unit system, the list's: K, M, G, T are powers of 1000, so "500K" is shown as
/// "500.0 KB/s". "Ki", "Mi", "Gi", "Ti" (and "KiB"…) count 1024s for those who mean them.
public enum RateText {
    public struct Problem: Error, Equatable, CustomStringConvertible {
        public let description: String
    }

    /// 1000G a second: far above any link, and small enough that a rate times a few million
    /// (the token bucket's nanoseconds, a read's share) stays inside Int64.
    public static let largest: Int64 = 1_000_000_000_000
    public static let example = "500K, 2M or 1048576"

    /// Bytes a second; 0 is "no limit".
    public static func parse(_ text: String) throws -> Int64 {
        var s = Substring(text.trimmingCharacters(in: .whitespaces).uppercased())
        let shown = TerminalText.clean(String(text.prefix(40)))
        let malformed = Problem(description: "\"\(shown)\" is not a rate: give a number with K, M or G, e.g. \(example)")
        if s.hasSuffix("/S") { s = s.dropLast(2) }
        if s.hasSuffix("B") { s = s.dropLast() }
        var base: Int64 = 1000
        if s.hasSuffix("I") { base = 1024; s = s.dropLast() }
        var multiplier: Int64 = 1
        if let last = s.last, let power = ["K": 1, "M": 2, "G": 3, "T": 4][last] {
            for _ in 0..<power { multiplier *= base }
            s = s.dropLast()
        } else if base == 1024 {
            throw malformed
        }
        let parts = s.split(separator: ".", maxSplits: 1, omittingEmptySubsequences: false)
        let whole = parts[0], fraction = parts.count > 1 ? parts[1] : ""
        guard !(whole.isEmpty && fraction.isEmpty), (whole + fraction).allSatisfy({ $0.isASCII && $0.isNumber }),
              parts.count == 1 || !fraction.isEmpty || !whole.isEmpty else { throw malformed }
        let tooLarge = Problem(description: "\"\(shown)\" is too large: at most 1000G (\(largest) bytes a second)")
        // Leading zeros cost nothing; more digits than Int64 holds are too large, not a trap.
        let digits = whole.drop { $0 == "0" }
        guard digits.count <= 18, let units = Int64(digits.isEmpty ? "0" : String(digits)) else { throw tooLarge }
        let (bytes, overflow) = units.multipliedReportingOverflow(by: multiplier)
        guard !overflow else { throw tooLarge }
        // The fraction adds less than one multiplier: a Double is exact enough for it.
        let part = Double("0." + (fraction.isEmpty ? "0" : fraction.prefix(12))) ?? 0
        let (total, overflowed) = bytes.addingReportingOverflow(Int64((part * Double(multiplier)).rounded(.down)))
        guard !overflowed, total <= largest else { throw tooLarge }
        if total == 0 && (whole + fraction).contains(where: { $0 != "0" }) {
            throw Problem(description: "\"\(shown)\" is less than one byte a second (0 means no limit)")
        }
        return total
    }

    /// `parse`'s answer, or nil where it finds a problem.
    public static func value(_ text: String) -> Int64? { try? parse(text) }
}
