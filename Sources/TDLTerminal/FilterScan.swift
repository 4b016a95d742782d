import TDLCore

/// Which rows the filter keeps, decided on two threads at once for a long list: each row's
/// name is a lookup in the table of a million tasks, bound by cache misses that a second core
/// halves.
enum FilterScan {
    /// Lists shorter than this are looked at on the calling thread alone.
    static let parallelThreshold = 20_000
    /// Rows warmed ahead of being looked at.
    static let blockSize = 32

    /// `keeps(i)` for every i in 0..<count. `keeps` runs on two threads at once: it sees only
    /// what it captures, which is Sendable (the rows and a `ListSnapshot`, never the manager).
    ///
    /// `warm(i)` reads what `keeps(i)` will read first (a row's URL bytes) with plain loads,
    /// for a block of rows before they are looked at: the misses of a block then overlap,
    /// where the reference counting of `keeps` would wait for each one in turn.
    static func kept(count: Int, warm: @Sendable (Int) -> UInt8 = { _ in 0 }, _ keeps: @Sendable (Int) -> Bool) -> [Bool] {
        let parts = count >= parallelThreshold ? ParallelParts.pieceCount : 1
        let pieces = ParallelParts.map(parts) { part in
            let start = count * part / parts, end = count * (part + 1) / parts
            var flags = [Bool](repeating: false, count: end - start)
            flags.withUnsafeMutableBufferPointer { flags in
                var block = start
                var warmed: UInt8 = 0
                while block < end {
                    let blockEnd = min(end, block + blockSize)
                    for i in block ..< blockEnd { warmed &+= warm(i) }
                    for i in block ..< blockEnd { flags[i - start] = keeps(i) }
                    block = blockEnd
                }
                consume(warmed)
            }
            return flags
        }
        return pieces.count == 1 ? pieces[0] : Array(pieces.joined())
    }

    /// The first and last bytes of a URL: its storage read ahead, with plain loads.
    static func warm(_ url: String) -> UInt8 {
        (url.utf8.first ?? 0) &+ (url.utf8.last ?? 0)
    }

    /// Keeps the warming loads from being optimized away.
    @_optimize(none)
    static func consume(_ value: UInt8) {}
}
