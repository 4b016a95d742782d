import Foundation
import TDLCore
#if canImport(Glibc)
import Glibc
#endif

/// What a JSON-RPC caller may ask for, even with the secret: the secret may leak (a web UI's
/// settings, a shell history), and whoever has it should still not read the user's files,
/// write outside the download folders or run commands.
///
/// - URLs are network URLs only: no `file:` (it would copy any file the user can read into a
///   folder the caller reads back) and no other local scheme.
/// - A folder (`dir`) lies inside one of `roots`, checked on the path as the system resolves
///   it (`..` and symlinks), and the path stored is that resolved one.
/// - A name (`out`) is a file name, not a path.
/// - Options that run commands (aria2's `on-download-*` hooks) are never taken.
public struct RPCPolicy: Sendable {
    public static let schemes: Set<String> = ["http", "https", "ftp", "ftps", "sftp"]

    /// aria2's options that run a program, and tdl's own names for them.
    static let commandOptions: Set<String> = [
        "on-download-start", "on-download-pause", "on-download-stop", "on-download-complete",
        "on-download-error", "on-bt-download-complete", "on-complete", "on-error",
    ]

    /// The folders downloads may go into (and under), resolved.
    public let roots: [String]

    /// `roots`: the session's download folder and the ones the user allowed (`--rpc-allowed-dir`).
    public init(roots: [String]) {
        self.roots = roots.map { Self.resolved(URL(fileURLWithPath: $0).standardizedFileURL.path) ?? $0 }
    }

    /// Refuses a URL whose scheme is not a network one.
    public func check(uri: String) throws {
        let scheme = uri.split(separator: ":", maxSplits: 1).first.map { $0.lowercased() } ?? ""
        guard uri.contains(":"), Self.schemes.contains(scheme) else {
            throw RPCFault(1, "tdl takes only \(Self.schemes.sorted().joined(separator: ", ")) URLs over JSON-RPC, not \"\(URLCheck.withoutPassword(uri))\"")
        }
    }

    /// The folder to use for `dir`: the resolved path, when it lies inside a root.
    public func folder(_ given: String) throws -> String {
        guard !given.isEmpty else { throw RPCFault(1, "dir is empty") }
        // `..` goes lexically first: the path checked is the path then used.
        let lexical = URL(fileURLWithPath: given).standardizedFileURL.path
        guard let path = Self.resolved(lexical) else { throw RPCFault(1, "dir \(given) cannot be checked") }
        guard roots.contains(where: { Self.path(path, isInside: $0) }) else {
            throw RPCFault(1, "dir \(given) is outside the folders JSON-RPC may write to (\(roots.joined(separator: ", "))): "
                           + "allow it with tdl serve --rpc-allowed-dir DIR")
        }
        return path
    }

    /// Refuses an `out` that is not a plain file name.
    public func check(name: String) throws {
        guard !name.isEmpty, name != ".", name != "..", !name.contains("/"), !name.contains("\0") else {
            throw RPCFault(1, "out must be a file name, not a path: \(name)")
        }
    }

    /// Refuses an option that runs a command, whatever its value.
    public static func refuseCommand(option name: String) throws {
        guard commandOptions.contains(name) else { return }
        throw RPCFault(1, "the option '\(name)' runs a command: tdl never takes it over JSON-RPC "
                       + "(give tdl --on-complete or --on-error on its command line)")
    }

    static func path(_ path: String, isInside root: String) -> Bool {
        root == "/" || path == root || path.hasPrefix(root + "/")
    }

    /// The path with the symlinks of its existing part resolved; the part that does not exist
    /// yet is kept as written (it has no symlinks). Nil when the existing part cannot be read.
    static func resolved(_ path: String) -> String? {
        var existing = path
        var missing: [String] = []
        while true {
            if let real = realpath(existing, nil) {
                defer { free(real) }
                let base = String(cString: real)
                guard !missing.isEmpty else { return base }
                return (base == "/" ? "" : base) + "/" + missing.reversed().joined(separator: "/")
            }
            guard errno == ENOENT, existing != "/", !existing.isEmpty else { return nil }
            missing.append((existing as NSString).lastPathComponent)
            existing = (existing as NSString).deletingLastPathComponent
        }
    }
}
