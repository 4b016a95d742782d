import Dispatch

/// Which rows the filter keeps, decided on two threads at once for a long list: each row's
/// name is a lookup in the table of a million tasks, bound by cache misses that a second core
/// halves.
enum FilterScan {
    /// Lists shorter than this are looked at on the calling thread alone.
    static let parallelThreshold = 20_000
    /// Rows warmed ahead of being looked at.
    static let blockSize = 32

    /// `keeps(i)` for every i in 0..<count. `keeps` runs on two threads at once: it must only
    /// read (the loop that owns the manager waits meanwhile).
    ///
    /// `warm(i)` reads what `keeps(i)` will read first (a row's URL bytes) with plain loads,
    /// for a block of rows before they are looked at: the misses of a block then overlap,
    /// where the reference counting of `keeps` would wait for each one in turn.
    static func kept(count: Int, warm: (Int) -> UInt8 = { _ in 0 }, _ keeps: (Int) -> Bool) -> [Bool] {
        var flags = [Bool](repeating: false, count: count)
        let parts = count >= parallelThreshold ? 2 : 1
        flags.withUnsafeMutableBufferPointer { buffer in
            DispatchQueue.concurrentPerform(iterations: parts) { part in
                var block = count * part / parts
                let end = count * (part + 1) / parts
                var warmed: UInt8 = 0
                while block < end {
                    let blockEnd = min(end, block + blockSize)
                    for i in block ..< blockEnd { warmed &+= warm(i) }
                    for i in block ..< blockEnd { buffer[i] = keeps(i) }
                    block = blockEnd
                }
                consume(warmed)
            }
        }
        return flags
    }

    /// The first and last bytes of a URL: its storage read ahead, with plain loads.
    static func warm(_ url: String) -> UInt8 {
        (url.utf8.first ?? 0) &+ (url.utf8.last ?? 0)
    }

    /// Keeps the warming loads from being optimized away.
    @_optimize(none)
    static func consume(_ value: UInt8) {}
}
