import Foundation
import TDLCore

/// Keeps a `StatusBoard` current from the manager, on the loop that owns the manager: every
/// task once (at the first call that needs the board), then the tasks that changed, at once on
/// each of the manager's events and after each call the loop answers; and the running tasks'
/// bytes and speeds at every turn. A call that changed a task has therefore published it
/// before its answer leaves, and a later read sees the change; bytes and speeds of a running
/// download are at most one turn old.
final class StatusPublisher {
    let board = StatusBoard()
    private let manager: DownloadManager
    private var observer: Int?
    /// Stopped downloads whose results were removed (purge, removeDownloadResult) in this run.
    var forgottenStopped = 0
    /// GIDs downloads had before their URLs were added again: stopped downloads too.
    var earlierCount = 0
    /// Tasks in tdl's trash that aria2 has no trace of (`Aria2Terms.isDropped`): off the board
    /// and out of the numbers.
    private var dropped: Set<String> = []

    init(manager: DownloadManager) {
        self.manager = manager
        observer = manager.observe { [weak self] event in
            switch event {
            case .saveFailed, .deleteFailed, .allDownloadsOver: break
            default: self?.publish()
            }
        }
    }

    deinit {
        if let observer { manager.stopObserving(observer) }
    }

    /// Publishes every task the first time (the manager notes changes from then on).
    func fillIfNeeded() {
        guard !board.isFilled else { return }
        manager.trackChangedTasks()
        _ = manager.takeChangedTasks()
        dropped = Set(manager.allTasks.lazy.filter(Aria2Terms.isDropped).map(\.url))
        board.fill(with: manager.allTasks.lazy.filter { !Aria2Terms.isDropped($0) })
        publishLive()
    }

    /// Publishes what changed since the last time, and the live numbers. Nothing before the
    /// board is first filled: until then the loop answers every call.
    func publish() {
        guard board.isFilled else { return }
        publishChanges()
        publishLive()
    }

    /// Publishes the tasks changed since the last time.
    func publishChanges() {
        guard board.isFilled else { return }
        var urls = manager.takeChangedTasks()
        while !urls.isEmpty {
            var changed: [DownloadTask] = [], forgotten: [String] = []
            for url in urls {
                if let task = manager.task(url), !Aria2Terms.isDropped(task) {
                    changed.append(task)
                    dropped.remove(url)
                } else {
                    forgotten.append(url)
                    if manager.task(url) != nil { dropped.insert(url) } else { dropped.remove(url) }
                }
            }
            // A forgotten task hid another of the same GID: that one is published now.
            urls = Set(board.update(changed, forgotten: forgotten))
        }
    }

    private func publishLive() {
        let counts = manager.counts
        var totals = StatusBoard.Totals()
        totals.downloadSpeed = manager.overallSpeed
        totals.active = counts[.downloading] ?? 0
        totals.waiting = (counts[.waiting] ?? 0) + (counts[.paused] ?? 0) + (counts[.stopped] ?? 0)
        totals.stopped = (counts[.finished] ?? 0) + (counts[.failed] ?? 0) + manager.trashCount - dropped.count + earlierCount
        totals.stoppedTotal = totals.stopped + forgottenStopped
        totals.defaultConnections = manager.settings.connectionsPerDownload
        board.setLive(manager.activity, totals)
    }
}
