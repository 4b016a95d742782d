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
    }

    var view: View = .list
    var prompt: Prompt?
    private(set) var message = ""
    private(set) var messageIsError = false
    var rows = ListRows()
    var filterText = ""
    /// The scroll position of the help and details views.
    var pager = TextPager()
    /// How many rows a page key moves: the height of the list, from the terminal's size.
    var pageHeight = 1

    func say(_ text: String, error: Bool = false) {
        message = ScreenText.clean(text)
        messageIsError = error
    }

    /// Empties the message line; true if it said something, which must then be drawn away.
    func clearMessage() -> Bool {
        defer { message = ""; messageIsError = false }
        return !message.isEmpty
    }

    /// Reads the rows of the list (filtered) or of the trash from the manager.
    func readRows(from manager: DownloadManager) {
        rows.replace(with: view == .trash
            ? manager.toDeleteList.map(ListEntry.task)
            : ListRenderer(manager: manager).entries(filter: filterText))
    }

    /// The lines of the help or details view; empty for the list and the trash.
    func textLines(_ manager: DownloadManager) -> [String] {
        switch view {
        case .details(let url): return ListRenderer(manager: manager).detailLines(url)
        case .help: return Action.helpLines
        case .list, .trash: return []
        }
    }
}
