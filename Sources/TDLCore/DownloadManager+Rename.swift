import Foundation

/// Renaming a download as the user sees it (`e` on the screen): the file on disk takes the
/// name, never over another file, and the session, `tdl list` and the screen agree on it. A
/// finished file is renamed where it lies; a partial or running download's part file moves
/// to the new name (a running one stops for it and goes on from its bytes), and its file
/// will be saved under it.
extension DownloadManager {
    /// Renames the task's file to `given`; returns why it could not, or nil.
    public func renameFile(of url: String, to given: String) -> String? {
        guard let task = tasks[url] else { return "not in the session" }
        guard !given.contains("/"), let name = FileNameSanitizer.sanitize(given) else {
            return "cannot rename to \(given): a file name is needed, without a folder"
        }
        if name == task.fileName {
            clearDisplayName(url)
            return nil
        }
        if scheduler.finishing.contains(url) { return "cannot rename now: the file is being saved; try again in a moment" }
        let wasDownloading = !move([url], .optionsChanging).isEmpty
        let problem = rename(url, to: name)
        if problem == nil { clearDisplayName(url) }
        if wasDownloading { move([url], .start) }
        finishBatch()
        return problem
    }

    /// A name given to the row alone (SDE's display name) would hide the file's.
    private func clearDisplayName(_ url: String) {
        guard tasks[url]?.customDisplayName != nil else { return }
        tasks[url]?.customDisplayName = nil
        markDirty(url)
        emit(.taskChanged(url))
    }

    /// Moves a file to a path where nothing is, never replacing what is there: `link` fails
    /// when the target exists (the NOREPLACE of `renameat2`); a file system without hard
    /// links gets a rename after the check.
    static func moveWithoutReplacing(from: String, to: String) throws {
        if link(from, to) == 0 {
            unlink(from)
            return
        }
        let error = errno
        guard error == EPERM || error == EXDEV || error == ENOTSUP || error == EOPNOTSUPP || error == EMLINK else {
            throw NSError(domain: NSPOSIXErrorDomain, code: Int(error),
                          userInfo: [NSLocalizedDescriptionKey: error == EEXIST ? "a file of that name exists" : String(cString: strerror(error))])
        }
        guard !FileManager.default.fileExists(atPath: to) else {
            throw NSError(domain: NSPOSIXErrorDomain, code: Int(EEXIST), userInfo: [NSLocalizedDescriptionKey: "a file of that name exists"])
        }
        try FileManager.default.moveItem(atPath: from, toPath: to)
    }
}
