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
final class StatusBoard: Sendable {
    /// The session's numbers, as of the loop's last turn or change.
    struct Totals: Equatable, Sendable {
        var downloadSpeed: Int64 = 0
        var active = 0
        var waiting = 0
        var stopped = 0
        /// Stopped in this run, those whose results were since removed too (aria2's numStoppedTotal).
        var stoppedTotal = 0
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
        /// The GID each URL is placed under where that is not the URL's first (a download
        /// asked for again): few, so the common case keeps no table by URL.
        var moved: [String: UInt64] = [:]

        /// The GID `url` is placed under.
        func placedGID(of url: String) -> UInt64 { moved[url] ?? Aria2Terms.gidNumber(of: url) }

        mutating func place(_ task: DownloadTask) {
            let gid = Aria2Terms.gidNumber(of: task)
            if placedGID(of: task.url) != gid {
                // Asked for again: its old GID goes (an earlier attempt now, see `EarlierAttempts`).
                _ = remove(task.url)
            }
            if gid != Aria2Terms.gidNumber(of: task.url) { moved[task.url] = gid }
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
            let gid = placedGID(of: url)
            moved[url] = nil
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

    private struct State {
        /// False until the loop first publishes every task: until then the loop answers everything.
        var filled = false
        var tasks = Tasks()
        var activity: [String: TaskActivity] = [:]
        var totals = Totals()
        var secret: String?
    }

    /// Guards everything the board holds: a reader copies out under it, the loop swaps in under it.
    private let state = Locked(State())

    // MARK: - Reading, from any thread

    var isFilled: Bool { state.withLock { $0.filled } }

    /// The `token:` every `aria2.` call must open with, when set.
    var secret: String? {
        get { state.withLock { $0.secret } }
        set { state.withLock { $0.secret = newValue } }
    }

    /// The task with this GID, nil when the board has none (or is not filled yet).
    func entry(gid: UInt64) -> Entry? {
        state.withLock { s in
            guard let task = s.tasks.byGID[gid] else { return nil }
            return Entry(task: task, activity: s.activity[task.url], defaultConnections: s.totals.defaultConnections)
        }
    }

    /// The active tasks, by URL.
    func activeEntries() -> [Entry] {
        state.withLock { s in
            s.tasks.active.compactMap { s.tasks.byGID[$0] }.sorted { $0.url < $1.url }
                .map { Entry(task: $0, activity: s.activity[$0.url], defaultConnections: s.totals.defaultConnections) }
        }
    }

    var currentTotals: Totals { state.withLock { $0.totals } }

    /// Up to `limit` current GIDs whose first `digits` hex digits write `prefix`.
    func gids(withPrefix prefix: UInt64, digits: Int, limit: Int = 2) -> [UInt64] {
        let shift = UInt64(64 - 4 * digits)
        return state.withLock { s in
            Array(s.tasks.byGID.keys.lazy.filter { $0 >> shift == prefix }.prefix(limit))
        }
    }

    /// The URL of the task with this GID.
    func url(gid: UInt64) -> String? { state.withLock { $0.tasks.byGID[gid]?.url } }

    // MARK: - Writing, on the loop

    /// Publishes every task at once; the board answers from now on. The table is made before
    /// the lock is taken: readers wait only for the swap.
    func fill<All: Sequence<DownloadTask>>(with all: All) {
        var made = Tasks()
        made.byGID.reserveCapacity(all.underestimatedCount)
        for task in all { made.place(task) }
        state.withLock { s in
            s.tasks = made
            s.filled = true
        }
    }

    /// Publishes tasks changed (or added), and forgets URLs the manager no longer knows.
    /// Returns the URLs a forgotten task's GID was hiding: the caller publishes them again.
    func update(_ changed: [DownloadTask], forgotten: [String]) -> [String] {
        state.withLock { s in
            var uncovered: [String] = []
            for url in forgotten { uncovered += s.tasks.remove(url) }
            for task in changed { s.tasks.place(task) }
            return uncovered
        }
    }

    /// The numbers that change with every turn: the running tasks' bytes and speeds, and the session's totals.
    func setLive(_ activity: [String: TaskActivity], _ totals: Totals) {
        state.withLock { s in
            s.activity = activity
            s.totals = totals
        }
    }
}
