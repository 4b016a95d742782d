import Foundation
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
}
