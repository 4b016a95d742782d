/// The display names of the manager's tasks, as one immutable value that any thread may read:
/// the screen's filter reads a million names on two threads while the loop, which alone owns
/// the manager, waits.
///
/// It shares its storage with the manager's table of tasks, so taking one costs a retain; the
/// manager's next change to a task copies the table once (a million tasks: some milliseconds)
/// if a snapshot is still held then. Take one for a read, and let it go before the loop goes on.
public struct TaskNames: Sendable {
    private let tasks: [String: DownloadTask]
    /// The list's revision when the names were taken (see `DownloadManager.listRevision`).
    public let listRevision: Int

    init(tasks: [String: DownloadTask], listRevision: Int) {
        self.tasks = tasks
        self.listRevision = listRevision
    }

    /// The name the list shows for a task (its own name, else its file name); nil for a URL
    /// the manager did not know when the names were taken.
    public func displayName(of url: String) -> String? { tasks[url]?.displayName }

    /// Appends the UTF-8 of a task's display name; false (nothing appended) for an unknown URL.
    public func appendDisplayName(of url: String, to bytes: inout [UInt8]) -> Bool {
        guard let task = tasks[url] else { return false }
        bytes.append(contentsOf: task.displayName.utf8)
        return true
    }

    /// How many tasks (list and trash) the names cover.
    public var count: Int { tasks.count }
}

extension DownloadManager {
    /// The display names of every task now, for reading on other threads (see `TaskNames`).
    public var taskNames: TaskNames { TaskNames(tasks: tasks.byURL, listRevision: list.revision) }
}
