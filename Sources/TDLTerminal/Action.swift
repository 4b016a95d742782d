/// Every user request, declared once with its keys and help text (as tig's request.h): the key
/// map, the help screen and the README's key table all come from this list.
public enum Action: String, CaseIterable, Sendable {
    case moveUp, moveDown, pageUp, pageDown, first, last
    case add, togglePause, pauseAll, resumeAll, stop, restart, delete, deleteFile
    case toggleTrash, restore, emptyTrash
    case cycleSort, flipOrder, toggleSectioning
    case moveTaskDown, moveTaskUp, newSection, rename
    case moreDownloads, fewerDownloads, rateLimit, filter
    case moveToQueue, queues
    case mark, details, messages, help, redraw, quit

    /// The keys, as shown in help ("j", "Down", "Space").
    public var keys: [String] {
        switch self {
        case .moveUp: return ["k", "Up"]
        case .moveDown: return ["j", "Down"]
        case .pageUp: return ["PgUp"]
        case .pageDown: return ["PgDn"]
        case .first: return ["g", "Home"]
        case .last: return ["G", "End"]
        case .add: return ["a"]
        case .togglePause: return ["p", "Space"]
        case .pauseAll: return ["P"]
        case .resumeAll: return ["R"]
        case .stop: return ["x"]
        case .restart: return ["r"]
        case .delete: return ["d", "Del"]
        case .deleteFile: return ["D"]
        case .toggleTrash: return ["t"]
        case .restore: return ["u"]
        case .emptyTrash: return ["E"]
        case .cycleSort: return ["s"]
        case .flipOrder: return ["o"]
        case .toggleSectioning: return ["S"]
        case .moveTaskDown: return ["J"]
        case .moveTaskUp: return ["K"]
        case .newSection: return ["n"]
        case .rename: return ["e"]
        case .moreDownloads: return ["+"]
        case .fewerDownloads: return ["-"]
        case .rateLimit: return ["L"]
        case .filter: return ["/"]
        case .moveToQueue: return ["Q"]
        case .queues: return ["W"]
        case .mark: return ["v"]
        case .details: return ["Enter"]
        case .messages: return ["m"]
        case .help: return ["?", "F1"]
        case .redraw: return ["^L"]
        case .quit: return ["q"]
        }
    }

    public var help: String {
        switch self {
        case .moveUp: return "Move the selection up"
        case .moveDown: return "Move the selection down"
        case .pageUp: return "Move one page up"
        case .pageDown: return "Move one page down"
        case .first: return "Go to the first row"
        case .last: return "Go to the last row"
        case .add: return "Add URLs (several at once, separated by spaces)"
        case .togglePause: return "Pause or resume the selected downloads"
        case .pauseAll: return "Pause all downloads"
        case .resumeAll: return "Resume all downloads"
        case .stop: return "Stop the selected downloads"
        case .restart: return "Restart the selected downloads from zero"
        case .delete: return "Move to the trash (in the trash: delete for good, a finished file stays; on an empty section: remove it)"
        case .deleteFile: return "Delete the finished file from disk (asks, naming it); the download stays, stopped"
        case .toggleTrash: return "Show the trash / the list"
        case .restore: return "Restore from the trash"
        case .emptyTrash: return "Empty the trash (asks first; finished files stay)"
        case .cycleSort: return "Next sort: manual, add time, name, size, type, queue (once there are queues)"
        case .flipOrder: return "Flip ascending / descending (not in manual order)"
        case .toggleSectioning: return "Sections on or off for this sort"
        case .moveTaskDown: return "Move the task down (manual sort)"
        case .moveTaskUp: return "Move the task up (manual sort)"
        case .newSection: return "New section right above the selected row (manual sort)"
        case .rename: return "Rename the file on disk (or the section title)"
        case .moreDownloads: return "Allow one more concurrent download"
        case .fewerDownloads: return "Allow one fewer concurrent download"
        case .rateLimit: return "Set the global rate limit (e.g. 500K, 2M, 0 = none)"
        case .filter: return "Show only rows whose name or URL has a text (Esc clears)"
        case .moveToQueue: return "Move the marked downloads (or the selected one) to a queue (asks which)"
        case .queues: return "The queues: downloads at once, rate cap, hours, open or closed now"
        case .mark: return "Mark or unmark, then move down (actions apply to all marked, hidden or not)"
        case .details: return "Details of the selected download"
        case .messages: return "Every message of this session, with its time"
        case .help: return "This help"
        case .redraw: return "Redraw the screen"
        case .quit: return "Quit (everything is saved)"
        }
    }

