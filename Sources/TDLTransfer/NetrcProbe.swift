import Foundation

/// Whether the user has a ~/.netrc, looked up again at most every few seconds. curl opens the
/// file for every transfer allowed to use it, and without one that was a failed open per file.
final class NetrcProbe {
    private var checkedAt = -Double.infinity
    private var exists = false

    func fileExists(now: Double) -> Bool {
        if now - checkedAt >= 5 {
            checkedAt = now
            exists = Self.path.map { access($0, F_OK) == 0 } ?? false
        }
        return exists
    }

    /// Where curl looks: $HOME/.netrc, else in the user's home folder.
    static var path: String? {
        if let home = getenv("HOME") { return String(cString: home) + "/.netrc" }
        guard let entry = getpwuid(getuid()), let dir = entry.pointee.pw_dir else { return nil }
        return String(cString: dir) + "/.netrc"
    }
}
