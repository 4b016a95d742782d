import Foundation
import TDLCore

/// What the screen shows and what keys act on, apart from the terminal itself: the view, its
/// rows, the open prompt and the message line. A class, because the manager's observer writes
/// the message line in the middle of a key's action (a save that fails): a struct lent to the
/// action would be two overlapping accesses.
final class ScreenState {
    enum View: Equatable {
        case list
        case trash
        case details(String)
        case help
        /// Every message of the session, with its time.
        case messages
        /// Each queue with its limits and hours.
        case queues
    }

    /// One message as the log keeps it.
    struct LoggedMessage {
        var time: Date
        var text: String
        var isError: Bool
    }

    var view: View = .list
    var prompt: Prompt?
    private(set) var message = ""
    private(set) var messageIsError = false
    var rows = ListRows()
    var filterText = ""
    /// The filter's last rows, the list they came from and the names of those rows read so
    /// far: text typed on only narrows them, rather than looking through a million names again.
    private var filtered: (text: String, listRevision: Int, entries: ListEntries, names: FilterNames)?
    /// The list revision and filter text the rows were read with; nil for rows not of the list.
    private var rowsReadAs: (listRevision: Int, filter: String)?
    /// The scroll position of the help and details views.
    var pager = TextPager()
    /// How many rows a page key moves: the height of the list, from the terminal's size.
    var pageHeight = 1
    /// The width text views wrap at (the message log), from the terminal's size.
    var pageWidth = 80
    /// Every message said this session, oldest first (the m view); the message line shows the last.
    private(set) var log: [LoggedMessage] = []
    /// The clock of the log (pinned by tests).
    var now: () -> Date = Date.init
    /// Earlier entries of each kind of prompt, oldest first (Up brings back the last).
    private(set) var history: [String: [String]] = [:]

    /// Keeps what was entered at a prompt for Up to bring back.
    func remember(_ entry: TextEntry) {
        let text = entry.text
        guard !text.trimmingCharacters(in: .whitespaces).isEmpty else { return }
        var earlier = history[entry.purpose.historyKind] ?? []
        earlier.removeAll { $0 == text }
        earlier.append(text)
        history[entry.purpose.historyKind] = Array(earlier.suffix(100))
    }

    func say(_ text: String, error: Bool = false) {
        message = ScreenText.clean(text)
        messageIsError = error
        note(text, error: error)
    }

    /// Keeps a line in the message log only: what the message line had no room for (a
    /// rejected URL in full).
    func note(_ text: String, error: Bool = false) {
        log.append(LoggedMessage(time: now(), text: ScreenText.clean(text), isError: error))
        if log.count > 5000 { log.removeFirst(log.count - 5000) }
    }

    /// The log as lines of `width` columns: "12:04:31  text", long messages wrapped under their text.
    func logLines(width: Int) -> [String] {
        guard !log.isEmpty else { return ["(no messages yet)"] }
        let formatter = DateFormatter()
        formatter.dateFormat = "HH:mm:ss"
        var lines: [String] = []
        for entry in log {
            let stamp = formatter.string(from: entry.time) + (entry.isError ? " ! " : "   ")
            var rest = Array(entry.text)
            let room = max(10, width - stamp.count)
            var first = true
            repeat {
                var used = 0, cut = 0
                while cut < rest.count, used + ScreenText.width(String(rest[cut])) <= room {
                    used += ScreenText.width(String(rest[cut]))
                    cut += 1
                }
                lines.append((first ? stamp : String(repeating: " ", count: stamp.count)) + String(rest[..<cut]))
                rest.removeFirst(cut)
                first = false
            } while !rest.isEmpty
        }
        return lines
    }

    /// Empties the message line; true if it said something, which must then be drawn away.
    func clearMessage() -> Bool {
        defer { message = ""; messageIsError = false }
        return !message.isEmpty
    }

