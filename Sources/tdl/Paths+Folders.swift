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

    /// Makes the folder `path` with exactly `mode` (not narrowed by the umask), and its missing
    /// parents as `mkdir -p` does. nil when made (or made meanwhile by another), else the errno.
    static func makeFolder(_ path: String, mode: mode_t) -> Int32? {
        if let failure = makeFolderOnly(path, mode: mode) {
            guard failure == ENOENT, let parent = LocalPath.parent(of: path),
                  makeFolder(parent, mode: 0o777) == nil else { return failure }
            if let again = makeFolderOnly(path, mode: mode) { return again }
        }
        return nil
    }

    /// mkdir, then chmod back to the mode asked for (the umask narrows mkdir's); a parent's
    /// 0o777 keeps the umask's narrowing, as `mkdir -p` does.
    private static func makeFolderOnly(_ path: String, mode: mode_t) -> Int32? {
        guard mkdir(path, mode) == 0 else {
            let failure = errno
            return failure == EEXIST && isFolder(path) ? nil : failure
        }
        return mode == 0o777 || chmod(path, mode) == 0 ? nil : errno
    }

    private static func isFolder(_ path: String) -> Bool {
        var info = stat()
        return stat(path, &info) == 0 && info.st_mode & S_IFMT == S_IFDIR
    }
}
