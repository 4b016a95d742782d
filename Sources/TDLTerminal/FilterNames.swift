import Dispatch
import TDLCore

/// The display names of the filter's rows, in the rows' order, read from the manager between
/// keys. Typing on then narrows a million rows by reading these bytes one after another,
/// where looking each task up by its URL waits on a cache miss after another (most of half a
/// second). Rows not read yet, and tasks that changed since they were read, are looked up.
struct FilterNames {
    /// The UTF-8 of the names of rows 0..<known, one after another (a section's row has none).
    private var bytes: [UInt8] = []
    /// Where the name of each row read so far ends in `bytes`.
    private var ends: [UInt32] = []
    /// Tasks whose name may have changed since it was read.
    private var changed: Set<String> = []

    init(rows: Int = 0) {
        ends.reserveCapacity(rows)
    }

    /// How many rows, from the first, have their name here.
    var known: Int { ends.count }

    /// Notes that a task's name may have changed: it is looked up again.
    mutating func forget(_ url: String) {
        changed.insert(url)
    }

    /// Rows read at a time, between two looks at the clock, on two threads.
    static let chunkRows = 4096

    /// Reads the names of the rows after those known until `deadline` (uptime nanoseconds);
    /// returns whether some are left. The two threads read `list`, an immutable copy the loop
    /// made; the loop waits for them.
    mutating func read(_ entries: ListEntries, from list: ListSnapshot, until deadline: UInt64) -> Bool {
        while known < entries.count {
            let chunk = known ..< min(entries.count, known + Self.chunkRows)
            // Each half of the chunk into a buffer of its own.
            let parts = chunk.count >= 1024 ? 2 : 1
            let pieces = ParallelParts.map(parts) { part in
                var piece: (bytes: [UInt8], ends: [UInt32]) = ([], [])
                let rows = chunk.lowerBound + chunk.count * part / parts ..< chunk.lowerBound + chunk.count * (part + 1) / parts
                piece.bytes.reserveCapacity(rows.count * 32)
                piece.ends.reserveCapacity(rows.count)
                // URLs read ahead a block at a time, as the filter does (see `FilterScan`).
                var warmed: UInt8 = 0
                for block in stride(from: rows.lowerBound, to: rows.upperBound, by: FilterScan.blockSize) {
                    let blockRows = block ..< min(rows.upperBound, block + FilterScan.blockSize)
                    for row in blockRows { warmed &+= entries[row].url.map(FilterScan.warm) ?? 0 }
                    for row in blockRows {
                        if let url = entries[row].url, let name = list.displayName(of: url) { piece.bytes.append(contentsOf: name.utf8) }
                        piece.ends.append(UInt32(piece.bytes.count))
                    }
                }
                FilterScan.consume(warmed)
                return piece
            }
            for piece in pieces {
                guard bytes.count + piece.bytes.count <= UInt32.max else { return false }
                let base = UInt32(bytes.count)
                bytes.append(contentsOf: piece.bytes)
                ends.append(contentsOf: piece.ends.lazy.map { base + $0 })
            }
            if DispatchTime.now().uptimeNanoseconds >= deadline { break }
        }
        return known < entries.count
    }

    /// `body` of the UTF-8 of a row's name (the row's URL given), or nil when the name must be
    /// looked up. Only reads: the filter's threads call it at once.
    func withName<R>(row: Int, url: String, _ body: (UnsafeBufferPointer<UInt8>) -> R) -> R? {
        guard row < ends.count, changed.isEmpty || !changed.contains(url) else { return nil }
        let start = row == 0 ? 0 : Int(ends[row - 1]), end = Int(ends[row])
        return bytes.withUnsafeBufferPointer { body(UnsafeBufferPointer(rebasing: $0[start ..< end])) }
    }

    /// The names of the rows `keeps` keeps, in order: those of a narrower filter's rows.
    func kept(_ keeps: [Bool]) -> FilterNames {
        var result = FilterNames()
        result.changed = changed
        for row in 0 ..< min(known, keeps.count) where keeps[row] {
            let start = row == 0 ? 0 : Int(ends[row - 1])
            result.bytes.append(contentsOf: bytes[start ..< Int(ends[row])])
            result.ends.append(UInt32(result.bytes.count))
        }
        return result
    }
}
