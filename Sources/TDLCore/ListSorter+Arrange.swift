import Foundation

/// The whole list of a predefined sort at once. The add time, size and queue sorts order
/// numbers with a radix sort; the name and type sorts compare folded names on two threads.
extension ListSorter {
    /// A task's key in the name and type sorts.
    private struct Entry {
        var rank: Int32
        var nameStart: Int32
        var nameCount: Int32
        /// Into the listed tasks' places in the table.
        var index: Int32
        var number: Double
        /// The first 8 name bytes, big-endian: most name comparisons end here, without memcmp.
        var prefix: UInt64
    }

    private typealias Table = [String: DownloadTask]

    /// One thread's share of the keys, in order: its entries, the name bytes they point into,
    /// and the sort names it made for tasks that had none kept (with the entry index of each).
    private struct KeysPart: Sendable {
        var entries: [Entry] = []
        var names: [UInt8] = []
        var made: [(index: Int, name: SortName)] = []
    }

    /// Where each thread leaves its part. Guarded by the mutex: taken once per part, not per task.
    private final class Handover: Sendable {
        let parts: Locked<[KeysPart?]>
        init(count: Int) { parts = Locked([KeysPart?](repeating: nil, count: count)) }
    }

    /// Lists of at least this many tasks make their keys (and sort names) on two threads: the
    /// keys of a million tasks (folding names) and their sort each take most of a second on
    /// one core.
    static let parallelThreshold = 20_000

    /// The whole list for the tasks not in the trash: sections in order, each sorted. An empty
    /// list is one empty untitled section, like a new manager's. With `keepingSortNames` the
    /// name and type sorts keep each task's sort name (see `DownloadTask.prepareSortName`)
    /// for the next sort; a listing that ends after this sort does not need them.
    func arrange(_ tasks: inout [String: DownloadTask], keepingSortNames: Bool = true) -> (sections: [[String]], titles: [String]) {
        // The listed tasks' places in the table, read in table order: nothing is retained.
        var places: [Table.Index] = []
        places.reserveCapacity(tasks.count)
        var position = tasks.values.startIndex
        let end = tasks.values.endIndex
        while position != end {
            if tasks.values[position].deletedAt == nil { places.append(position) }
            tasks.values.formIndex(after: &position)
        }
        guard !places.isEmpty else { return ([[]], [""]) }
        let positions = places
        var made: [(index: Int, name: SortName)] = []
        var sections: [[String]] = []
        var titles: [String] = []
        do {
            // Read by both threads: `tasks` is not changed until this copy is gone.
            let table = tasks
            let order = comparesNames ? nameOrder(positions, table, keepingSortNames: keepingSortNames, made: &made)
                : numberOrder(positions, table)
            // Each section's URLs, made on two threads at the section's size. The table's key is
            // the task's URL: read through the keys, a task is not copied (its box retained too).
            var start = 0
            while start < order.count {
                let major = order[start].major
                var end = start + 1
                while end < order.count && order[end].major == major { end += 1 }
                let first = start
                sections.append(ParallelFill.array(count: end - start) { k in table.keys[positions[Int(order[first + k].slot)]] })
                titles.append(title(ofRank: Self.rank(ofMajor: major)))
                start = end
            }
        }
        for (index, name) in made { tasks.values[positions[index]].keepSortName(name) }
        return (sections, titles)
    }

    /// A section rank as a radix key: ranks go from −1 (unknown sizes, descending) up.
    private static func major(ofRank rank: Int32) -> UInt32 { UInt32(bitPattern: rank &+ 1) }
    private static func rank(ofMajor major: UInt32) -> Int { Int(Int32(bitPattern: major) &- 1) }

