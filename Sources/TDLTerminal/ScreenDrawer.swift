import TDLCore

/// Paints the screen's state on the terminal: the header, the rows or a text view, the key
/// bar and the message line (or the open prompt).
struct ScreenDrawer {
    let curses: Curses
    let manager: DownloadManager

    static let minimumSize = (rows: 6, columns: 30)

    /// The rows between the header and the two bottom lines.
    var listHeight: Int { max(1, curses.rows - 3) }

    func draw(_ state: ScreenState) {
        state.pageWidth = curses.columns
        curses.erase()
        let rows = curses.rows, columns = curses.columns
        if rows < Self.minimumSize.rows || columns < Self.minimumSize.columns {
            curses.draw("terminal too small", row: 0, column: 0, style: .bold)
            curses.draw("need \(Self.minimumSize.columns)x\(Self.minimumSize.rows)", row: 1, column: 0)
            curses.refresh()
            return
        }
        let renderer = ListRenderer(manager: manager)
        let title: String
        switch state.view {
        case .list: title = state.filterText.isEmpty ? "Downloads" : "Downloads matching \"\(ScreenText.clean(state.filterText))\""
        case .trash: title = "Trash"
        case .details: title = "Details"
        case .help: title = "Help"
        case .messages: title = "Messages"
        case .queues: title = "Queues"
        }
        curses.fillRow(0, style: .header)
        curses.draw(renderer.header(view: title, inTrash: state.view == .trash).text(width: columns), row: 0, column: 0, style: .header)
        switch state.view {
        case .list, .trash: drawList(state, renderer)
        case .details, .help, .messages, .queues: drawText(state)
        }
        let cursor = drawFooter(state)
        curses.placeCursor(cursor)
        curses.refresh()
    }

    private func drawList(_ state: ScreenState, _ renderer: ListRenderer) {
        let height = listHeight
        if state.view == .list && !state.filterText.isEmpty && !state.rows.entries.contains(where: { $0.url != nil }) {
            curses.draw("nothing matches \"\(ScreenText.clean(state.filterText))\" (Esc clears)", row: 2, column: 2, style: .dim)
            return
        }
        if state.rows.entries.isEmpty {
            let text = state.view == .trash ? "The trash is empty. Press t to go back." : "No downloads yet. Press a to add a URL."
            curses.draw(text, row: 2, column: 2, style: .dim)
            return
        }
        state.rows.scrollToSelection(height: height)
        let rows = state.rows
        let layout = RowLayout(width: curses.columns)
        for (offset, entry) in rows.entries[rows.top..<min(rows.entries.count, rows.top + height)].enumerated() {
            let row = 1 + offset
            let isSelected = rows.top + offset == rows.selected
            switch entry {
            case let .section(_, title, count):
                let text = "── \(ScreenText.clean(title)) (\(count)) "
                curses.draw(text + String(repeating: "─", count: max(0, curses.columns - ScreenText.width(text))),
                            row: row, column: 0, style: isSelected ? .selected : .sectionTitle)
            case .task(let url):
                let line = renderer.taskLine(url, layout: layout, marked: rows.marked.contains(url))
                let taskState = manager.state(of: url) ?? .waiting
                curses.draw(line, row: row, column: 0, style: isSelected ? .selected : ListRenderer.style(taskState))
            }
        }
    }

    private func drawText(_ state: ScreenState) {
        let lines = state.textLines(manager)
        state.pager.clamp(lineCount: lines.count, height: listHeight)
        for (k, line) in lines.dropFirst(state.pager.top).prefix(listHeight).enumerated() {
            curses.draw(line, row: 1 + k, column: 1)
        }
    }

    /// The key bar and the message line, or the open prompt; returns where the cursor goes (typing at a prompt).
    private func drawFooter(_ state: ScreenState) -> (row: Int, column: Int)? {
        let rows = curses.rows
        if let prompt = state.prompt {
            let line = Self.promptLine(prompt, width: curses.columns)
            curses.draw(line.text, row: rows - 1, column: 0, style: .bold)
            curses.fillRow(rows - 2, style: .header)
            curses.draw("Enter confirm · Esc cancel", row: rows - 2, column: 0, style: .header)
            return line.cursor.map { (rows - 1, $0) }
        }
        let keys: String
        // Marked rows are what the next action applies to: their count stays in sight.
        let always = (state.rows.marked.isEmpty ? [] : ["\(state.rows.marked.count) marked (Esc unmarks)"]) + ["? Help", "q Quit"]
        switch state.view {
        case .list:
            keys = Self.keyHints(["a Add", "p Pause/Resume", "x Stop", "d Trash", "t Trash view", "s Sort", "Enter Details"],
                                 always: always, width: curses.columns)
        case .trash:
            keys = Self.keyHints(["u Restore", "d Delete for good", "t Back"], always: always, width: curses.columns)
        case .details, .help, .messages, .queues:
            let position = TextPager.position(top: state.pager.top, lineCount: state.textLines(manager).count, height: listHeight)
            keys = "Esc/q Back" + (position.map { "  j/k PgUp/PgDn Scroll  · " + $0 } ?? "")
        }
        curses.fillRow(rows - 2, style: .header)
        curses.draw(keys, row: rows - 2, column: 0, style: .header)
        curses.draw(state.message, row: rows - 1, column: 0, style: state.messageIsError ? .failed : .normal)
        return nil
    }

    /// The prompt as it fits in `width` columns, scrolled so the cursor is in sight (an ellipsis
    /// says what is cut on the left), and the cursor's column; a question has no cursor.
    static func promptLine(_ prompt: Prompt, width: Int) -> (text: String, cursor: Int?) {
        guard case .text(let entry) = prompt else { return (prompt.line, nil) }
        let label = ScreenText.clean(entry.label)
        let chars = Array(ScreenText.clean(entry.text))
        let before = String(chars[..<min(entry.cursor, chars.count)])
        let full = label + String(chars)
        var cursor = ScreenText.width(label + before)
        if ScreenText.width(full) <= width - 1 { return (full, cursor) }
        // Drop from the left until the cursor fits, keeping one column for the cursor itself.
        var shown = Array(full)
        var dropped = 0
        while cursor > width - 2, !shown.isEmpty {
            cursor -= ScreenText.width(String(shown.removeFirst()))
            dropped += 1
        }
        var text = String(shown)
        if dropped > 0, let first = shown.first {
            text = "…" + String(shown.dropFirst())
            cursor += 1 - ScreenText.width(String(first))
        }
        return (ScreenText.fit(text, width - 1), cursor)
    }

    /// As many hints as fit, dropped from the end, and always the way to help and out.
    private static func keyHints(_ hints: [String], always: [String], width: Int) -> String {
        var shown = hints
        while !shown.isEmpty && ScreenText.width((shown + always).joined(separator: "  ")) > width { shown.removeLast() }
        return (shown + always).joined(separator: "  ")
    }
}
