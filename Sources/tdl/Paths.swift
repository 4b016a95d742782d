import Foundation

/// Where tdl keeps its session and puts downloads, from options, environment and XDG defaults.
enum Paths {
    static var environment: [String: String] { ProcessInfo.processInfo.environment }

    static var homeDirectory: String { environment["HOME"] ?? NSHomeDirectory() }

    /// `--home`, else `TDL_HOME`, else `$XDG_DATA_HOME/tdl`, else `~/.local/share/tdl`.
    static func home(_ option: String?) -> String {
        if let option, !option.isEmpty { return absolute(option) }
        if let env = environment["TDL_HOME"], !env.isEmpty { return absolute(env) }
        if let xdg = environment["XDG_DATA_HOME"], !xdg.isEmpty { return (absolute(xdg) as NSString).appendingPathComponent("tdl") }
        return (homeDirectory as NSString).appendingPathComponent(".local/share/tdl")
    }

    /// `-d/--dir`, else `XDG_DOWNLOAD_DIR`, else `~/Downloads`.
    static func downloads(_ option: String?) -> String {
        if let option, !option.isEmpty { return absolute(option) }
        if let xdg = environment["XDG_DOWNLOAD_DIR"], !xdg.isEmpty { return absolute(xdg) }
        return (homeDirectory as NSString).appendingPathComponent("Downloads")
    }

    static func absolute(_ path: String) -> String {
        let expanded = (path as NSString).expandingTildeInPath
        if expanded.hasPrefix("/") { return (expanded as NSString).standardizingPath }
        return ((FileManager.default.currentDirectoryPath as NSString).appendingPathComponent(expanded) as NSString).standardizingPath
    }

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
