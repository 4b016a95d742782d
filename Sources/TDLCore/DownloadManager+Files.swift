import Foundation

/// A file tdl could not delete, and why (strerror's words).
public struct FileDeleteFailure: Equatable, Sendable {
    public let url: String
    public let path: String
    public let reason: String

    public var message: String { "could not delete \(path): \(reason)" }
}

/// Deleting what tasks downloaded (restart, delete for good, delete files). Two rules:
/// - only a task's own files go: a part file it recorded as its own (a suggested name alone
///   may be another task's part), and its finished file; a path another task owns too is
///   left alone (after the user deleted a file, another download may have taken its name);
/// - the files go before the task changes: a file that cannot be deleted (EACCES, EIO, a
///   read-only mount, an immutable file) leaves its task as it was, and the caller says so
///   with the path and the reason. Once they said success while a finished file stayed
///   `done` and a part file was left behind with no task. A crash between the delete and
///   the save leaves a task whose file is missing: a resume starts it from zero, asking for
///   it again downloads it again. (The trash's purge also records its intent first; see
///   `PendingPurge`.)
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

    /// Deletes the files these moves discard, before anything about their tasks changes;
    /// returns the tasks whose files could not all be deleted, which stay as they are.
    func deleteFilesFirst(of moves: [(url: String, rule: Lifecycle.Rule)], keepFinished: Bool) -> Set<String> {
        let discarding = moves.filter { $0.rule.effects.contains(.discardFiles) }.map(\.url)
        guard !discarding.isEmpty else { return [] }
        var failed = Set<String>()
        for file in filesToDelete(of: discarding, keepFinished: keepFinished) where !failed.contains(file.url) {
            if unlinkat(AT_FDCWD, file.path, 0) != 0 && errno != ENOENT {
                let failure = FileDeleteFailure(url: file.url, path: file.path, reason: String(cString: strerror(errno)))
                failed.insert(file.url)
                deleteFailures.append(failure)
                emit(.deleteFailed(failure))
            }
        }
        return failed
    }

    /// The files this manager could not delete since the last call, and forgets them: what a
    /// command reports (exit 1) after its request.
    public func takeDeleteFailures() -> [FileDeleteFailure] {
        defer { deleteFailures = [] }
        return deleteFailures
    }
}
