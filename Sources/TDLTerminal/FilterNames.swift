import Dispatch
import TDLCore

/// The display names of the filter's rows, in the rows' order, read from the manager between
/// keys. Typing on then narrows a million rows by reading these bytes one after another,
/// where looking each task up by its URL waits on a cache miss after another (most of half a
/// second). Rows not read yet, and tasks that changed since they were read, are looked up.
struct FilterNames {
    /// Whether names were read with their extension hidden: they are all wrong once that changes.
    let hidingExtension: Bool
    /// The UTF-8 of the names of rows 0..<known, one after another (a section's row has none).
    private var bytes: [UInt8] = []
    /// Where the name of each row read so far ends in `bytes`.
    private var ends: [UInt32] = []
    /// Tasks whose name may have changed since it was read.
    private var changed: Set<String> = []

    init(hidingExtension: Bool, rows: Int = 0) {
        self.hidingExtension = hidingExtension
        ends.reserveCapacity(rows)
    }

    /// How many rows, from the first, have their name here.
    var known: Int { ends.count }

    /// Notes that a task's name may have changed: it is looked up again.
    mutating func forget(_ url: String) {
        changed.insert(url)
    }

    /// Reads the names of the rows after those known until `deadline` (uptime nanoseconds);
    /// returns whether some are left.
    mutating func read(_ entries: [ListEntry], from manager: DownloadManager, until deadline: UInt64) -> Bool {
        var row = known
        while row < entries.count {
            if let url = entries[row].url, let name = manager.displayName(of: url) { bytes.append(contentsOf: name.utf8) }
            guard bytes.count <= UInt32.max else { return false }
            ends.append(UInt32(bytes.count))
            row += 1
            if row % 256 == 0 && DispatchTime.now().uptimeNanoseconds >= deadline { break }
        }
        return row < entries.count
    }

    /// Calls `body` with a function that gives the name of a row (with its URL) as UTF-8, or
    /// nil when it must be looked up. The function only reads: it may run on several threads.
    func withNames<R>(_ body: ((Int, String) -> UnsafeBufferPointer<UInt8>?) -> R) -> R {
        bytes.withUnsafeBufferPointer { bytes in
            ends.withUnsafeBufferPointer { ends in
                body { row, url in
                    guard row < ends.count, changed.isEmpty || !changed.contains(url) else { return nil }
                    let start = row == 0 ? 0 : Int(ends[row - 1])
                    return UnsafeBufferPointer(rebasing: bytes[start ..< Int(ends[row])])
                }
            }
        }
    }

    /// The names of the rows `keeps` keeps, in order: those of a narrower filter's rows.
    func kept(_ keeps: [Bool]) -> FilterNames {
        var result = FilterNames(hidingExtension: hidingExtension)
        result.changed = changed
        for row in 0 ..< min(known, keeps.count) where keeps[row] {
            let start = row == 0 ? 0 : Int(ends[row - 1])
            result.bytes.append(contentsOf: bytes[start ..< Int(ends[row])])
            result.ends.append(UInt32(result.bytes.count))
        }
        return result
    }
}
