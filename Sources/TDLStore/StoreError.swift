/// Why a session database could not be used as it is.
public enum StoreError: Error, CustomStringConvertible {
    /// The file was damaged; it was moved aside and a fresh one started.
    case movedAside(original: String, movedTo: String, reason: String)
    /// The database was written by a newer tdl; nothing was changed.
    case newerSchema(path: String)
    /// The file is damaged, and this command changes nothing: it was left where it is.
    case damaged(path: String, reason: String)
    /// The file could not be opened or read for a reason that is not damage (a full disk, too
    /// many open files, no permission, another program writing); it was left as it is.
    case unusable(path: String, reason: String)
    /// A commit failed for a reason that is not damage; the changes are kept for the next try.
    case notSaved(path: String, reason: String)
    /// A commit found the file damaged (a page that loading does not read, such as an index's).
    /// The file is marked so that the next tdl to open it moves it aside.
    case damagedWhileWriting(path: String, reason: String)
    /// The session's lock file could not be opened or locked.
    case lockFailed(path: String, reason: String)
    /// A rollback journal tdl did not write lay beside the session; it was moved aside unread.
    case journalSetAside(journal: String, movedTo: String)

    public var description: String {
        switch self {
        case let .movedAside(original, movedTo, reason):
            return "the session database \(original) was damaged (\(reason)); it was moved to \(movedTo) and a fresh session started"
        case let .newerSchema(path):
            return "the session database \(path) was written by a newer tdl; update tdl or use another --home"
        case let .damaged(path, reason):
            return "the session database \(path) is damaged (\(reason)); it was left as it is, and the next tdl that changes the session moves it aside"
        case let .unusable(path, reason):
            return "cannot use the session database \(path): \(reason); it was left as it is"
        case let .notSaved(path, reason):
            return "cannot write to the session database \(path): \(reason)"
        case let .damagedWhileWriting(path, reason):
            return "the session database \(path) is damaged (\(reason)); changes are no longer saved, and the next tdl moves it aside"
        case let .lockFailed(path, reason):
            return "cannot lock the session with \(path): \(reason)"
        case let .journalSetAside(journal, movedTo):
            return "a rollback journal tdl did not write was beside the session (\(journal)): it was moved to \(movedTo), unread"
        }
    }
}
