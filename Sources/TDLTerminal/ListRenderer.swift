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

    /// The rows of the list view, sections with their counts, filtered by name.
    func entries(filter: String) -> [ListEntry] {
        var result: [ListEntry] = []
        let needle = filter.lowercased()
        let showHeaders = manager.sectionCount > 1 || manager.titleForHeaderInSection(0) != nil
        for (s, section) in manager.downloadList.enumerated() {
            let rows = needle.isEmpty ? section : section.filter {
                (manager.displayName(of: $0) ?? "").lowercased().contains(needle)
            }
            if showHeaders {
                result.append(.section(index: s, title: manager.titleForHeaderInSection(s) ?? "Downloads", count: rows.count))
            }
            result.append(contentsOf: rows.map(ListEntry.task))
        }
        return result
    }

    /// "name  size  [####----]  45%  4.2 MB/s  0:42", or the detail text when not downloading.
    func taskLine(_ url: String, width: Int, marked: Bool) -> String {
        guard let task = manager.task(url) else { return "" }
        let mark = (marked ? "*" : " ") + Self.stateMark(task.state) + " " + String(task.fileType.mark) + " "
        let name = ScreenText.clean(manager.displayName(of: url) ?? url)
        let size = task.size.map(ByteFormat.string) ?? "?"
        var tail: String
        if task.state == .downloading {
            let live = manager.activity[url]
            let progress = manager.progress(of: url)
            let percent = task.size == nil ? "  ?%" : ScreenText.pad("\(Int(progress * 100))%", 4, alignRight: true)
            let speed = ByteFormat.rate(live?.speed ?? 0)
            let eta = ByteFormat.duration(live?.eta)
            let barWidth = width >= 100 ? 20 : (width >= 70 ? 10 : 0)
            let bar = barWidth > 0 ? "[" + Self.bar(progress, width: barWidth) + "] " : ""
            tail = bar + percent + "  " + ScreenText.pad(speed, 11, alignRight: true) + "  " + ScreenText.pad(eta, 7, alignRight: true)
        } else if task.state == .finished {
            tail = "Done " + task.detailText
        } else if task.state == .failed {
            tail = ScreenText.clean(task.detailText)
        } else {
            tail = Self.stateWord(task.state) + " " + task.detailText
        }
        if let note = task.note, task.state == .downloading || task.state == .waiting, width >= 100 {
            tail += "  " + ScreenText.clean(note)
        }
        let tailWidth = min(ScreenText.width(tail), max(0, width / 2))
        let sizeColumn = width >= 60 ? ScreenText.pad(size, 10, alignRight: true) + "  " : ""
        let nameWidth = max(4, width - ScreenText.width(mark) - ScreenText.width(sizeColumn) - tailWidth - 2)
        return mark + ScreenText.pad(name, nameWidth) + " " + sizeColumn + ScreenText.fit(tail, tailWidth)
    }

    static func bar(_ fraction: Double, width: Int) -> String {
        let filled = Int((max(0, min(1, fraction)) * Double(width)).rounded(.down))
        return String(repeating: "#", count: filled) + String(repeating: "-", count: width - filled)
    }

    func headerLine(view: String) -> String {
        let counts = manager.counts
        var parts = ["tdl", manager.identifier, view]
        let order = manager.sortOrder == .ascending ? "↑" : "↓"
        parts.append("sort: \(manager.sortType.title) \(manager.sortType == .manual ? "" : order)".trimmingCharacters(in: .whitespaces))
        let summary = [TaskState.downloading, .waiting, .paused, .stopped, .failed, .finished]
            .compactMap { state in counts[state].map { "\($0) \(Self.stateWord(state).lowercased())" } }
        if !summary.isEmpty { parts.append(summary.joined(separator: ", ")) }
        if manager.isBusy {
            parts.append(ByteFormat.rate(manager.overallSpeed) + " ETA " + ByteFormat.duration(manager.overallETA))
        }
        let limit = manager.maxDownloadCount
        parts.append("max \(limit <= 0 ? "∞" : String(limit))")
        return parts.joined(separator: " · ")
    }

    /// Details of one task: every fact a user may want when something goes wrong.
    func detailLines(_ url: String) -> [String] {
        guard let task = manager.task(url) else { return ["(this download no longer exists)"] }
        var lines = [
            "Name:          " + (manager.displayName(of: url) ?? ""),
            "URL:           " + task.url,
            "Final URL:     " + (task.finalURL ?? "-"),
            "File:          " + task.filePath,
            "State:         " + Self.stateWord(task.state) + (task.failReason.map { ": " + $0.message } ?? ""),
            "Size:          " + (task.size.map { "\(ByteFormat.string($0)) (\($0) bytes)" } ?? "unknown"),
            "Received:      " + "\(ByteFormat.string(task.received)) (\(task.received) bytes)",
            "Type:          " + task.fileType.rawValue + (task.mimeType.map { " (\($0))" } ?? ""),
            "ETag:          " + (task.etag ?? "-"),
            "Last-Modified: " + (task.lastModified ?? "-"),
            "Checksum:      " + (task.checksum?.description ?? "-"),
            "Retries:       " + String(task.retries),
            "Last note:     " + (task.note ?? "-"),
            "Segments:      " + String(task.segments.count),
        ]
        for (k, segment) in task.segments.prefix(16).enumerated() {
            let end = segment.end.map(String.init) ?? "?"
            let length = segment.end.map { $0 - segment.start } ?? 0
            let percent = length > 0 ? Int(Double(segment.done) / Double(length) * 100) : 0
            lines.append("  #\(k + 1)  \(segment.start)–\(end)  \(percent)%")
        }
        return lines.map(ScreenText.clean)
    }
}
