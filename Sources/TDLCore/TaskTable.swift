/// The manager's tasks by URL, keeping how many tasks of the list (not the trash) are in each
/// state as they change: the screen's header shows those counts at every frame, and counting
/// a million tasks each time took most of a second per key.
///
/// Every change goes through the subscript, which compares a task's state and place before
/// and after, so no path that changes a task can leave the counts behind. For the same reason
/// the subscript notes which tasks changed, once someone asks for that (`trackChanges`).
struct TaskTable {
    private(set) var byURL: [String: DownloadTask]
    private var listed: ListedCounts
    /// URLs of the tasks written since `takeChanged`; nil (nothing kept) until `trackChanges`.
    private var changed: Set<String>?

    init(_ tasks: [String: DownloadTask] = [:]) {
        var counts = ListedCounts()
        for task in tasks.values { counts.add(task) }
        self.init(tasks, listed: counts)
    }

    /// A table whose counts were kept as its tasks were read (see `SessionSnapshot`): counting
    /// a million tasks again took a tenth of a launch.
    init(_ tasks: [String: DownloadTask], listed: ListedCounts) {
        byURL = tasks
        self.listed = listed
    }

    subscript(url: String) -> DownloadTask? {
        get { byURL[url] }
        _modify {
            // The URL hashed once for a task that is there (most writes): the task is moved
            // out of its slot for the write and back, so its storage stays uniquely held.
            var task: DownloadTask?
            let slot = byURL.index(forKey: url)
            if let slot { task = Self.takeTask(at: slot, from: &byURL) }
            let before = task.map(ListedCounts.place)
            defer {
                let after = task.map(ListedCounts.place)
                switch (slot, task) {
                case let (slot?, task?): byURL.values[slot] = task
                case let (slot?, nil): byURL.remove(at: slot)
                case let (nil, task?): byURL[url] = task
                case (nil, nil): break
                }
                changed?.insert(url)
                if before?.state != after?.state || before?.listed != after?.listed {
                    if let before, before.listed { listed.byState[before.state] -= 1 }
                    if let after, after.listed { listed.byState[after.state] += 1 }
                }
            }
            yield &task
        }
    }

    /// What stands in a slot while its task is out being written.
    private static let vacant = DownloadTask(url: "", fileName: "", directory: "")

    private static func takeTask(at slot: Dictionary<String, DownloadTask>.Index, from table: inout [String: DownloadTask]) -> DownloadTask {
        var task = vacant
        swap(&task, &table.values[slot])
        return task
    }

    var values: Dictionary<String, DownloadTask>.Values { byURL.values }
    var keys: Dictionary<String, DownloadTask>.Keys { byURL.keys }
    var count: Int { byURL.count }

    mutating func reserveCapacity(_ n: Int) { byURL.reserveCapacity(n) }

    var isTrackingChanges: Bool { changed != nil }

    /// From now on, notes the URL of every task written (added, changed or removed); `all`
    /// counts every task there is as changed.
    mutating func trackChanges(all: Bool = false) {
        if all {
            changed = Set(byURL.keys)
        } else if changed == nil {
            changed = []
        }
    }

    /// The URLs written since the last call (or since `trackChanges`).
    mutating func takeChanged() -> Set<String> {
        guard let taken = changed, !taken.isEmpty else { return [] }
        changed = []
        return taken
    }

    /// Tasks of the list (not the trash) in each state that has any.
    var countsByState: [TaskState: Int] {
        var result: [TaskState: Int] = [:]
        for (k, state) in TaskState.allCases.enumerated() where listed.byState[k] > 0 { result[state] = listed.byState[k] }
        return result
    }

    /// Lets a sort fill the tasks' derived sort names in place (see `SortName`). The body must
    /// not change a state or move a task to or from the trash: the counts are not redone.
    mutating func preparingSortNames<R>(_ body: (inout [String: DownloadTask]) -> R) -> R {
        body(&byURL)
    }
}

/// How many tasks of the list (not the trash) are in each state.
public struct ListedCounts: Sendable {
    /// Indexed by `TaskState.allCases` order.
    fileprivate var byState = [Int](repeating: 0, count: TaskState.allCases.count)

    public init() {}

    mutating func add(_ task: DownloadTask) {
        let place = Self.place(task)
        if place.listed { byState[place.state] += 1 }
    }

    mutating func remove(_ task: DownloadTask) {
        let place = Self.place(task)
        if place.listed { byState[place.state] -= 1 }
    }

    fileprivate static func place(_ task: DownloadTask) -> (state: Int, listed: Bool) {
        (TaskState.allCases.firstIndex(of: task.state)!, task.deletedAt == nil)
    }
}
