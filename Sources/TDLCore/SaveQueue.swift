import Foundation

/// What changed since the last save, until a save takes it: whole tasks by URL (written as
/// they are when the save comes), progress of the others (the hot path), removed tasks,
/// settings, and the manual layout. A failed save gives its changes back, so nothing the
/// user did is dropped; the manager decides when to save.
struct SaveQueue {
    private var changedTasks: Set<String> = []
    /// The changed tasks in the order they first changed: a batch's rows are written in the
    /// order it was added, so new rows go to the end of the table and of its indexes rather
    /// than to pages all over them (hash order cost a million-URL `add` most of its writing
    /// time), and the table reads back in that order.
    private var changeOrder: [String] = []
    /// A task left `changedTasks` after it changed (it was removed): the order then has an
    /// entry to skip, or a task twice.
    private var changeOrderHasGaps = false
    private var pending = SessionChanges()
    /// The list's revision at the last save: a layout arranged by hand is saved once it moves on.
    private var savedListRevision = 0
    private(set) var lastSave: Date = .distantPast
    /// Tasks whose progress was reset and whose next download has not started yet: the
    /// stopped download's last checkpoint may still be on its way, and must not bring back
    /// offsets of bytes that are gone.
    private(set) var progressReset: Set<String> = []
    /// Changed tasks whose change may wait for the next save: a download started or ended.
    /// A commit the engine waits for (a name before its file) leaves them out (`takeUrgent`).
    private var mayWait: Set<String> = []

    /// Room for `count` more changed tasks: a batch of a million grew the set step by step,
    /// hashing every URL again at each step.
    mutating func reserveCapacity(_ count: Int) {
        changedTasks.reserveCapacity(changedTasks.count + count)
        changeOrder.reserveCapacity(changeOrder.count + count)
    }

    mutating func taskChanged(_ url: String) {
        if changedTasks.insert(url).inserted { changeOrder.append(url) }
        if !mayWait.isEmpty { mayWait.remove(url) }
    }

    /// A change that may wait for the next save, unless the task has another that may not.
    mutating func taskChangedMayWait(_ url: String) {
        if changedTasks.insert(url).inserted {
            changeOrder.append(url)
            mayWait.insert(url)
        }
    }

    /// Only changed tasks and progress wait: a commit of some tasks alone keeps the order of
    /// everything else (a removal, a purge) as it is. Settings waiting go first too: a launch's
    /// "not ended cleanly" mark must reach the file before any task that a crash would cut off.
    var holdsOnlyTaskChanges: Bool {
        pending.removed.isEmpty && pending.purgesBegun.isEmpty && pending.purgesEnded.isEmpty && pending.settings == nil
    }

    /// The changed tasks whose changes may not wait (names above all), each as it is in
    /// `tasks`, in the order they first changed; nil when there are none. Everything else
    /// stays for the next `take`, and `lastSave` with it.
    mutating func takeUrgent(tasks: [String: DownloadTask]) -> SessionChanges? {
        guard changedTasks.count > mayWait.count else { return nil }
        var changes = SessionChanges()
        for url in changeOrder where !mayWait.contains(url) && changedTasks.remove(url) != nil {
            changeOrderHasGaps = true
            if let task = tasks[url] {
                changes.upserted.append(task)
                if !pending.progress.isEmpty { pending.progress[url] = nil }
            }
        }
        return changes.upserted.isEmpty ? nil : changes
    }

    /// A `takeUrgent` that failed: its tasks are changed again.
    mutating func giveBackUrgent(_ changes: SessionChanges) {
        for task in changes.upserted { taskChanged(task.url) }
    }

    mutating func settingsChanged(_ settings: SessionSettings) { pending.settings = settings }

    /// A checkpoint: only its segments go out, unless the whole row does anyway.
    mutating func progressed(_ url: String, _ segments: [Segment]) {
        if !changedTasks.contains(url) { pending.progress[url] = segments }
    }

    mutating func resetProgress(_ url: String) {
        pending.progress[url] = nil
        progressReset.insert(url)
    }

    mutating func downloadStarted(_ url: String) { progressReset.remove(url) }

    mutating func taskRemoved(_ url: String) {
        progressReset.remove(url)
        if changedTasks.remove(url) != nil { changeOrderHasGaps = true }
        mayWait.remove(url)
        pending.progress[url] = nil
        pending.removed.append(url)
    }

    mutating func purgesBegun(_ urls: [String]) { pending.purgesBegun += urls }
    mutating func purgesEnded(_ urls: [String]) { pending.purgesEnded += urls }

    /// Changes wait, and a tenth of a second passed since the last save; or a second did.
    /// A save that failed (`retrying`) is tried again once a second, not ten times.
    func isDue(at now: Date, retrying: Bool = false) -> Bool {
        let since = now.timeIntervalSince(lastSave)
        return since >= 1 || (!retrying && (!changedTasks.isEmpty || !pending.progress.isEmpty) && since >= 0.1)
    }

    /// Everything to write now, with each changed task as it is in `tasks`; nil when nothing
    /// changed. The queue is empty afterwards until `giveBack`.
    mutating func take(tasks: [String: DownloadTask], list: ListModel, at now: Date) -> SessionChanges? {
        lastSave = now
        pending.upserted.reserveCapacity(pending.upserted.count + changedTasks.count)
        // A task removed after it changed is in the order but no longer in the set; one
        // changed again after that is in the order twice, and goes out once.
        for url in changeOrder where !changeOrderHasGaps || changedTasks.remove(url) != nil {
            if let task = tasks[url] {
                pending.upserted.append(task)
                if !pending.progress.isEmpty { pending.progress[url] = nil }
            }
        }
        changedTasks.removeAll()
        changeOrder.removeAll()
        mayWait.removeAll()
        changeOrderHasGaps = false
        if list.arrangement.isManual, pending.manualLayout == nil, list.revision != savedListRevision {
            pending.manualLayout = list.layout
        }
        savedListRevision = list.revision
        guard !pending.isEmpty else { return nil }
        defer { pending = SessionChanges() }
        return pending
    }

    /// A save that failed: its changes wait for the next one.
    mutating func giveBack(_ changes: SessionChanges) { pending = changes }
}
