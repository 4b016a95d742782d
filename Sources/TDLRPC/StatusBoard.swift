import Foundation
import TDLCore

/// What the read-only calls (`tellStatus`, `getFiles`, `getUris`, `getServers`, `tellActive`,
/// `getGlobalStat`) need, published by the event loop for the server's threads: immutable
/// values behind a lock. The loop writes (`StatusPublisher`); any thread reads, and a reader
/// never sees the manager itself. A task is a `DownloadTask` copy, which shares its storage
/// with the manager's until the manager changes it, so the board costs a table entry per task.
///
/// The board is also the loop's index of tasks by GID: a GID two URLs share answers for the
/// first added, as aria2's would for the older download.
final class StatusBoard: @unchecked Sendable {
    /// The session's numbers, as of the loop's last turn or change.
    struct Totals: Equatable, Sendable {
        var downloadSpeed: Int64 = 0
        var active = 0
        var waiting = 0
        var stopped = 0
        /// Connections of a download that names none.
        var defaultConnections = 1
    }

    /// One task as a reader gets it: what its structs are made of.
    struct Entry: Sendable {
        let task: DownloadTask
        let activity: TaskActivity?
        let defaultConnections: Int
    }

    /// The tasks by GID, and which of them are active.
    struct Tasks {
        var byGID: [UInt64: DownloadTask] = [:]
        /// URLs whose GID another URL, added earlier, holds (almost always none).
        var shadowed: [UInt64: Set<String>] = [:]
        var active: Set<UInt64> = []

        mutating func place(_ task: DownloadTask) {
            let gid = Aria2Terms.gidNumber(of: task.url)
            if let held = byGID[gid], held.url != task.url {
                // The first added keeps the GID; the other waits in `shadowed`.
                guard (task.addTime, task.url) < (held.addTime, held.url) else {
                    shadowed[gid, default: []].insert(task.url)
                    return
                }
                shadowed[gid, default: []].insert(held.url)
                shadowed[gid]!.remove(task.url)
            }
            byGID[gid] = task
            if Aria2Terms.status(of: task) == .active { active.insert(gid) } else { active.remove(gid) }
        }

        /// Forgets `url`; returns the URLs its GID hid.
        mutating func remove(_ url: String) -> [String] {
            let gid = Aria2Terms.gidNumber(of: url)
            guard byGID[gid]?.url == url else {
                shadowed[gid]?.remove(url)
                if shadowed[gid]?.isEmpty == true { shadowed[gid] = nil }
                return []
            }
            byGID[gid] = nil
            active.remove(gid)
            return shadowed.removeValue(forKey: gid).map(Array.init) ?? []
        }
    }

    private let lock = NSLock()
    /// False until the loop first publishes every task: until then the loop answers everything.
    private var filled = false
    private var tasks = Tasks()
    private var activity: [String: TaskActivity] = [:]
    private var totals = Totals()
    private var secretValue: String?

    private func locked<T>(_ body: () throws -> T) rethrows -> T {
        lock.lock(); defer { lock.unlock() }
        return try body()
    }

    // MARK: - Reading, from any thread

    var isFilled: Bool { locked { filled } }

    /// The `token:` every `aria2.` call must open with, when set.
    var secret: String? {
        get { locked { secretValue } }
        set { locked { secretValue = newValue } }
    }

    /// The task with this GID, nil when the board has none (or is not filled yet).
    func entry(gid: UInt64) -> Entry? {
        locked {
            guard let task = tasks.byGID[gid] else { return nil }
            return Entry(task: task, activity: activity[task.url], defaultConnections: totals.defaultConnections)
        }
    }

    /// The active tasks, by URL.
    func activeEntries() -> [Entry] {
        locked {
            tasks.active.compactMap { tasks.byGID[$0] }.sorted { $0.url < $1.url }
                .map { Entry(task: $0, activity: activity[$0.url], defaultConnections: totals.defaultConnections) }
        }
    }

    var currentTotals: Totals { locked { totals } }

    /// The URL of the task with this GID.
    func url(gid: UInt64) -> String? { locked { tasks.byGID[gid]?.url } }

    // MARK: - Writing, on the loop

    /// Publishes every task at once; the board answers from now on. The table is made before
    /// the lock is taken: readers wait only for the swap.
    func fill<All: Sequence<DownloadTask>>(with all: All) {
        var made = Tasks()
        made.byGID.reserveCapacity(all.underestimatedCount)
        for task in all { made.place(task) }
        locked {
            tasks = made
            filled = true
        }
    }

    /// Publishes tasks changed (or added), and forgets URLs the manager no longer knows.
    /// Returns the URLs a forgotten task's GID was hiding: the caller publishes them again.
    func update(_ changed: [DownloadTask], forgotten: [String]) -> [String] {
        locked {
            var uncovered: [String] = []
            for url in forgotten { uncovered += tasks.remove(url) }
            for task in changed { tasks.place(task) }
            return uncovered
        }
    }

    /// The numbers that change with every turn: the running tasks' bytes and speeds, and the session's totals.
    func setLive(_ activity: [String: TaskActivity], _ totals: Totals) {
        locked {
            self.activity = activity
            self.totals = totals
        }
    }
}
