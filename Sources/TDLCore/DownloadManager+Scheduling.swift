import Foundation

/// The limit, the start of waiting tasks, and the turns of the event loop.
extension DownloadManager {
    /// 0 or negative means no limit. Lowering it sends the excess (the newest downloads) back
    /// to the waiting queue, where add-time order puts them ahead of later tasks; raising it
    /// starts waiting tasks in that order.
    /// This run's limit (see `RunLimits`) until a new one is set, which is the session's.
    public var maxDownloadCount: Int {
        get { runLimits.maxDownloadCount ?? settings.maxDownloadCount }
        set {
            runLimits.maxDownloadCount = nil
            settings.maxDownloadCount = newValue
            markSettingsDirty()
            move(scheduler.excess(over: newValue, addTime: { tasks[$0]?.addTime ?? .distantPast }), .limitLowered)
            finishBatch()
        }
    }

    /// No slot is free while the session cannot be written (see `isUnsaved`).
    var hasFreeSlot: Bool { !isUnsaved && scheduler.hasFreeSlot(limit: maxDownloadCount) }

    /// From now on only these downloads start, besides those already given (nil: every
    /// waiting one, in queue order). A `tdl get` runs what it was asked for: a session's
    /// backlog of a million waiting tasks does not start ahead of it. Set before `load`, it
    /// also holds back what was downloading before the launch.
    public func runOnly(_ urls: [String]?) {
        scheduler.focus(on: urls, entry: waitingEntry)
        finishBatch()
    }

    /// Starts waiting tasks in start order (add time unless moved) while slots are free.
    func schedule() {
        // Without an engine (tdl add, tdl list) tasks wait for the next tdl that downloads.
        guard engine != nil, hasFreeSlot, !scheduler.waiting.isEmpty else { return }
        // An engine may report an event from inside `start` (a file already complete begins
        // finishing, a missing folder fails) that schedules again: that call returns at once,
        // and this loop, which checks for a free slot before each start, goes on instead.
        // (Recursing once per task could exhaust the stack with thousands of failing tasks.)
        guard !scheduling else { return }
        scheduling = true
        defer { scheduling = false }
        // A queue outside its hours or at its most at once passes its turn.
        let queues = self.queues
        var gate = queues.isEmpty ? nil : queueGate(queues)
        while hasFreeSlot, let url = scheduler.next(canStart: {
            tasks[$0]?.deletedAt == nil && gate?.mayStart(queue: tasks[$0]?.options.queue) != false
        }, entry: waitingEntry) {
            gate?.started(queue: tasks[url]?.options.queue)
            move([url], .start)
        }
        if gate != nil { applyQueueShares() }
    }

    func finishBatch() {
        schedule()
        noteIfAllOver()
    }

    func noteIfAllOver() {
        let busy = scheduler.isBusy
        if wasBusy && !busy { emit(.allDownloadsOver) }
        wasBusy = busy
    }

    /// True while anything downloads or waits for a slot.
    /// A loaded task that waits or downloads answers without queueing the loaded tasks: the
    /// screen's first frame asks before anything starts.
    public var isBusy: Bool {
        if leftByLoad.unscheduled.contains(where: { tasks[$0].map { $0.state.isActive && $0.deletedAt == nil } ?? false }) { return true }
        return scheduler.isBusy
    }


    // MARK: - The loop

    /// One turn of the event loop: transfers run until the timeout or until one of `fds` is
    /// ready; then activity and checkpoints are brought up to date.
    public func runOnce(timeoutMs: Int, watching fds: [WatchedFD] = []) -> Set<Int32> {
        let ready = engine?.wait(timeoutMs: timeoutMs, watching: fds) ?? []
        tick()
        return ready
    }

    /// Samples speeds, and writes batched progress about once a second.
    public func tick() {
        let now = clock()
        let t = now.timeIntervalSinceReferenceDate
        // The scheduler's own set, not asking it: that would queue the tasks of a load the
        // screen queues turn by turn (`queueLoadedTasks`); a loaded task is never downloading
        // before it is queued (a launch sends what was downloading back to waiting).
        live.sample(at: t, of: schedulerState.downloading, live: { engine?.liveProgress() },
                    received: { tasks[$0]?.received ?? 0 }, size: { tasks[$0]?.size })
        // Changed tasks (ended downloads too) and durable progress within a tenth of a second:
        // a checkpoint's offsets arrive after its fdatasync, twice a second per download, and
        // what a crash loses is what they do not yet say.
        let wasUnsaved = isUnsaved
        if saves.isDue(at: now, retrying: wasUnsaved) { flush() }
        if wasUnsaved && !isUnsaved { finishBatch() }  // the downloads held still start again
        applyQueueClockIfDue(now)  // windows that open or close, rate shares
    }

    /// Sum of the current speeds of every downloading task.
    public var overallSpeed: Int64 { live.overallSpeed }
    /// Live numbers of downloading tasks.
    public var activity: [String: TaskActivity] { live.byTask }
    /// Downloading tasks that wait to try a failed connection again.
    public var retrying: [String: RetryStatus] { live.retrying }

    /// Seconds until everything that downloads or waits to is done at the current overall
    /// speed; nil when unknown (no speed, or a size not known yet: a waiting task the server
    /// has not answered for). Paused and stopped tasks are not counted: nothing will fetch them.
    public var overallETA: Double? {
        guard overallSpeed > 1 else { return nil }
        var remaining: Int64 = 0
        for url in scheduler.downloading {
            guard let task = tasks[url], let size = task.size else { return nil }
            remaining += max(0, size - (activity[url]?.received ?? task.received))
        }
        for url in scheduler.waiting {
            guard let task = tasks[url], task.deletedAt == nil else { continue }
            guard let size = task.size else { return nil }
            remaining += max(0, size - task.received)
        }
        return Double(remaining) / Double(overallSpeed)
    }

    /// Called before the program ends: transfers stop, the last durable offsets are saved, and
    /// the session says it ended cleanly (the next launch reports no interrupted download).
    public func shutdown() {
        engine?.shutdown()
        if engine != nil {
            settings.endedCleanly = true
            markSettingsDirty()
        }
        flush()
    }
}
