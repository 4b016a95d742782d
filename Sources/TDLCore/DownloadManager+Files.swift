import Foundation

/// Deleting what tasks downloaded (restart, delete for good, delete files). Two rules:
/// - only a task's own files go: a part file it recorded as its own (a suggested name alone
///   may be another task's part), and its finished file; a path another task owns too is
///   left alone (after the user deleted a file, another download may have taken its name);
/// - the session stops naming the files before they go: a crash in between leaves a file the
///   next launch recognises, never a finished task without its file.
extension DownloadManager {
    struct OwnedFile {
        let url: String
        let path: String
    }

    func filesToDelete(of urls: [String], keepFinished: Bool) -> [OwnedFile] {
        guard !urls.isEmpty else { return [] }
        let leaving = Set(urls)
        var claimedByOthers = Set<String>()
        for task in tasks.values where !leaving.contains(task.url) {
            if let path = Self.ownedFile(of: task) { claimedByOthers.insert(path) }
        }
        var files: [OwnedFile] = []
        for url in urls {
            guard let task = tasks[url] else { continue }
            var paths: [String] = []
            if let own = task.ownPartPath { paths.append(own) }
            if task.state == .finished && !keepFinished { paths.append(task.filePath) }
            for path in paths where !claimedByOthers.contains(path) && FileManager.default.fileExists(atPath: path)
                && !isClaimedOutside(path, by: { Self.ownedFile(of: $0) == path }) {
                files.append(OwnedFile(url: url, path: path))
            }
        }
        return files
    }

    /// The file a task would keep from deletion: a name an unfinished task never recorded is
    /// only a suggestion, not a claim.
    static func ownedFile(of task: DownloadTask) -> String? {
        task.state == .finished ? task.filePath : task.ownPartPath
    }

    /// Saves what the caller changed, then deletes the files; when the save failed they stay
    /// (the saved session still names them).
    func deleteAfterSaving(_ files: [OwnedFile]) {
        flush()
        guard lastError == nil else { return }
        for file in files { try? FileManager.default.removeItem(atPath: file.path) }
    }
}
