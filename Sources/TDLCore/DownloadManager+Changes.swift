/// Which tasks changed, for a copy of the tasks kept elsewhere (the JSON-RPC's published
/// status, read by the server's threads) that brings itself up to date from it.
extension DownloadManager {
    /// From now on, remembers the URL of every task added, changed or forgotten, until
    /// `takeChangedTasks`. Costs nothing until called.
    public func trackChangedTasks() { tasks.trackChanges() }

    /// The URLs of the tasks added, changed or forgotten since the last call (empty before
    /// `trackChangedTasks`). A URL the manager no longer knows was forgotten.
    public func takeChangedTasks() -> Set<String> { tasks.takeChanged() }

    /// Every task, list and trash, without copying the table.
    public var allTasks: Dictionary<String, DownloadTask>.Values { tasks.values }

    /// How many tasks are in the trash.
    public var trashCount: Int { toDeleteList.count }
}
