/// The manager's tasks by URL, keeping how many tasks of the list (not the trash) are in each
/// state as they change: the screen's header shows those counts at every frame, and counting
/// a million tasks each time took most of a second per key.
///
/// Every change goes through the subscript, which compares a task's state and place before
/// and after, so no path that changes a task can leave the counts behind. For the same reason
/// the subscript notes which tasks changed, once someone asks for that (`trackChanges`).
struct TaskTable {
    private(set) var byURL: [String: DownloadTask]
    /// Tasks of the list by state, indexed by `TaskState.allCases` order.
    private var listed = [Int](repeating: 0, count: TaskState.allCases.count)
    /// URLs of the tasks written since `takeChanged`; nil (nothing kept) until `trackChanges`.
    private var changed: Set<String>?

    init(_ tasks: [String: DownloadTask] = [:]) {
        byURL = tasks
        for task in tasks.values {
            let place = Self.countedAs(task)
            if place.listed { listed[place.state] += 1 }
        }
    }

    subscript(url: String) -> DownloadTask? {
        get { byURL[url] }
        _modify {
            let before = byURL[url].map(Self.countedAs)
            yield &byURL[url]
            let after = byURL[url].map(Self.countedAs)
            changed?.insert(url)
            if before?.state != after?.state || before?.listed != after?.listed {
                if let before, before.listed { listed[before.state] -= 1 }
                if let after, after.listed { listed[after.state] += 1 }
            }
        }
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
        for (k, state) in TaskState.allCases.enumerated() where listed[k] > 0 { result[state] = listed[k] }
        return result
    }

    /// Lets a sort fill the tasks' derived sort names in place (see `SortName`). The body must
    /// not change a state or move a task to or from the trash: the counts are not redone.
    mutating func preparingSortNames<R>(_ body: (inout [String: DownloadTask]) -> R) -> R {
        body(&byURL)
    }

    private static func countedAs(_ task: DownloadTask) -> (state: Int, listed: Bool) {
        (TaskState.allCases.firstIndex(of: task.state)!, task.deletedAt == nil)
    }
}
