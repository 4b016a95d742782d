import Foundation

/// The whole list of a predefined sort at once: each task's keys read on two threads, then put
/// in order by a radix sort of its section and its number or the first 8 bytes of its name.
extension ListSorter {
    /// A task's place in the name and type sorts: its section, its name's first 24 bytes
    /// (big-endian, zero past the name's end: names hold no NUL, so a shorter name goes
    /// first), and its index in the listed tasks' places. A radix sort orders the section and
    /// first 8 bytes; what it leaves tied is ordered by the next 16 bytes, held here so that
    /// the comparisons read no other memory (a million names share a few hundred beginnings).
    private struct NameItem: RadixKeyed {
        var major: UInt32
        var slot: UInt32
        var minor: UInt64
        var middle: UInt64
        var last: UInt64
    }

    /// Where a task's folded name lies in the names buffer.
    private struct NameSpan {
        var start: Int32
        var count: Int32
    }

    private typealias Table = [String: DownloadTask]

    /// One piece of the keys: its tasks' name bytes, and the sort names it made for tasks that
    /// had none kept (with the index of each).
    private struct KeysPart: Sendable {
        var names: [UInt8] = []
        var made: [(index: Int, name: SortName)] = []
    }

    /// Lists of at least this many tasks make their keys (and sort names) on two threads:
    /// reading a million tasks' fields (folding names) takes most of a second on one core.
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
        for run in RadixOrder.ties(in: 0 ..< count, { items[$0].hasSameKeys(as: items[$1]) }) {
            items[run].sort { urls[positions[Int($0.slot)]] < urls[positions[Int($1.slot)]] }
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
            case .queue:
                (rank, number) = (queueRank(values[place].options.queue), values[place].addTime.timeIntervalSinceReferenceDate)
            case .fileName, .fileType:
                (rank, number) = (0, 0)  // not asked for: the name sorts make name keys (`nameOrder`)
            }
            out.initialize(index, to: RadixItem(minor: RadixOrder.orderedBits(number), major: Self.major(ofRank: Int32(rank)), slot: UInt32(index)))
        }
    }

    /// The order of the name and type sorts: keys made in parts on two threads, a radix sort
    /// of section and first 8 name bytes, then each run those leave tied by the next 16 bytes,
    /// and the runs still tied by the whole name and the URL. Sort names a task did not have
    /// kept are added to `made`. The order is total, so the descending one is the ascending
    /// one reversed.
    private func nameOrder(_ positions: [Table.Index], _ table: Table, keepingSortNames: Bool,
                           made: inout [(index: Int, name: SortName)]) -> [RadixItem] {
        // In pieces the two threads take in turn, each writing its tasks' items and spans in
        // place, its name bytes into a buffer of its own.
        let count = positions.count
        let partCount = count >= Self.parallelThreshold ? ParallelParts.pieceCount : 1
        let pieces = (0 ... partCount).map { count * $0 / partCount }
        var parts: [KeysPart] = []
        var spans: [NameSpan] = []
        var items = [NameItem](unsafeUninitializedCapacity: count) { itemBuffer, itemsMade in
            spans = [NameSpan](unsafeUninitializedCapacity: count) { spanBuffer, spansMade in
                let keys = (items: ParallelFill(itemBuffer.baseAddress!), spans: ParallelFill(spanBuffer.baseAddress!))
                parts = ParallelParts.map(partCount) { p in
                    makeKeys(positions, pieces[p] ..< pieces[p + 1], table, keepingSortNames: keepingSortNames, into: keys)
                }
                spansMade = count
            }
            itemsMade = count
        }
        // One name buffer: a later part's spans point past the earlier parts' bytes.
        var names = parts[0].names
        made += parts[0].made
        parts[0] = KeysPart()
        for p in parts.indices.dropFirst() {
            let offset = Int32(names.count)
            names.append(contentsOf: parts[p].names)
            for k in pieces[p] ..< pieces[p + 1] { spans[k].start += offset }
            made += parts[p].made
            parts[p] = KeysPart()
        }
        RadixOrder.sort(&items)
        // The runs the radix sort left tied, in two halves of the list split between runs.
        var split = items.count / 2
        while split > 0 && split < items.count && items[split].hasSameKeys(as: items[split - 1]) { split += 1 }
        let halves = items.count >= Self.parallelThreshold ? [0 ..< split, split ..< items.count] : [0 ..< items.count]
        let (nameBytes, nameSpans) = (names, spans)
        items.withUnsafeMutableBufferPointer { buffer in
            let shared = TiedRuns(items: buffer)
            DispatchQueue.concurrentPerform(iterations: halves.count) { h in
                settle(shared, halves[h], names: nameBytes, spans: nameSpans, positions: positions, table: table)
            }
        }
        let ascending = order == .ascending
        return [RadixItem](unsafeUninitializedCapacity: items.count) { buffer, initialized in
            for (k, item) in items.enumerated() {
                (buffer.baseAddress! + (ascending ? k : items.count - 1 - k)).initialize(to: RadixItem(minor: 0, major: item.major, slot: item.slot))
            }
            initialized = items.count
        }
    }

    /// The items two threads order at once, each in its own half of the runs: guarded by the
    /// split, as neither reads or writes past the run boundary between the halves.
    private struct TiedRuns: @unchecked Sendable {
        let items: UnsafeMutableBufferPointer<NameItem>
    }

    /// Orders the runs of `range` whose section and first 8 bytes are equal: by the next 16
    /// bytes, then by the rest of the name, its length and the URL.
    private func settle(_ runs: TiedRuns, _ range: Range<Int>, names: [UInt8], spans: [NameSpan],
                        positions: [Table.Index], table: Table) {
        let items = runs.items, urls = table.keys
        names.withUnsafeBufferPointer { names in
            /// Names equal in their first 24 bytes: the rest, then the length, then the URL.
            func precedes(_ a: NameItem, _ b: NameItem) -> Bool {
                let x = spans[Int(a.slot)], y = spans[Int(b.slot)]
                let common = Int(min(x.count, y.count)) - 24
                var c = common > 0 ? Int(memcmp(names.baseAddress! + Int(x.start) + 24, names.baseAddress! + Int(y.start) + 24, common)) : 0
                if c == 0 { c = Int(x.count) - Int(y.count) }
                if c == 0 { return urls[positions[Int(a.slot)]] < urls[positions[Int(b.slot)]] }
                return c < 0
            }
            for run in RadixOrder.ties(in: range, { items[$0].hasSameKeys(as: items[$1]) }) {
                var byMiddle = UnsafeMutableBufferPointer(rebasing: items[run])
                byMiddle.sort { ($0.middle, $0.last) < ($1.middle, $1.last) }
                for tied in RadixOrder.ties(in: run, { items[$0].middle == items[$1].middle && items[$0].last == items[$1].last }) {
                    var whole = UnsafeMutableBufferPointer(rebasing: items[tied])
                    whole.sort(by: precedes)
                }
            }
        }
    }

    /// The name keys of the tasks at `places[range]`, written at their indices into `into`;
    /// their name bytes and the sort names made are returned. Fields are read in place
    /// through the table's index: binding each task to a variable would copy it (retains).
    private func makeKeys(_ places: [Table.Index], _ range: Range<Int>, _ table: Table, keepingSortNames: Bool,
                          into keys: (items: ParallelFill<NameItem>, spans: ParallelFill<NameSpan>)) -> KeysPart {
        var part = KeysPart()
        part.names.reserveCapacity(range.count * 24)
        let values = table.values
        for index in range {
            let place = places[index]
            let start = part.names.count
            let rank: Int
            if let kept = values[place].keptSortName {
                rank = fill(kept, name: &part.names).rank
            } else {
                let name = values[place].sortName
                rank = fill(name, name: &part.names).rank
                if keepingSortNames { part.made.append((index, name)) }
            }
            let count = part.names.count - start
            /// Eight bytes of the name from `offset`, big-endian, zero past its end.
            func word(_ offset: Int) -> UInt64 {
                var word: UInt64 = 0
                for byte in offset ..< offset + 8 {
                    word <<= 8
                    if byte < count { word |= UInt64(part.names[start + byte]) }
                }
                return word
            }
            keys.items.initialize(index, to: NameItem(major: Self.major(ofRank: Int32(rank)), slot: UInt32(index),
                                                      minor: word(0), middle: word(8), last: word(16)))
            keys.spans.initialize(index, to: NameSpan(start: Int32(start), count: Int32(count)))
        }
        return part
    }
}
