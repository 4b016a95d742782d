import Dispatch

/// Which rows the filter keeps, decided on two threads at once for a long list: each row's
/// name is a lookup in the table of a million tasks, bound by cache misses that a second core
/// halves.
enum FilterScan {
    /// Lists shorter than this are looked at on the calling thread alone.
    static let parallelThreshold = 20_000

    /// `keeps(i)` for every i in 0..<count. `keeps` runs on two threads at once: it must only
    /// read (the loop that owns the manager waits meanwhile).
    static func kept(count: Int, _ keeps: (Int) -> Bool) -> [Bool] {
        var flags = [Bool](repeating: false, count: count)
        let parts = count >= parallelThreshold ? 2 : 1
        flags.withUnsafeMutableBufferPointer { buffer in
            DispatchQueue.concurrentPerform(iterations: parts) { part in
                for i in count * part / parts ..< count * (part + 1) / parts { buffer[i] = keeps(i) }
            }
        }
        return flags
    }
}
