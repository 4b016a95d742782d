import Foundation

/// tdl's own folder, the home: every session's `.sqlite` with its `-journal`, `-wal` and
/// `-shm`, the locks, the control sockets, a secret file. No download is saved there or below
/// it, so no name a server or a caller picks can ever be one of them (a downloaded
/// `session.sqlite-journal` was played back by SQLite as the session's own).
public struct ReservedFolder: Sendable {
    public let path: String
    private let resolved: String

    public init(_ path: String) {
        self.path = (path as NSString).standardizingPath
        resolved = Self.resolve(path)
    }

    /// Nil when downloads may go to `folder`; else why not, in words for the user.
    public func problem(with folder: String) -> String? {
        let candidates = [(folder as NSString).standardizingPath, Self.resolve(folder)]
        guard candidates.contains(where: { Self.isInside($0, [path, resolved]) }) else { return nil }
        return "the folder \(folder) is tdl's own (its session files); downloads go elsewhere"
    }

    /// Symbolic links followed, so a link to the home is the home.
    static func resolve(_ path: String) -> String {
        URL(fileURLWithPath: path).standardizedFileURL.resolvingSymlinksInPath().path
    }

    static func isInside(_ folder: String, _ roots: [String]) -> Bool {
        roots.contains { root in folder == root || folder.hasPrefix(root.hasSuffix("/") ? root : root + "/") }
    }
}