    /// The order of the add time, size and queue sorts: each task's section rank and number,
    /// read on two threads, ordered by a radix sort (a comparison sort took a fifth of a
    /// million tasks' first frame); the few tasks equal in both go by URL, as they have no
    /// name key. Each item's slot is the task's index in `positions`. The order is total, so
    /// the descending one is the ascending one reversed.
    private func numberOrder(_ positions: [Table.Index], _ table: Table) -> [RadixItem] {
        let count = positions.count
        let partCount = count >= Self.parallelThreshold ? 2 : 1
        var items = [RadixItem](unsafeUninitializedCapacity: count) { buffer, initialized in
            let out = ParallelFill(buffer.baseAddress!)
            DispatchQueue.concurrentPerform(iterations: partCount) { p in
                numberKeys(positions, count * p / partCount ..< count * (p + 1) / partCount, table, into: out)
            }
            initialized = count
        }
        RadixOrder.sort(&items)
        let urls = table.keys
        var start = 0
        while start < count {
            var end = start + 1
            while end < count && items[end].major == items[start].major && items[end].minor == items[start].minor { end += 1 }
            if end - start > 1 { items[start ..< end].sort { urls[positions[Int($0.slot)]] < urls[positions[Int($1.slot)]] } }
            start = end
        }
        if order == .descending { items.reverse() }
        return items
    }

    /// The number keys of the tasks at `places[range]`, read in place as `makeKeys` reads.
    private func numberKeys(_ places: [Table.Index], _ range: Range<Int>, _ table: Table, into out: ParallelFill<RadixItem>) {
        let values = table.values
        for index in range {
            let place = places[index]
            let (rank, number): (Int, Double)
            switch key {
            case .addTime:
                let time = values[place].addTime.timeIntervalSinceReferenceDate
                (rank, number) = (isSectioned ? addTimeRank(time) : 0, time)
            case .fileSize:
                (rank, number) = sizeKey(values[place].size)
            case .queue, .fileName, .fileType:
                (rank, number) = (queueRank(values[place].options.queue), values[place].addTime.timeIntervalSinceReferenceDate)
            }
            out.initialize(index, to: RadixItem(minor: RadixOrder.orderedBits(number), major: Self.major(ofRank: Int32(rank)), slot: UInt32(index)))
        }
    }

    /// The order of the name and type sorts: keys made and sorted in two parts on two threads,
    /// then merged. Sort names a task did not have kept are added to `made`.
    private func nameOrder(_ positions: [Table.Index], _ table: Table, keepingSortNames: Bool,
                           made: inout [(index: Int, name: SortName)]) -> [RadixItem] {
        let partCount = positions.count >= Self.parallelThreshold ? 2 : 1
        let bounds = (0 ... partCount).map { positions.count * $0 / partCount }
        let handover = Handover(count: partCount)
        DispatchQueue.concurrentPerform(iterations: partCount) { p in
            var part = makeKeys(positions, bounds[p] ..< bounds[p + 1], table, keepingSortNames: keepingSortNames)
            withOrder(names: part.names, places: positions, table: table) { precedes in part.entries.sort(by: precedes) }
            handover.parts.withLock { $0[p] = part }
        }
        // Each part's arrays are taken, not copied (a million entries are 40 MB).
        var parts = handover.parts.withLock { parts in
            defer { parts = [] }
            return parts.compactMap { $0 }
        }
        for part in parts { made += part.made }
        // One name buffer: the second part's entries point past the first part's bytes.
        var names = parts[0].names
        parts[0].names = []
        for p in parts.indices.dropFirst() {
            let offset = Int32(names.count)
            names.append(contentsOf: parts[p].names)
            parts[p].names = []
            parts[p].entries.withUnsafeMutableBufferPointer { part in
                for k in part.indices { part[k].nameStart += offset }
            }
        }
        if parts.count == 1 { return parts[0].entries.map(Self.item) }
        return merged(parts[0].entries, parts[1].entries, names: names, places: positions, table: table)
    }

    /// Where an entry goes in the list: its section and task (see `numberOrder`).
    private static func item(_ entry: Entry) -> RadixItem {
        RadixItem(minor: 0, major: major(ofRank: entry.rank), slot: UInt32(entry.index))
    }

