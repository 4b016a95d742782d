import TDLCore

/// The byte ranges of one file and how far each is written: how a file is cut over its
/// connections, and cut again when one falls free. `Link` is what fills a segment (a
/// `Connection` in the engine); the table only says whether a segment has one.
struct SegmentTable<Link: AnyObject> {
    struct Entry {
        var start: Int64
        /// Exclusive; nil while the size is unknown.
        var end: Int64?
        /// Bytes written (not yet necessarily durable).
        var written: Int64
        /// Bytes known to be durable (fdatasync'ed).
        var durable: Int64
        var link: Link?
        var retryAt: Double?

        var isComplete: Bool { end.map { start + written >= $0 } ?? false }
        var remaining: Int64 { end.map { $0 - start - written } ?? .max }
    }

    /// Segments are not split below this size (aria2's -k).
    static var minSegmentSize: Int64 { 1 << 20 }

    private(set) var entries: [Entry]

    /// One segment from byte 0 to an end not yet known.
    init() {
        entries = [Entry(start: 0, end: nil, written: 0, durable: 0)]
    }

    /// The segments the session recorded: what they hold is durable.
    init(recorded: [Segment]) {
        entries = recorded.map { Entry(start: $0.start, end: $0.end, written: $0.done, durable: $0.done) }
    }

    subscript(i: Int) -> Entry {
        get { entries[i] }
        set { entries[i] = newValue }
    }

    var indices: Range<Int> { entries.indices }
    var count: Int { entries.count }
    var isSegmented: Bool { entries.count > 1 }
    var links: [Link] { entries.compactMap(\.link) }
    var written: Int64 { entries.reduce(0) { $0 + $1.written } }
    var allComplete: Bool { entries.allSatisfy(\.isComplete) }
    var anyWritten: Bool { entries.contains { $0.written > 0 } }
    /// The end of the bytes received so far, over every segment.
    var highestReceived: Int64 { entries.map { $0.start + $0.written }.max() ?? 0 }

    /// The offsets written, or those known durable, as the session records them.
    func recorded(durable: Bool = false) -> [Segment] {
        entries.map { Segment(start: $0.start, end: $0.end, done: durable ? $0.durable : $0.written) }
    }

    /// After a crash the database is trusted, but a part file shorter than recorded (truncated
    /// by someone) can only be trusted up to its length.
    mutating func clamp(toFileSize fileSize: Int64) {
        for i in entries.indices {
            let available = max(0, fileSize - entries[i].start)
            if entries[i].written > available {
                entries[i].written = available
                entries[i].durable = min(entries[i].durable, available)
            }
        }
    }

    /// Takes up to `count` bytes into segment `i`, never past its end; how many it took.
    mutating func take(_ count: Int, into i: Int) -> Int {
        let n = Int(min(Int64(count), entries[i].remaining))
        if n > 0 { entries[i].written += Int64(n) }
        return n
    }

    /// Bytes a failed write did not put in the file are no longer counted.
    mutating func takeBack(_ count: Int, from i: Int) {
        entries[i].written -= Int64(count)
    }

    /// What a checkpoint found durable: each segment's `written` at the time it was taken.
    mutating func markDurable(_ snapshot: [Segment]) {
        for (k, segment) in snapshot.enumerated() where k < entries.count {
            entries[k].durable = segment.done
        }
    }

    /// Splits a fresh file of `size` bytes into up to `connections` segments of at least the
    /// minimum size; the first keeps its link. True when it was split.
    mutating func plan(size: Int64, connections: Int) -> Bool {
        entries[0].end = size
        let count = Int(min(Int64(connections), max(1, size / Self.minSegmentSize)))
        guard count > 1 else { return false }
        let step = size / Int64(count)
        entries[0].end = step
        for k in 1..<count {
            let start = Int64(k) * step
            entries.append(Entry(start: start, end: k == count - 1 ? size : start + step, written: 0, durable: 0))
        }
        return true
    }

    /// The segment with a link and the most left to fetch, when it is worth cutting in two.
    func largestSplittable() -> Int? {
        guard let i = entries.indices.filter({ entries[$0].link != nil }).max(by: { entries[$0].remaining < entries[$1].remaining }),
              entries[i].end != nil, entries[i].remaining >= 2 * Self.minSegmentSize else { return nil }
        return i
    }

    /// Cuts segment `i`'s remaining bytes in two; the new second half is the returned index.
    mutating func split(_ i: Int) -> Int {
        let end = entries[i].end!
        let middle = entries[i].start + entries[i].written + entries[i].remaining / 2
        entries[i].end = middle
        entries.append(Entry(start: middle, end: end, written: 0, durable: 0))
        return entries.count - 1
    }

    /// Unknown size: the end of the answer is the end of segment `i`.
    mutating func endHere(_ i: Int) {
        entries[i].end = entries[i].start + entries[i].written
    }

    /// Every link dropped.
    mutating func unlinkAll() {
        for i in entries.indices { entries[i].link = nil }
    }
}
