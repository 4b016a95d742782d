/// Delete for good (the trash's `d` and `E`, `rm --purge`, aria2's purge) of many tasks at once.
/// The session records which tasks the purge is about to forget before their files go, and
/// forgets that record in the commit that forgets the tasks: a kill while two thousand part
/// files are deleted once left hundreds of them on disk with no record, and now the next
/// launch finishes the purge instead (`load`).
extension DownloadManager {
    /// Records the purge of these tasks, then deletes their files; returns those whose files
    /// could not be deleted, which stay as they are. When the record cannot be saved nothing is
    /// deleted and every task stays (the caller reports the failed save).
    func beginPurge(_ urls: [String]) -> Set<String> {
        let ruled = urls.compactMap { url in rule(for: url, .purge).map { (url: url, rule: $0) } }
        let purging = ruled.map(\.url)
        guard !purging.isEmpty else { return [] }
        saves.purgesBegun(purging)
        flush()
        guard lastError == nil else {
            saves.purgesEnded(purging)
            return Set(purging)
        }
        // Finished files stay on every purge path: deleting one is its own action (`D`).
        return deleteFilesFirst(of: ruled, keepFinished: true)
    }

    /// The purge is over: its record goes with the next save, which forgets the tasks too.
    func endPurge(_ urls: [String]) {
        guard !urls.isEmpty else { return }
        saves.purgesEnded(urls)
        flush()
    }

    /// A purge a kill cut off: the tasks still recorded are forgotten (their part files
    /// deleted), as the purge would have done.
    func finishPendingPurges(_ urls: [String]) {
        guard !urls.isEmpty else { return }
        purgeTasks(urls.filter { tasks[$0] != nil })
        endPurge(urls)
    }
}
