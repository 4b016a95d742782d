import Foundation
import TDLCore

/// One line of the main list: a section header or a task.
enum ListEntry: Equatable {
    case section(index: Int, title: String, count: Int)
    case task(String)

    var url: String? {
        if case .task(let url) = self { return url }
        return nil
    }
}

/// Turns the manager's state into the text of rows; knows nothing of curses.
struct ListRenderer {
    let manager: DownloadManager

    static func stateMark(_ state: TaskState) -> String {
        switch state {
        case .waiting: return "…"
        case .downloading: return "↓"
        case .paused: return "‖"
        case .stopped: return "■"
        case .finished: return "✓"
        case .failed: return "✗"
        }
    }

    static func stateWord(_ state: TaskState) -> String {
        switch state {
        case .waiting: return "Waiting"
        case .downloading: return "Downloading"
        case .paused: return "Paused"
        case .stopped: return "Stopped"
        case .finished: return "Done"
        case .failed: return "Failed"
        }
    }

    static func style(_ state: TaskState) -> Curses.Style {
        switch state {
        case .downloading: return .downloading
        case .finished: return .finished
        case .failed: return .failed
        case .paused, .stopped: return .paused
        case .waiting: return .normal
        }
    }

    /// The rows of the list view, sections with their counts, filtered by name or URL (its host, its path).
    /// Filtered, one pass into one array: each row's URL is retained once (a filtered copy of
    /// each section, then its entries, cost most of a second over a million rows); unfiltered,
    /// the sections themselves (see `ListEntries`).
    func entries(filter: String) -> ListEntries {
        let filter = TextFilter(filter)
        let showHeaders = manager.sectionCount > 1 || manager.titleForHeaderInSection(0) != nil
        let sections = manager.downloadList
        if filter.isEmpty {
            let titles = sections.indices.map { manager.titleForHeaderInSection($0) ?? "Downloads" }
            return ListEntries(sections: sections, titles: titles, showsHeaders: showHeaders)
        }
        let list = manager.listSnapshot
        var result: [ListEntry] = []
        result.reserveCapacity(sections.reduce(showHeaders ? sections.count : 0) { $0 + $1.count })
        for (s, section) in sections.enumerated() {
            let header = result.count, title = manager.titleForHeaderInSection(s) ?? "Downloads"
            if showHeaders { result.append(.section(index: s, title: title, count: 0)) }
            let kept = FilterScan.kept(count: section.count, warm: { FilterScan.warm(section[$0]) }) { Self.shows(section[$0], filter, in: list) }
            for (row, url) in section.enumerated() where kept[row] { result.append(.task(url)) }
            if showHeaders { result[header] = .section(index: s, title: title, count: result.count - header - 1) }
        }
        return ListEntries(result)
    }

    /// The rows of `entries` (a filter's rows) that a longer filter text keeps, with their
    /// sections' counts made again, and the names of those rows out of `names` (the names
    /// read so far of `entries`).
    func narrow(_ entries: ListEntries, names: FilterNames, to text: String) -> (entries: ListEntries, names: FilterNames) {
        let filter = TextFilter(text)
        let list = manager.listSnapshot
        let kept = FilterScan.kept(count: entries.count, warm: { row in entries[row].url.map(FilterScan.warm) ?? 0 }) { row in
            guard let url = entries[row].url else { return true }
            // A name read ahead costs no lookup: it goes first.
            guard let nameMatches = names.withName(row: row, url: url, filter.matches(utf8:)) else { return Self.shows(url, filter, in: list) }
            return nameMatches || filter.matches(url: url)
        }
        // Every row kept (a text every row has, as "s" where every URL is https): the same rows.
        if !kept.contains(false) { return (entries, names) }
        var result: [ListEntry] = []
        var header: (at: Int, index: Int, title: String)?
        var count = 0
        func closeSection() {
            if let header { result[header.at] = .section(index: header.index, title: header.title, count: count) }
        }
        for (row, entry) in entries.enumerated() {
            switch entry {
            case let .section(index, title, _):
                closeSection()
                header = (result.count, index, title)
                count = 0
                result.append(entry)
            case .task:
                if kept[row] {
                    result.append(entry)
                    count += 1
                }
            }
        }
        closeSection()
        return (ListEntries(result), names.kept(kept))
    }

    /// Whether the filter keeps a task: its URL (its host, its path) or its name has the text.
    /// The URL first: it needs no lookup of the task. Runs on the filter's threads.
    private static func shows(_ url: String, _ filter: TextFilter, in list: ListSnapshot) -> Bool {
        filter.matches(url: url) || filter.matches(list.displayName(of: url) ?? "")
    }

    /// One task in the columns of `layout`: marks, name, size, then the live progress while it
    /// downloads or a word for where it stands ("Done", "Failed: 404 Not Found").
    func taskLine(_ url: String, layout: RowLayout, marked: Bool) -> String {
        guard let task = manager.task(url) else { return "" }
        let marks = (marked ? "*" : " ") + Self.stateMark(task.state) + " " + String(task.fileType.mark)
        let name = ScreenText.clean(manager.displayName(of: url) ?? url)
        let size = task.size.map(ByteFormat.string) ?? ""
        return layout.line(marks: marks, name: name, size: size, status: status(of: task, layout: layout))
    }

