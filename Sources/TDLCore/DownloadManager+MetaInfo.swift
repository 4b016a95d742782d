/// Facts another layer keeps about a task (aria2's GIDs, say), saved with the task.
extension DownloadManager {
    /// Sets (or, with nil, removes) one of a task's `metaInfo` values; the session saves it.
    public func setMetaInfo(_ value: String?, forKey key: String, of url: String) {
        guard let task = tasks[url], task.metaInfo[key] != value else { return }
        tasks[url]?.metaInfo[key] = value
        markDirty(url)
        emit(.taskChanged(url))
    }

    /// A `metaInfo` key ending so notes something about the task's stay in the trash (aria2's
    /// "removed from the queue, no result"): it goes when the task leaves the trash.
    public static let trashNoteSuffix = "@trash"

    /// Drops the task's notes on its stay in the trash (it is leaving it).
    func dropTrashNotes(of url: String) {
        guard let keys = tasks[url]?.metaInfo.keys.filter({ $0.hasSuffix(Self.trashNoteSuffix) }), !keys.isEmpty else { return }
        for key in keys { tasks[url]?.metaInfo[key] = nil }
    }
}
