import Foundation

/// Places tasks for a predefined sort: which section a task belongs to and its order inside it.
///
/// The order is total: section rank, then the sorted number (add time or size), then the
/// folded display name, then the URL. Being total makes an incremental insert land exactly
/// where a full rebuild would put it. Keys are computed once per task, and names are packed
/// into one byte buffer so a 100,000-task sort compares bytes with `memcmp` and allocates
/// nothing per comparison (Swift's `String <` is several times slower).
struct ListSorter {
    let key: SortKey
    let order: SortOrder
    let isSectioned: Bool
    /// Start of today, yesterday, 7 and 30 days ago (seconds since the reference date).
    let dayBounds: (today: Double, yesterday: Double, week: Double, month: Double)
    /// The queue sort's sections in rank order (every name a listed task names, and `default`).
    let queueNames: [String]
    private let queueRanks: [String: Int]

    /// `startOfToday` is the start of the current day in the user's calendar; `queueNames`
    /// the queue sort's section names in order.
    init(key: SortKey, order: SortOrder, sectioning: SectioningOptions, startOfToday: Date, queueNames: [String] = []) {
        self.key = key
        self.order = order
        self.queueNames = queueNames
        queueRanks = Dictionary(queueNames.enumerated().map { ($1, $0) }, uniquingKeysWith: { first, _ in first })
        self.isSectioned = sectioning.isOn(for: key)
        let today = startOfToday.timeIntervalSinceReferenceDate
        dayBounds = (today, today - 86_400, today - 7 * 86_400, today - 30 * 86_400)
    }

    // MARK: - Sections

    static let addTimeTitles = ["Older", "Last 30 Days", "Last 7 Days", "Yesterday", "Today"]
    static let fileSizeTitles = ["0 – 1 MB", "1 MB – 10 MB", "10 MB – 100 MB", "100 MB – 1 GB", "Larger than 1 GB"]
    /// Tasks whose server has not said a size: last in either order, in a section of their own.
    static let unknownSizeTitle = "Unknown size"
    static let fileSizeBounds: [Int64] = [1_000_000, 10_000_000, 100_000_000, 1_000_000_000]
    /// File-name index groups: "#" (digits, symbols), "A"…"Z", "Other" (letters outside Latin).
    static let fileNameTitles = ["#"] + (UInt8(ascii: "A")...UInt8(ascii: "Z")).map { String(UnicodeScalar($0)) } + ["Other"]

    /// The title of the section with this rank ("" when the list is not sectioned).
    func title(ofRank rank: Int) -> String {
        guard isSectioned else { return "" }
        switch key {
        case .addTime: return Self.addTimeTitles[rank]
        case .fileSize: return rank == unknownSizeRank ? Self.unknownSizeTitle : Self.fileSizeTitles[rank]
        case .fileName: return Self.fileNameTitles[rank]
        case .fileType: return FileType.allCases[rank].rawValue
        case .queue: return queueNames.indices.contains(rank) ? queueNames[rank] : QueueDefinition.defaultName
        }
    }

    /// The inverse of `title(ofRank:)`; nil for a title this sort never produces.
    func rank(ofTitle title: String) -> Int? {
        guard isSectioned else { return title.isEmpty ? 0 : nil }
        switch key {
        case .addTime: return Self.addTimeTitles.firstIndex(of: title)
        case .fileSize: return title == Self.unknownSizeTitle ? unknownSizeRank : Self.fileSizeTitles.firstIndex(of: title)
        case .fileName: return Self.fileNameTitles.firstIndex(of: title)
        case .fileType: return FileType.allCases.firstIndex { $0.rawValue == title }
        case .queue: return queueRanks[title]
        }
    }

    /// The queue sort's section of a download naming `queue` (nil: the default queue).
    @inline(__always)
    func queueRank(_ queue: String?) -> Int { queueRanks[queue ?? QueueDefinition.defaultName] ?? 0 }

