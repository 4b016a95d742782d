import Foundation
import TDLCore

/// What keeps the session file tdl's own, whatever lies beside it in the home.
enum SessionFileGuard {
    /// tdl's sessions are in WAL mode from their first byte and never write a rollback
    /// journal. SQLite plays a `-journal` it finds back into the file on open, before it reads
    /// that the file is in WAL mode, so a journal made from another database (a download
    /// named `session.sqlite-journal`) would replace the session, hooks included. One found
    /// is moved aside before the file is opened; a command that only reads refuses instead.
    /// Returns the notice for the user, or nil when there was none.
    static func setAsideForeignJournal(_ path: String, readOnly: Bool) throws -> StoreError? {
        let journal = path + "-journal"
        var info = stat()
        guard lstat(journal, &info) == 0 else { return nil }
        if readOnly {
            throw StoreError.unusable(path: path, reason: "a rollback journal tdl did not write is beside it (\(journal)); "
                + "tdl get, add or the list move it aside")
        }
        let stamp = ISO8601DateFormatter().string(from: Date()).replacingOccurrences(of: ":", with: "-")
        let aside = journal + ".not-tdl-" + stamp
        guard rename(journal, aside) == 0 else {
            throw StoreError.unusable(path: path, reason: "a rollback journal tdl did not write is beside it (\(journal)) "
                + "and cannot be moved aside: \(String(cString: strerror(errno)))")
        }
        return .journalSetAside(journal: journal, movedTo: aside)
    }

    /// The session file and its `-wal` and `-shm` are the owner's alone (0600; no bits for group or others), whatever the
    /// home's mode or the umask: they hold URLs with passwords, headers and cookies. A new
    /// file is created 0600 before SQLite opens it, so the WAL and shared-memory files SQLite
    /// makes later take the same mode.
    static func makeOwnerOnly(_ path: String, isNew: Bool) {
        if isNew {
            let fd = open(path, O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC, 0o600)
            if fd >= 0 { close(fd) }
        }
        for file in [path, path + "-wal", path + "-shm"] {
            let fd = open(file, O_RDONLY | O_NOFOLLOW | O_CLOEXEC)
            guard fd >= 0 else { continue }
            var info = stat()
            // Only others' bits go: a file the user made read-only stays read-only.
            if fstat(fd, &info) == 0 && info.st_uid == getuid() && info.st_mode & 0o077 != 0 { fchmod(fd, info.st_mode & 0o700) }
            close(fd)
        }
    }
}
