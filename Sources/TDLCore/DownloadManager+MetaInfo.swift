/// Facts another layer keeps about a task (aria2's GIDs, say), saved with the task.
extension DownloadManager {
    /// Sets (or, with nil, removes) one of a task's `metaInfo` values; the session saves it.
    public func setMetaInfo(_ value: String?, forKey key: String, of url: String) {
        guard let task = tasks[url], task.metaInfo[key] != value else { return }
        tasks[url]?.metaInfo[key] = value
        markDirty(url)
        emit(.taskChanged(url))
    }
}