    func addTimeRank(_ time: Double) -> Int {
        if time >= dayBounds.today { return 4 }
        if time >= dayBounds.yesterday { return 3 }
        if time >= dayBounds.week { return 2 }
        if time >= dayBounds.month { return 1 }
        return 0
    }

    static func fileSizeRank(_ size: Int64) -> Int {
        for (rank, bound) in fileSizeBounds.enumerated() where size < bound { return rank }
        return fileSizeBounds.count
    }

    /// The unknown-size section's rank: after the largest ascending, before the smallest
    /// descending, so that the order, flipped, still puts it last.
    var unknownSizeRank: Int { order == .ascending ? Self.fileSizeBounds.count + 1 : -1 }

    /// The size sort's rank and number: an unknown size goes last whichever the order.
    @inline(__always)
    func sizeKey(_ size: Int64?) -> (rank: Int, number: Double) {
        guard let size else {
            return (isSectioned ? unknownSizeRank : 0, order == .ascending ? .infinity : -.infinity)
        }
        return (isSectioned ? Self.fileSizeRank(size) : 0, Double(size))
    }

    /// From the first byte of a folded name: a–z are 1…26, other ASCII is "#", the rest "Other".
    static func fileNameRank(firstByte: UInt8?) -> Int {
        guard let byte = firstByte else { return 0 }
        if byte >= UInt8(ascii: "a") && byte <= UInt8(ascii: "z") { return Int(byte - UInt8(ascii: "a")) + 1 }
        return byte < 0x80 ? 0 : 27
    }

    // MARK: - Keys

    /// The name and type sorts compare tasks' folded names (see `SortName`).
    var comparesNames: Bool { key == .fileName || key == .fileType }

    /// One task's place in the order (used for single inserts; `arrange` packs the same data).
    struct TaskKey {
        var rank: Int
        var number: Double
        var name: [UInt8]
        var url: String
    }

    /// Appends the task's folded name to `name` (name and type sorts only) and returns its
    /// section rank and sorted number.
    @inline(__always)
    func fill(_ task: DownloadTask, name: inout [UInt8]) -> (rank: Int, number: Double) {
        switch key {
        case .addTime:
            let time = task.addTime.timeIntervalSinceReferenceDate
            return (isSectioned ? addTimeRank(time) : 0, time)
        case .fileSize:
            return sizeKey(task.size)
        case .fileName, .fileType:
            return fill(task.sortName, name: &name)
        case .queue:
            return (queueRank(task.options.queue), task.addTime.timeIntervalSinceReferenceDate)
        }
    }

    /// The name and type sorts' part: the prepared name bytes and the section they give.
    @inline(__always)
    func fill(_ sortName: SortName, name: inout [UInt8]) -> (rank: Int, number: Double) {
        let start = name.count
        name.append(contentsOf: sortName.folded)
        if key == .fileType { return (sortName.fileType.rank, 0) }
        return (isSectioned ? Self.fileNameRank(firstByte: name.count > start ? name[start] : nil) : 0, 0)
    }

    func taskKey(of task: DownloadTask) -> TaskKey {
        var name: [UInt8] = []
        let (rank, number) = fill(task, name: &name)
        return TaskKey(rank: rank, number: number, name: name, url: task.url)
    }

    /// Case- and accent-insensitive bytes: ASCII is lowercased in place (the common case);
    /// Latin letters with accents fold to their base letter through a table; other scalars
    /// take the standard library's lowercase mapping. Foundation's `folding` is ten times slower.
    static func appendFolded(_ text: String, to buffer: inout [UInt8]) {
        var isASCII = true
        for byte in text.utf8 where byte >= 0x80 {
            isASCII = false
            break
        }
        if isASCII {
            for byte in text.utf8 {
                buffer.append(byte &- UInt8(ascii: "A") < 26 ? byte | 0x20 : byte)
            }
            return
        }
        for scalar in text.unicodeScalars {
            let value = scalar.value
            if value < 0x80 {
                let byte = UInt8(value)
                buffer.append(byte &- UInt8(ascii: "A") < 26 ? byte | 0x20 : byte)
            } else if value >= 0xC0 && value < 0x180, let base = latinBase[Int(value - 0xC0)] {
                buffer.append(base)
            } else if value >= 0x300 && value < 0x370 {
                continue  // a combining accent (decomposed text): ignored like a precomposed one
            } else {
                buffer.append(contentsOf: scalar.properties.lowercaseMapping.utf8)
            }
        }
    }

