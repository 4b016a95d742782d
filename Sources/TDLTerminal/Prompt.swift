import TDLCore

/// The bottom line asking the user something: a yes/no question about tasks, or a line of
/// text to type. Each case carries all its answer needs.
enum Prompt: Equatable {
    case question(Question)
    case text(TextEntry)

    /// What the bottom line shows.
    var line: String {
        switch self {
        case .question(let question): return question.label
        case .text(let entry): return entry.label + entry.text
        }
    }
}

/// A yes/no question: each case says what a yes does, and to which tasks.
enum Question: Equatable {
    /// Without a trash, deleting is for good (part files go, finished files stay).
    /// In the trash view: deleting is for good (part files go, finished files stay).
    case deleteFromTrash([String])
    /// Finished files deleted from disk: named, since nothing brings them back.
    case deleteFinishedFiles([String], firstPath: String)
    /// Restarting a finished download deletes its file.
    case restartFinished([String])
    /// Restarting a stopped, paused or failed download discards the bytes it has.
    case restartPartial([String], bytes: Int64)
    /// A sort has its own sections: the titled sections arranged by hand would be lost.
    case leaveManualOrder(for: SortKey, sections: Int)

    var urls: [String] {
        switch self {
        case .deleteFromTrash(let urls), .restartFinished(let urls), .restartPartial(let urls, _),
             .deleteFinishedFiles(let urls, _): return urls
        case .leaveManualOrder: return []
        }
    }

    var label: String {
        let downloads = Phrase.downloads(urls.count)
        switch self {
        case .leaveManualOrder(let key, let sections):
            let yours = sections == 1 ? "your section title" : "your \(sections) sections and their titles"
            return "Sorting by \(key.title) drops \(yours). Sort? (y/n) "
        case .deleteFromTrash: return "Delete \(downloads) for good? Finished files stay. (y/n) "
        case .deleteFinishedFiles(let urls, let path):
            let more = urls.count > 1 ? " and \(urls.count - 1) more finished \(urls.count == 2 ? "file" : "files")" : ""
            return "Delete \(ScreenText.clean(path))\(more) from disk? (y/n) "
        case .restartFinished: return "Restart deletes the downloaded file. Restart \(downloads)? (y/n) "
        case .restartPartial(_, let bytes):
            return "Restart discards the \(ByteFormat.string(bytes)) already downloaded. Restart \(downloads)? (y/n) "
        }
    }
}

/// A line being typed, and what Enter does with it. Edited as readline users expect: a
/// cursor that Left/Right, Home/End (^A/^E) move, ^U, ^W and ^K cut, Backspace and Delete.
struct TextEntry: Equatable {
    enum Purpose: Equatable {
        case addURLs
        case rename(String)
        case sectionTitle(Int)
        case newSection
        /// Filters the list as it is typed.
        case filter
        case rateLimit
        /// Moves these downloads to the queue typed; the names it may be.
        case moveToQueue([String], names: [String])

        /// Prompts of one kind share their history (Up and Down bring back earlier entries).
        var historyKind: String {
            switch self {
            case .addURLs: return "add"
            case .rename: return "name"
            case .sectionTitle, .newSection: return "section"
            case .filter: return "filter"
            case .rateLimit: return "rate"
            case .moveToQueue: return "queue"
            }
        }
    }

    var purpose: Purpose
    private(set) var text: String
    /// Where typing goes, in characters from the start of `text`.
    private(set) var cursor: Int
    /// The text when the prompt opened: Esc puts it back (the filter applies as it is typed).
    let original: String
    /// The history entry shown (Up/Down), and what was typed before browsing it.
    var historyIndex: Int?
    var draft = ""

    init(purpose: Purpose, text: String = "") {
        self.purpose = purpose
        self.text = text
        cursor = text.count
        original = text
    }

    var label: String {
        switch purpose {
        case .addURLs: return "Add URL(s): "
        case .rename: return "Name: "
        case .sectionTitle: return "Section title: "
        case .newSection: return "New section title: "
        case .filter: return "Filter: "
        case .rateLimit: return "Rate limit (e.g. 500K, 2M; 0 = none): "
        case .moveToQueue(let urls, let names):
            return "Move \(Phrase.downloads(urls.count)) to queue (\(names.joined(separator: ", "))): "
        }
    }

    /// Replaces the whole line (a history entry), the cursor at its end.
    mutating func setText(_ new: String) {
        text = new
        cursor = new.count
    }

    mutating func insert(_ typed: String) {
        let at = text.index(text.startIndex, offsetBy: cursor)
        text.insert(contentsOf: typed, at: at)
        cursor += typed.count
    }

    mutating func moveLeft() { cursor = max(0, cursor - 1) }
    mutating func moveRight() { cursor = min(text.count, cursor + 1) }
    mutating func moveHome() { cursor = 0 }
    mutating func moveEnd() { cursor = text.count }

    /// Backspace: the character before the cursor.
    mutating func deleteBackward() {
        guard cursor > 0 else { return }
        remove(from: cursor - 1, to: cursor)
    }

    /// Delete: the character under the cursor.
    mutating func deleteForward() {
        guard cursor < text.count else { return }
        remove(from: cursor, to: cursor + 1)
    }

    /// ^U: everything before the cursor.
    mutating func killToStart() { remove(from: 0, to: cursor) }

    /// ^K: everything from the cursor on.
    mutating func killToEnd() { remove(from: cursor, to: text.count) }

    /// ^W: the word before the cursor, and the blanks after it (as a shell's ^W).
    mutating func killWordBackward() {
        let chars = Array(text)
        var start = cursor
        while start > 0 && chars[start - 1].isWhitespace { start -= 1 }
        while start > 0 && !chars[start - 1].isWhitespace { start -= 1 }
        remove(from: start, to: cursor)
    }

    private mutating func remove(from start: Int, to end: Int) {
        guard start < end else { return }
        let a = text.index(text.startIndex, offsetBy: start), b = text.index(text.startIndex, offsetBy: end)
        text.removeSubrange(a..<b)
        cursor = start
    }
}
