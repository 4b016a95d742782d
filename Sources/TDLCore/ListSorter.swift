import Foundation

/// Places tasks for a predefined sort: which section a task belongs to and the order inside it.
/// Keys are computed once per task so a 100,000-task sort compares plain values.
struct ListSorter {
    let type: SortType
    let order: SortOrder
    let sectioning: SectioningOptions
    let hidingExtension: Bool
    let dayStart: Date
    let calendar: Calendar

    init(type: SortType, order: SortOrder, sectioning: SectioningOptions, hidingExtension: Bool, now: Date, calendar: Calendar = .current) {
        self.type = type
        self.order = order
        self.sectioning = sectioning
        self.hidingExtension = hidingExtension
        self.calendar = calendar
        self.dayStart = calendar.startOfDay(for: now)
    }

    /// A task's section: its rank (ascending position among sections) and title.
    struct SectionKey: Hashable {
        let rank: Int
        let title: String
    }

    /// A task's position inside its section.
    struct TaskKey {
        let number: Int64
        let text: String
        let url: String

        static func ascending(_ a: TaskKey, _ b: TaskKey) -> Bool {
            if a.number != b.number { return a.number < b.number }
            if a.text != b.text { return a.text < b.text }
            return a.url < b.url
        }
    }

    static let addTimeTitles = ["Older", "Last 30 Days", "Last 7 Days", "Yesterday", "Today"]
    static let fileSizeTitles = ["0 – 1 MB", "1 MB – 10 MB", "10 MB – 100 MB", "100 MB – 1 GB", "Larger than 1 GB"]
    static let fileSizeBounds: [Int64] = [1_000_000, 10_000_000, 100_000_000, 1_000_000_000]

    var isSectioned: Bool { sectioning.isOn(for: type) }

    func sectionKey(of task: DownloadTask) -> SectionKey {
        guard isSectioned else { return SectionKey(rank: 0, title: "") }
        switch type {
        case .addTime:
            let rank: Int
            if task.addTime >= dayStart {
                rank = 4
            } else if task.addTime >= dayStart.addingTimeInterval(-86_400) {
                rank = 3
            } else if task.addTime >= dayStart.addingTimeInterval(-7 * 86_400) {
                rank = 2
            } else if task.addTime >= dayStart.addingTimeInterval(-30 * 86_400) {
                rank = 1
            } else {
                rank = 0
            }
            return SectionKey(rank: rank, title: Self.addTimeTitles[rank])
        case .fileSize:
            let size = task.size ?? 0
            let rank = Self.fileSizeBounds.firstIndex(where: { size < $0 }) ?? Self.fileSizeBounds.count
            return SectionKey(rank: rank, title: Self.fileSizeTitles[rank])
        case .fileName:
            let first = task.displayName(hidingExtension: hidingExtension).unicodeScalars.first
            if let first, first.properties.isAlphabetic, first.isASCII {
                let letter = String(first).uppercased()
                return SectionKey(rank: Int(letter.unicodeScalars.first!.value), title: letter)
            }
            if let first, first.properties.isAlphabetic {
                return SectionKey(rank: 1000, title: "Other")
            }
            return SectionKey(rank: 0, title: "#")
        case .fileType:
            let fileType = task.fileType
            return SectionKey(rank: FileType.allCases.firstIndex(of: fileType) ?? 0, title: fileType.rawValue)
        case .manual:
            return SectionKey(rank: 0, title: "")
        }
    }

    func taskKey(of task: DownloadTask) -> TaskKey {
        switch type {
        case .addTime, .manual:
            return TaskKey(number: Int64(task.addTime.timeIntervalSince1970 * 1000), text: "", url: task.url)
        case .fileName, .fileType:
            return TaskKey(number: 0, text: task.displayName(hidingExtension: hidingExtension).lowercased(), url: task.url)
        case .fileSize:
            return TaskKey(number: task.size ?? -1, text: "", url: task.url)
        }
    }

    /// True when `a` goes before `b` in the requested order.
    func precedes(_ a: TaskKey, _ b: TaskKey) -> Bool {
        order == .ascending ? TaskKey.ascending(a, b) : TaskKey.ascending(b, a)
    }

    func sectionPrecedes(_ a: SectionKey, _ b: SectionKey) -> Bool {
        if a.rank != b.rank { return order == .ascending ? a.rank < b.rank : a.rank > b.rank }
        return order == .ascending ? a.title < b.title : a.title > b.title
    }

    /// The whole list for these tasks: sections in order, each sorted.
    func arrange<S: Sequence>(_ tasks: S) -> (sections: [[String]], titles: [String]) where S.Element == DownloadTask {
        var groups: [SectionKey: [(TaskKey)]] = [:]
        for task in tasks {
            groups[sectionKey(of: task), default: []].append(taskKey(of: task))
        }
        if !isSectioned && groups.isEmpty { return ([[]], [""]) }
        let orderedKeys = groups.keys.sorted(by: sectionPrecedes)
        var sections: [[String]] = []
        sections.reserveCapacity(orderedKeys.count)
        for key in orderedKeys {
            let sorted = groups[key]!.sorted(by: precedes)
            sections.append(sorted.map(\.url))
        }
        return (sections, orderedKeys.map(\.title))
    }
}
