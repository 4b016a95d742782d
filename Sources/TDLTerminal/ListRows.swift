import TDLCore

/// The rows of the list or trash view as last read from the manager, the selected one, the
/// marked ones and the first one on screen.
struct ListRows {
    private(set) var entries = ListEntries()
    private(set) var selected = 0
    var marked: Set<String> = []
    /// The first row on screen; the drawing keeps the selection in view.
    var top = 0

    /// Rows read again: the selection stays on its task while that task is still shown.
    mutating func replace(with newEntries: ListEntries) {
        let selectedURL = currentURL
        entries = newEntries
        if let selectedURL, let index = entries.row(of: selectedURL) { selected = index }
        select(selected)
    }

    var current: ListEntry? { entries.indices.contains(selected) ? entries[selected] : nil }

    var currentURL: String? { current?.url }

    /// The marked rows, or the selected one when nothing is marked.
    var targets: [String] {
        if !marked.isEmpty { return entries.compactMap(\.url).filter { marked.contains($0) } }
        return currentURL.map { [$0] } ?? []
    }

    /// The selected section: the header itself or the task's section.
    func currentSection(in manager: DownloadManager) -> Int? {
        switch current {
        case .section(let index, _, _)?: return index
        case .task(let url)?: return manager.indexPath(of: url)?.section
        case nil: return nil
        }
    }

    /// Selects a row, kept within the rows there are.
    mutating func select(_ index: Int) {
        selected = min(max(0, index), max(0, entries.count - 1))
    }

    /// Selects the row of a task, if it is shown.
    mutating func select(task url: String) {
        if let index = entries.row(of: url) { selected = index }
    }

    mutating func move(by delta: Int) {
        guard !entries.isEmpty else { return }
        select(selected + delta)
    }

    mutating func toggleMark(_ url: String) {
        if marked.contains(url) { marked.remove(url) } else { marked.insert(url) }
    }

    /// The row under a screen line (the list starts on line 1, below the header).
    func index(atScreenRow row: Int) -> Int? {
        let index = top + row - 1
        return row >= 1 && entries.indices.contains(index) ? index : nil
    }

    /// Scrolls just enough for the selection to be among `height` rows, with no room wasted below the last.
    mutating func scrollToSelection(height: Int) {
        if selected < top { top = selected }
        if selected >= top + height { top = selected - height + 1 }
        top = max(0, min(top, max(0, entries.count - height)))
    }
}
