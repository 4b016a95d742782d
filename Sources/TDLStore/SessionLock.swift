import Foundation
#if canImport(Glibc)
import Glibc
#endif

/// One writer per session: an exclusive flock on a file beside the database. The kernel drops
/// the lock when the holder dies, so a killed tdl never blocks the next launch.
public final class SessionLock {
    public let path: String
    private let fd: Int32

    /// nil when another live process holds the lock.
    public init?(home: String, session: String) throws {
        path = (home as NSString).appendingPathComponent("\(session).lock")
        fd = Glibc.open(path, O_RDWR | O_CREAT | O_CLOEXEC, 0o600)
        guard fd >= 0 else {
            throw NSError(domain: "tdl", code: Int(errno), userInfo: [NSLocalizedDescriptionKey: "cannot open \(path): \(String(cString: strerror(errno)))"])
        }
        if flock(fd, LOCK_EX | LOCK_NB) != 0 {
            // Not closed here: every property is set, so the failed init runs deinit, which
            // closes it. Closing twice closed whatever took the number in between: libdispatch's
            // new epoll descriptor, and `session destroy` of a session in use died with SIGILL.
            return nil
        }
        let pid = "\(getpid())\n"
        _ = ftruncate(fd, 0)
        _ = pid.withCString { Glibc.write(fd, $0, strlen($0)) }
    }

    deinit {
        flock(fd, LOCK_UN)
        Glibc.close(fd)
    }
}
