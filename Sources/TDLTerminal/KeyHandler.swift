import TDLCore

/// Where a key goes: the open prompt, the mouse, the scrolling of a text view, or the
/// actions of the list. Returns what must follow.
struct KeyHandler {
    let manager: DownloadManager
    let state: ScreenState
    var expandURLs: TerminalApp.URLExpander?

    func handle(_ key: Key) -> Reaction {
        if case .special(Curses.keyResize) = key { return [.redraw, .repaint] }
        // A message answers the last key: the next one clears it (as in tig and htop).
        let cleared: Reaction = state.clearMessage() ? .redraw : []
        return cleared.union(route(key))
    }

    private func route(_ key: Key) -> Reaction {
        if let prompt = state.prompt { return PromptKeys(manager: manager, state: state, expandURLs: expandURLs).handle(key, in: prompt) }
        if case let .mouse(row, _, buttons) = key { return mouse(row: row, buttons: buttons) }
        if case .paste(let text) = key {
            // A paste in the list is URLs to add: the add prompt opens with them, for Enter to confirm.
            guard state.view == .list else { return [] }
            var entry = TextEntry(purpose: .addURLs)
            entry.insert(PromptKeys.oneLine(text))
            state.prompt = .text(entry)
            return .redraw
        }
        guard let name = KeyName.name(of: key) else { return [] }
        let actions = ListActions(manager: manager, state: state)
        switch state.view {
        case .details, .help, .messages, .queues:
            if name == "q" || name == "Esc" || name == "Enter" {
                state.view = .list
                return [.redraw, .rebuildRows]
            }
            guard let action = Action.byKey[name] else { return [] }
            if [.help, .redraw, .messages, .queues].contains(action) { return actions.perform(action) }
            state.pager.perform(action, lineCount: state.textLines(manager).count, height: state.pageHeight)
            return .redraw
        case .list, .trash:
            if name == "Esc" {
                // The filter goes first, then the marks.
                if state.view == .list && !state.filterText.isEmpty {
                    state.filterText = ""
                    state.say("filter cleared")
                    return [.redraw, .rebuildRows]
                }
                guard !state.rows.marked.isEmpty else { return [] }
                state.rows.marked.removeAll()
                return .redraw
            }
            guard let action = Action.byKey[name] else { return [] }
            return actions.perform(action)
        }
    }

    private func mouse(row: Int, buttons: UInt) -> Reaction {
        if Mouse.isWheelUp(buttons) {
            state.rows.move(by: -3)
        } else if Mouse.isWheelDown(buttons) {
            state.rows.move(by: 3)
        } else if let index = state.rows.index(atScreenRow: row) {
            state.rows.select(index)
        }
        return .redraw
    }
}