    /// Reads the rows of the list (filtered) or of the trash from the manager. Marks stay on
    /// tasks of this view, shown or hidden by the filter; a task gone from the view loses its mark.
    func readRows(from manager: DownloadManager) {
        let renderer = ListRenderer(manager: manager)
        let entries: ListEntries
        var names = FilterNames()
        if view == .trash {
            entries = ListEntries(manager.toDeleteList.map(ListEntry.task))
        } else if let last = filtered, last.listRevision == manager.listRevision,
                  last.text.isEmpty || filterText.lowercased().contains(last.text.lowercased()) {
            let narrowed = renderer.narrow(last.entries, names: last.names, to: filterText)
            entries = narrowed.entries
            names = narrowed.names
        } else {
            entries = renderer.entries(filter: filterText)
            names = FilterNames(rows: entries.count)
        }
        filtered = view == .list && !filterText.isEmpty ? (filterText, manager.listRevision, entries, names) : nil
        rows.replace(with: entries)
        rowsReadAs = view == .list ? (manager.listRevision, filterText) : nil
        if !rows.marked.isEmpty {
            rows.marked = rows.marked.filter { url in manager.task(url).map { ($0.deletedAt != nil) == (view == .trash) } ?? false }
        }
    }

    /// Reads names of the filter's rows until `seconds` have passed (see `FilterNames`);
    /// returns whether some are left.
    func readFilterNames(from manager: DownloadManager, for seconds: Double) -> Bool {
        let filtering: Bool
        if case .text(let entry)? = prompt, entry.purpose == .filter { filtering = true } else { filtering = false }
        // The filter's prompt open on the whole list: the first key will filter all of it.
        if filtered == nil, filtering, filterText.isEmpty, view == .list,
           rowsReadAs?.listRevision == manager.listRevision, rowsReadAs?.filter == "" {
            filtered = ("", manager.listRevision, rows.entries, FilterNames(rows: rows.entries.count))
        }
        // Closed with nothing typed: the whole list's names are not kept.
        if let last = filtered, last.text.isEmpty, !filtering {
            filtered = nil
            return false
        }
        guard var last = filtered, last.listRevision == manager.listRevision else { return false }
        filtered = nil  // not shared with `last` while its names grow
        let deadline = DispatchTime.now().uptimeNanoseconds + UInt64(seconds * 1e9)
        let more = last.names.read(last.entries, from: manager.listSnapshot, until: deadline)
        filtered = last
        return more
    }

    /// A task's name may have changed: the filter looks it up again.
    func taskChanged(_ url: String) {
        filtered?.names.forget(url)
    }

    /// What an action applies to: every marked task of this view, hidden by the filter or not
    /// (in the list's order), else the selected one.
    func targets(_ manager: DownloadManager) -> [String] {
        guard !rows.marked.isEmpty else { return rows.currentURL.map { [$0] } ?? [] }
        let all = view == .trash ? manager.toDeleteList : manager.downloadList.flatMap { $0 }
        return all.filter { rows.marked.contains($0) }
    }

    /// "paused 3 downloads (2 hidden by the filter)": what an action did, naming the marked
    /// rows it touched that the filter hides.
    /// A file an action could not delete outranks the count of what it did: its task stayed.
    func sayDeleteFailures(_ manager: DownloadManager) {
        let failures = manager.takeDeleteFailures()
        guard let first = failures.first else { return }
        say(first.message + (failures.count > 1 ? " (and \(failures.count - 1) more: m)" : ""), error: true)
    }

    func done(_ verb: String, _ n: Int, of urls: [String]) -> String {
        let shown = Set(rows.entries.compactMap(\.url))
        let hidden = min(n, urls.filter { !shown.contains($0) }.count)
        return verb + " " + Phrase.downloads(n) + (hidden > 0 ? " (\(hidden) hidden by the filter)" : "")
    }

    /// The lines of the help or details view; empty for the list and the trash.
    func textLines(_ manager: DownloadManager) -> [String] {
        switch view {
        case .details(let url): return ListRenderer(manager: manager).detailLines(url)
        case .help: return Action.helpLines
        case .messages: return logLines(width: pageWidth - 2)
        case .queues: return ListRenderer(manager: manager).queueLines()
        case .list, .trash: return []
        }
    }
}
