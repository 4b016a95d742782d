/// The rows a view shows. The whole list's rows are read through the manager's sections when
/// asked for, not copied: made one by one, a million rows each retained a URL at every launch
/// and sort, and released them again at the next. A filter's rows and the trash's are made.
struct ListEntries: RandomAccessCollection, Equatable {
    /// Made rows; unused for the whole list.
    private let made: [ListEntry]
    /// The whole list: its sections, their titles, and the row each section starts at.
    private let sections: [[String]]
    private let titles: [String]
    private let starts: [Int]
    private let showsHeaders: Bool
    let endIndex: Int

    var startIndex: Int { 0 }

    init(_ rows: [ListEntry] = []) {
        made = rows
        sections = []
        titles = []
        starts = []
        showsHeaders = false
        endIndex = rows.count
    }

    /// Every task of `sections`, each section after a header row when `showsHeaders`.
    init(sections: [[String]], titles: [String], showsHeaders: Bool) {
        made = []
        self.sections = sections
        self.titles = titles
        self.showsHeaders = showsHeaders
        var starts: [Int] = []
        starts.reserveCapacity(sections.count)
        var row = 0
        for section in sections {
            starts.append(row)
            row += section.count + (showsHeaders ? 1 : 0)
        }
        self.starts = starts
        endIndex = row
    }

    private var isWholeList: Bool { !sections.isEmpty }

    subscript(row: Int) -> ListEntry {
        guard isWholeList else { return made[row] }
        // The last section starting at or before the row (an empty one without a header has none).
        var low = 0, high = starts.count - 1
        while low < high {
            let middle = (low + high + 1) / 2
            if starts[middle] <= row { low = middle } else { high = middle - 1 }
        }
        let offset = row - starts[low]
        guard showsHeaders else { return .task(sections[low][offset]) }
        return offset == 0 ? .section(index: low, title: titles[low], count: sections[low].count) : .task(sections[low][offset - 1])
    }

    /// The row of a task, if shown. The whole list is searched section by section, its URLs
    /// compared where they lie.
    func row(of url: String) -> Int? {
        guard isWholeList else { return made.firstIndex(of: .task(url)) }
        for (s, section) in sections.enumerated() {
            if let r = section.firstIndex(of: url) { return starts[s] + r + (showsHeaders ? 1 : 0) }
        }
        return nil
    }

    static func == (lhs: ListEntries, rhs: ListEntries) -> Bool { lhs.elementsEqual(rhs) }
}
