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
            // Owned as NameClaims says: an unfinished task that never recorded its name only
            // suggests it; the part file under that name is someone else's.
            if task.state == .finished {
                claimedByOthers.insert(task.filePath)
            } else if task.finalURL != nil {
                claimedByOthers.insert(task.partPath)
            }
        }
        var files: [OwnedFile] = []
        for url in urls {
            guard let task = tasks[url] else { continue }
            var paths: [String] = []
            if task.finalURL != nil { paths.append(task.partPath) }
            if task.state == .finished && !keepFinished { paths.append(task.filePath) }
            for path in paths where !claimedByOthers.contains(path) && FileManager.default.fileExists(atPath: path) {
                files.append(OwnedFile(url: url, path: path))
            }
        }
        return files
    }

    /// Saves what the caller changed, then deletes the files.
    func deleteAfterSaving(_ files: [OwnedFile]) {
        flush()
        for file in files { try? FileManager.default.removeItem(atPath: file.path) }
    }
}
