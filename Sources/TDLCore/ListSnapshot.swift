/// What threads other than the loop's may read of the list: the tasks by URL and the live
/// numbers as they were when it was made, an immutable Sendable value. Making one copies
/// nothing (the manager's dictionaries are copy-on-write); the loop keeps it only while it
/// waits for those threads, so the manager's next change copies nothing either.
public struct ListSnapshot: Sendable {
    let tasks: [String: DownloadTask]
    /// Live numbers of the downloading tasks.
    public let activity: [String: TaskActivity]

    public func task(_ url: String) -> DownloadTask? { tasks[url] }

    /// The name the list shows for a task (as `DownloadManager.displayName(of:)`); nil for a
    /// URL the manager did not know when the snapshot was made.
    public func displayName(of url: String) -> String? { tasks[url]?.displayName }
}

extension DownloadManager {
    /// The list as it is now, for reading on other threads.
    public var listSnapshot: ListSnapshot { ListSnapshot(tasks: tasks.byURL, activity: live.byTask) }
}
