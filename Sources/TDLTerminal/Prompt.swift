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
    /// Without a trash, deleting takes the finished files with it.
    case deleteWithFiles([String])
    /// In the trash view: deleting is for good, files included.
    case deleteFromTrash([String])
    /// Restarting a finished download deletes its file.
    case restartFinished([String])

    var urls: [String] {
        switch self {
        case .deleteWithFiles(let urls), .deleteFromTrash(let urls), .restartFinished(let urls): return urls
        }
    }

    var label: String {
        let downloads = Phrase.downloads(urls.count)
        switch self {
        case .deleteWithFiles: return "Delete \(downloads) with their finished files? (y/n) "
        case .deleteFromTrash: return "Delete \(downloads) for good, with their files? (y/n) "
        case .restartFinished: return "Restart deletes the downloaded file. Restart \(downloads)? (y/n) "
        }
    }
}

/// A line being typed, and what Enter does with it.
struct TextEntry: Equatable {
    enum Purpose: Equatable {
        case addURLs
        case rename(String)
        case sectionTitle(Int)
        case newSection
        /// Filters the list as it is typed.
        case filter
        case rateLimit
    }

    var purpose: Purpose
    var text = ""

    var label: String {
        switch purpose {
        case .addURLs: return "Add URL(s): "
        case .rename: return "Name: "
        case .sectionTitle: return "Section title: "
        case .newSection: return "New section title: "
        case .filter: return "Filter: "
        case .rateLimit: return "Rate limit (e.g. 500K, 2M; 0 = none): "
        }
    }
}