    /// Natural order for numbers in names ("f2" before "f10"), kept to a byte comparison: each
    /// run of digits from `start` on becomes "0", the count of its digits without leading
    /// zeros (one byte), then those digits. "0" sorts where any digit did against other
    /// characters, and a longer number sorts after a shorter one.
    static func encodeNumbers(_ bytes: inout [UInt8], from start: Int) {
        let zero = UInt8(ascii: "0"), nine = UInt8(ascii: "9")
        guard bytes[start...].contains(where: { $0 >= zero && $0 <= nine }) else { return }
        var result = Array(bytes[..<start])
        result.reserveCapacity(bytes.count + 8)
        var i = start
        while i < bytes.count {
            guard bytes[i] >= zero && bytes[i] <= nine else {
                result.append(bytes[i])
                i += 1
                continue
            }
            var end = i
            while end < bytes.count && bytes[end] >= zero && bytes[end] <= nine { end += 1 }
            var first = i
            while first < end - 1 && bytes[first] == zero { first += 1 }
            result.append(zero)
            result.append(UInt8(min(end - first, 255)))
            result.append(contentsOf: bytes[first ..< end])
            i = end
        }
        bytes = result
    }

    /// Base letters of U+00C0…U+017F (Latin-1 letters and Latin Extended-A); nil keeps the scalar.
    static let latinBase: [UInt8?] = {
        let latin1 = "aaaaaaaceeeeiiiidnooooo.ouuuuytsaaaaaaaceeeeiiiidnooooo.ouuuuyty"
        let extendedA = "aaaaaaccccccccddddeeeeeeeeeegggggggghhhhiiiiiiiiiiiijjkkkllllllllllnnnnnnnnnoooooooorrrrrrssssssssttttttuuuuuuuuuuuuwwyyyzzzzzzs"
        var table = (latin1 + extendedA).utf8.map { Optional($0) }
        table[0xD7 - 0xC0] = nil  // ×
        table[0xF7 - 0xC0] = nil  // ÷
        return table
    }()

    /// Three-way comparison in ascending order: negative when a goes first.
    @inline(__always)
    static func compare(_ rankA: Int, _ numberA: Double, _ nameA: UnsafeBufferPointer<UInt8>,
                        _ rankB: Int, _ numberB: Double, _ nameB: UnsafeBufferPointer<UInt8>) -> Int {
        if rankA != rankB { return rankA < rankB ? -1 : 1 }
        if numberA != numberB { return numberA < numberB ? -1 : 1 }
        let common = min(nameA.count, nameB.count)
        if common > 0 {
            let c = memcmp(nameA.baseAddress!, nameB.baseAddress!, common)
            if c != 0 { return Int(c) }
        }
        return nameA.count - nameB.count
    }

    /// True when `a` goes before `b` in the requested order.
    func precedes(_ a: TaskKey, _ b: TaskKey) -> Bool {
        var c = a.name.withUnsafeBufferPointer { na in
            b.name.withUnsafeBufferPointer { nb in Self.compare(a.rank, a.number, na, b.rank, b.number, nb) }
        }
        if c == 0 { c = a.url == b.url ? 0 : (a.url < b.url ? -1 : 1) }
        return order == .ascending ? c < 0 : c > 0
    }

    /// True when a section of rank `a` goes before one of rank `b`.
    func rankPrecedes(_ a: Int, _ b: Int) -> Bool { order == .ascending ? a < b : a > b }
}