    func status(of task: DownloadTask, layout: RowLayout) -> String {
        switch task.state {
        case .downloading:
            if let retry = manager.retrying[task.url] {
                return "Retrying (\(retry.attempt) of \(retry.limit)): " + ScreenText.clean(retry.reason.message)
            }
            let live = manager.activity[task.url]
            return layout.progress(task.size == nil ? nil : manager.progress(of: task.url),
                                   received: live?.received ?? task.received, speed: live?.speed ?? 0, eta: live?.eta)
        case .finished:
            return "Done"
        case .failed:
            return ScreenText.clean(task.detailText)
        case .waiting, .paused, .stopped:
            // The size column already holds the total: say only what was received of it.
            let word = Self.stateWord(task.state) + Self.queueTag(task.options.queue)
            guard task.received > 0 else { return word }
            return word + " " + ByteFormat.string(task.received) + (task.size.map { "/" + ByteFormat.string($0) } ?? "")
        }
    }

    /// The top line of every view; `HeaderLine` decides what gives way on a narrow screen.
    func header(view: String, inTrash: Bool) -> HeaderLine {
        var header = HeaderLine(session: ScreenText.clean(manager.identifier), view: view)
        if inTrash {
            // The trash lists the most recently deleted first, whatever the list's sort.
            header.order = .init(full: "newest first", short: "newest first")
            let n = manager.toDeleteList.count
            if n > 0 { header.counts = .init(full: "\(n) in the trash", short: "\(n) in the trash") }
        } else {
            let sort = manager.arrangement.title + (manager.arrangement.sortOrder.map { $0 == .ascending ? " ↑" : " ↓" } ?? "")
            header.order = .init(full: "sort: " + sort, short: sort)
            let counts = manager.counts
            let states = [TaskState.downloading, .waiting, .paused, .stopped, .failed, .finished].filter { counts[$0] != nil }
            if !states.isEmpty {
                header.counts = .init(full: states.map { "\(counts[$0]!) \(Self.stateWord($0).lowercased())" }.joined(separator: ", "),
                                      short: states.map { "\(counts[$0]!)\(Self.stateMark($0))" }.joined(separator: " "))
            }
        }
        if manager.isBusy {
            let speed = ByteFormat.rate(manager.overallSpeed), eta = RowLayout.eta(manager.overallETA)
            header.speed = .init(full: speed + " ETA " + eta, short: speed + " " + eta)
        }
        let limit = manager.maxDownloadCount
        header.limit = "max \(limit <= 0 ? "∞" : String(limit))"
        // A rate cap slows everything: it stays in sight, not only in the message of the moment.
        if let rate = manager.globalRateLimit { header.limit += " · ≤ " + ByteFormat.rate(rate) }
        if !inTrash, let opens = nextWindow() { header.limit += " · next window " + opens }
        return header
    }

    /// " [night]" for a download of a queue other than the default; "" otherwise.
    static func queueTag(_ queue: String?) -> String {
        guard let queue, queue != QueueDefinition.defaultName else { return "" }
        return " [" + ScreenText.clean(queue) + "]"
    }

    /// When everything waits for a queue's window: the time the next one opens ("22:00", or
    /// "Sat 08:00" on another day); nil while anything downloads or nothing waits.
    func nextWindow() -> String? {
        let counts = manager.counts
        guard counts[.downloading] == nil, counts[.waiting] != nil else { return nil }
        let calendar = manager.queueCalendar, now = manager.clock()
        let closed = manager.queues.definitions.filter { !$0.hours.isOpen(at: now, calendar: calendar) }
        guard let next = closed.compactMap({ $0.hours.nextOpening(after: now, calendar: calendar) }).min() else { return nil }
        return Self.when(next, now: now, calendar: calendar)
    }

    /// Details of one task: every fact a user may want when something goes wrong.
    func detailLines(_ url: String) -> [String] {
        guard let task = manager.task(url) else { return ["(this download no longer exists)"] }
        var lines = [
            "Name:          " + (manager.displayName(of: url) ?? ""),
            "URL:           " + URLCheck.withoutPassword(task.url),
            "Final URL:     " + (task.finalURL.map(URLCheck.withoutPassword) ?? "-"),
            "File:          " + task.filePath,
            "State:         " + Self.stateWord(task.state) + (task.failReason.map { ": " + $0.message } ?? ""),
            "Size:          " + (task.size.map { "\(ByteFormat.string($0)) (\($0) bytes)" } ?? "unknown"),
            "Received:      " + "\(ByteFormat.string(task.received)) (\(task.received) bytes)",
            "Type:          " + task.fileType.rawValue + (task.mimeType.map { " (\($0))" } ?? ""),
            "ETag:          " + (task.etag ?? "-"),
            "Last-Modified: " + (task.lastModified ?? "-"),
            "Checksum:      " + (task.options.checksum?.description ?? "-"),
            "Retries:       " + String(task.retries),
            "Last note:     " + (task.note ?? "-"),
            "Segments:      " + String(task.segments.count),
        ]
        if let queue = task.options.queue, queue != QueueDefinition.defaultName { lines.append("Queue:         " + ScreenText.clean(queue)) }
        lines += task.options.requestDetailLines  // headers, agent, cookies, mirrors; secrets masked
        for (k, segment) in task.segments.prefix(16).enumerated() {
            let end = segment.end.map(String.init) ?? "?"
            let length = segment.end.map { $0 - segment.start } ?? 0
            let percent = length > 0 ? Int(Double(segment.done) / Double(length) * 100) : 0
            lines.append("  #\(k + 1)  \(segment.start)–\(end)  \(percent)%")
        }
        return lines.map(ScreenText.clean)
    }
}
