import Foundation

/// A name given for a download's file (`-o`, `out=`, aria2's `out`) that holds a folder:
/// `sub/x.bin` is saved as `x.bin` in `sub` under the download folder, as aria2 takes a
/// relative `out` under `dir`. It may not leave that folder: `..` and absolute paths are
/// refused, not quietly cut down to their last part. `sub/` names only the folder: the file
/// keeps the name it would have had.
public enum OutputPath {
    /// The subfolder (nil when the name has none) and the file name (nil when only a folder was
    /// given), or why it is refused. Each part is made safe as a server's name would be.
    public static func split(_ given: String) -> Result<(subfolder: String?, name: String?), Refusal> {
        guard given.contains("/") else { return .success((nil, given)) }
        if given.hasPrefix("/") { return .failure(Refusal("an absolute path; give the folder with -d (dir=) and the name alone")) }
        var parts = given.split(separator: "/", omittingEmptySubsequences: true).map(String.init)
        if parts.contains("..") { return .failure(Refusal("\"..\" would leave the download folder")) }
        parts.removeAll { $0 == "." }
        let last = given.hasSuffix("/") ? nil : parts.popLast()
        guard last != nil || !parts.isEmpty else { return .failure(Refusal("the file name given has nothing usable in it")) }
        var folders: [String] = []
        for part in parts {
            guard let safe = FileNameSanitizer.sanitize(part) else { return .failure(Refusal("the folder \"\(part)\" has nothing usable in it")) }
            folders.append(safe)
        }
        return .success((folders.isEmpty ? nil : folders.joined(separator: "/"), last))
    }

    public struct Refusal: Error, Equatable {
        public let reason: String
        init(_ reason: String) { self.reason = reason }
    }
}

extension DownloadManager {
    /// A given name with a folder in it (see `OutputPath`): the name alone stays, the folder
    /// under the download folder becomes the download's, made now as one given with -d is.
    /// Returns why the name is refused.
    func placeInSubfolder(_ options: inout DownloadOptions) -> String? {
        guard let given = options.fileName else { return nil }
        switch OutputPath.split(given) {
        case .failure(let refusal):
            return "the file name \(given): \(refusal.reason)"
        case .success(let split):
            options.fileName = split.name
            guard let sub = split.subfolder else { return nil }
            let folder = ((options.directory ?? downloadDirectory) as NSString).appendingPathComponent(sub)
            try? FileManager.default.createDirectory(atPath: folder, withIntermediateDirectories: true)
            options.directory = folder
            return nil
        }
    }
}
