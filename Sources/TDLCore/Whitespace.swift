extension StringProtocol {
    /// Without white space (spaces, tabs, line ends) at either end. Foundation's
    /// `trimmingCharacters(in:)` was a visible part of reading a list of URLs, of every added
    /// name and of every header line. So was this code while it was generic across modules:
    /// inlinable, it is specialized for the caller's string type. Only a non-ASCII end asks
    /// the Unicode tables.
    @inlinable
    public func trimmingWhitespace() -> SubSequence {
        let scalars = unicodeScalars
        var start = scalars.startIndex
        var end = scalars.endIndex
        while start < end, scalars[start].isTrimmedWhitespace { start = scalars.index(after: start) }
        while end > start, scalars[scalars.index(before: end)].isTrimmedWhitespace { end = scalars.index(before: end) }
        return self[start ..< end]
    }
}

extension Unicode.Scalar {
    /// ASCII is answered without the Unicode property tables, which are a lookup per scalar.
    @usableFromInline
    var isTrimmedWhitespace: Bool {
        switch value {
        case 0x09 ... 0x0D, 0x20: return true
        case 0 ..< 0x80: return false
        default: return properties.isWhitespace
        }
    }
}
