import Foundation
#if canImport(Glibc)
import Glibc
#endif

/// One writer per session: an exclusive flock on a file beside the database. The kernel drops
/// the lock when the holder dies, so a killed tdl never blocks the next launch.
public final class SessionLock {
    public let path: String
    private let fd: Int32

    /// Opens (or creates) the lock file; `tryLock` takes the lock.
    public init(home: String, session: String) throws {
        path = (home as NSString).appendingPathComponent("\(session).lock")
        fd = Glibc.open(path, O_RDWR | O_CREAT | O_CLOEXEC, 0o600)
        guard fd >= 0 else { throw StoreError.lockFailed(path: path, reason: String(cString: strerror(errno))) }
    }

    /// False while another process holds the lock.
    public func tryLock() throws -> Bool {
        guard flock(fd, LOCK_EX | LOCK_NB) == 0 else {
            if errno == EWOULDBLOCK { return false }
            throw StoreError.lockFailed(path: path, reason: String(cString: strerror(errno)))
        }
        let pid = "\(getpid())\n"
        _ = ftruncate(fd, 0)
        _ = pid.withCString { Glibc.pwrite(fd, $0, strlen($0), 0) }
        return true
    }

    /// The process that wrote its id when it took the lock (the holder, while the lock is held).
    public var holder: Int32? {
        var buffer = [UInt8](repeating: 0, count: 16)
        let count = pread(fd, &buffer, buffer.count, 0)
        guard count > 0 else { return nil }
        return Int32(String(decoding: buffer[..<count], as: UTF8.self).trimmingCharacters(in: .whitespacesAndNewlines))
    }

    deinit {
        Glibc.close(fd)  // drops the lock, if this one held it
    }
}
