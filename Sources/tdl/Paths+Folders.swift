import Foundation
import TDLCore
import TDLSession

extension Paths {
    /// Creates the folder if needed and checks that files can be created in it.
    static func ensureWritableDirectory(_ path: String) throws {
        var isDirectory: ObjCBool = false
        if FileManager.default.fileExists(atPath: path, isDirectory: &isDirectory) {
            guard isDirectory.boolValue else { throw CLIError.badDirectory(path, "it is a file, not a folder") }
        } else {
            do {
                try FileManager.default.createDirectory(atPath: path, withIntermediateDirectories: true)
            } catch {
                throw CLIError.badDirectory(path, "it cannot be created")
            }
        }
        guard access(path, W_OK | X_OK) == 0 else { throw CLIError.badDirectory(path, "it is not writable") }
    }

    /// Makes the folder `path`, and its missing parents as `mkdir -p` does, each with `mode`
    /// (set again when the umask narrowed it, as far as the file system allows: a vfat home
    /// keeps the mode it gets). nil when made (or made meanwhile by another), else the folder
    /// that could not be made and the errno.
    static func makeFolder(_ path: String, mode: mode_t) -> (folder: String, errno: Int32)? {
        guard let failure = makeFolderOnly(path, mode: mode) else { return nil }
        guard failure == ENOENT, let parent = LocalPath.parent(of: path) else { return (path, failure) }
        if let parentFailure = makeFolder(parent, mode: mode) { return parentFailure }
        return makeFolderOnly(path, mode: mode).map { (path, $0) }
    }

    private static func makeFolderOnly(_ path: String, mode: mode_t) -> Int32? {
        guard mkdir(path, mode) == 0 else {
            let failure = errno
            return failure == EEXIST && isFolder(path) ? nil : failure
        }
        var info = stat()
        if stat(path, &info) == 0 && info.st_mode & 0o7777 != mode { _ = chmod(path, mode) }
        return nil
    }

    private static func isFolder(_ path: String) -> Bool {
        var info = stat()
        return stat(path, &info) == 0 && info.st_mode & S_IFMT == S_IFDIR
    }
}
