extension StringProtocol {
    /// Without white space (spaces, tabs, line ends) at either end. Foundation's
    /// `trimmingCharacters(in:)` was a visible part of reading a list of URLs, of every added
    /// name and of every header line.
    public func trimmingWhitespace() -> SubSequence {
        let scalars = unicodeScalars
        guard let first = scalars.firstIndex(where: { !$0.properties.isWhitespace }),
              let last = scalars.lastIndex(where: { !$0.properties.isWhitespace }) else { return self[endIndex...] }
        return self[first ... last]
    }
}