    /// The name keys of the tasks at `places[range]`. Fields are read in place through the table's
    /// index: binding each task to a variable would copy it (retains).
    private func makeKeys(_ places: [Table.Index], _ range: Range<Int>, _ table: Table, keepingSortNames: Bool) -> KeysPart {
        var entries: [Entry] = []
        var names: [UInt8] = []
        var made: [(index: Int, name: SortName)] = []
        entries.reserveCapacity(range.count)
        names.reserveCapacity(range.count * 24)
        let values = table.values
        for index in range {
            let place = places[index]
            let start = names.count
            let (rank, number): (Int, Double)
            if let kept = values[place].keptSortName {
                (rank, number) = fill(kept, name: &names)
            } else {
                let name = values[place].sortName
                (rank, number) = fill(name, name: &names)
                if keepingSortNames { made.append((index, name)) }
            }
            var prefix: UInt64 = 0
            for offset in 0 ..< 8 {
                prefix <<= 8
                if start + offset < names.count { prefix |= UInt64(names[start + offset]) }
            }
            entries.append(Entry(rank: Int32(rank), nameStart: Int32(start), nameCount: Int32(names.count - start),
                                 index: Int32(index), number: number, prefix: prefix))
        }
        return KeysPart(entries: entries, names: names, made: made)
    }

    /// Calls `body` with the requested order of entries whose names are in `names`.
    private func withOrder<R>(names: [UInt8], places: [Table.Index], table: Table,
                              _ body: ((Entry, Entry) -> Bool) -> R) -> R {
        let ascending = order == .ascending
        return names.withUnsafeBufferPointer { nameBuffer in
            places.withUnsafeBufferPointer { placeBuffer in
                let values = table.values
                func precedes(_ a: Entry, _ b: Entry) -> Bool {
                    var c: Int
                    if a.rank != b.rank {
                        c = a.rank < b.rank ? -1 : 1
                    } else if a.number != b.number {
                        c = a.number < b.number ? -1 : 1
                    } else if a.prefix != b.prefix {
                        c = a.prefix < b.prefix ? -1 : 1
                    } else {
                        // Equal first 8 bytes (names hold no NUL): compare the rest, then lengths.
                        let restA = max(0, Int(a.nameCount) - 8), restB = max(0, Int(b.nameCount) - 8)
                        let common = min(restA, restB)
                        c = common > 0 ? Int(memcmp(nameBuffer.baseAddress! + Int(a.nameStart) + 8,
                                                    nameBuffer.baseAddress! + Int(b.nameStart) + 8, common)) : 0
                        if c == 0 { c = Int(a.nameCount) - Int(b.nameCount) }
                        if c == 0 {
                            let ua = values[placeBuffer[Int(a.index)]].url, ub = values[placeBuffer[Int(b.index)]].url
                            c = ua == ub ? 0 : (ua < ub ? -1 : 1)
                        }
                    }
                    return ascending ? c < 0 : c > 0
                }
                return body(precedes)
            }
        }
    }

    /// The two sorted parts in one order, as items, made on two threads: one takes the first half of the
    /// order from the parts' fronts, the other the second half from their backs. The order is
    /// total (the URL settles a tie), so the halves meet where one merge would have been.
    private func merged(_ first: [Entry], _ second: [Entry], names: [UInt8], places: [Table.Index], table: Table) -> [RadixItem] {
        let count = first.count + second.count, half = count / 2
        return [RadixItem](unsafeUninitializedCapacity: count) { buffer, initialized in
            let out = ParallelFill(buffer.baseAddress!)
            DispatchQueue.concurrentPerform(iterations: 2) { fromBack in
                withOrder(names: names, places: places, table: table) { precedes in
                    if fromBack == 0 {
                        var i = 0, j = 0
                        for k in 0 ..< half {
                            if j < second.count && (i == first.count || precedes(second[j], first[i])) {
                                out.initialize(k, to: Self.item(second[j]))
                                j += 1
                            } else {
                                out.initialize(k, to: Self.item(first[i]))
                                i += 1
                            }
                        }
                    } else {
                        var i = first.count - 1, j = second.count - 1
                        for k in stride(from: count - 1, through: half, by: -1) {
                            if i >= 0 && (j < 0 || precedes(second[j], first[i])) {
                                out.initialize(k, to: Self.item(first[i]))
                                i -= 1
                            } else {
                                out.initialize(k, to: Self.item(second[j]))
                                j -= 1
                            }
                        }
                    }
                }
            }
            initialized = count
        }
    }
}