    /// The key map, built from `keys` so the two can never disagree.
    static let byKey: [String: Action] = {
        var map: [String: Action] = [:]
        for action in Action.allCases {
            for key in action.keys { map[key] = action }
        }
        return map
    }()

    /// The help view's text.
    static var helpLines: [String] {
        allCases.map { action in
            ScreenText.pad(action.keys.joined(separator: " "), 14) + action.help
        } + ["", "At a prompt: Left Right Home End (^A ^E) move, ^U ^W ^K cut, Up Down bring",
             "back earlier entries, Esc cancels. A paste is text: its lines are separate URLs.",
             "", "Press q or Esc to close."]
    }

    /// The README's key table.
    public static var markdownTable: String {
        var lines = ["| Keys | Action |", "| --- | --- |"]
        for action in Action.allCases {
            lines.append("| " + action.keys.map { "`\($0)`" }.joined(separator: " ") + " | " + action.help + " |")
        }
        return lines.joined(separator: "\n")
    }
}

/// Names of keys as `Action.keys` and scripts spell them.
enum KeyName {
    static func name(of key: Key) -> String? {
        switch key {
        case .character(let c):
            switch c {
            case " ": return "Space"
            case "\r", "\n": return "Enter"
            case "\u{0C}": return "^L"
            case "\u{1B}": return "Esc"
            case "\u{7F}", "\u{08}": return "Backspace"
            case "\t": return "Tab"
            default:
                // Other control characters by their caret names: ^A, ^E, ^U, ^W, ^K.
                if let v = c.asciiValue, v < 0x20 { return "^" + String(UnicodeScalar(v + 64)) }
                return String(c)
            }
        case .special(let code):
            switch code {
            case Curses.keyUp: return "Up"
            case Curses.keyDown: return "Down"
            case Curses.keyPageUp: return "PgUp"
            case Curses.keyPageDown: return "PgDn"
            case Curses.keyHome: return "Home"
            case Curses.keyEnd: return "End"
            case Curses.keyDelete: return "Del"
            case Curses.keyEnter: return "Enter"
            case Curses.keyBackspace: return "Backspace"
            case Curses.keyLeft: return "Left"
            case Curses.keyRight: return "Right"
            case Curses.keyF1: return "F1"
            default: return nil
            }
        case .mouse, .paste:
            return nil
        }
    }

    /// The key a script line such as `<Down>` or `j` stands for.
    static func key(named name: String) -> Key? {
        switch name {
        case "Space": return .character(" ")
        case "Enter": return .character("\r")
        case "Esc": return .character("\u{1B}")
        case "Backspace": return .character("\u{7F}")
        case "Tab": return .character("\t")
        case "^L": return .character("\u{0C}")
        case "Up": return .special(Curses.keyUp)
        case "Down": return .special(Curses.keyDown)
        case "Left": return .special(Curses.keyLeft)
        case "Right": return .special(Curses.keyRight)
        case "PgUp": return .special(Curses.keyPageUp)
        case "PgDn": return .special(Curses.keyPageDown)
        case "Home": return .special(Curses.keyHome)
        case "End": return .special(Curses.keyEnd)
        case "Del": return .special(Curses.keyDelete)
        case "F1": return .special(Curses.keyF1)
        default:
            if name.count == 2, name.first == "^", let v = name.last?.asciiValue, v >= 64, v < 96 {
                return .character(Character(UnicodeScalar(v - 64)))
            }
            return name.count == 1 ? .character(name.first!) : nil
        }
    }
}
