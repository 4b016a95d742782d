import Foundation

/// What a load left for the scheduler: the scheduler follows the loaded tasks from its first
/// use on, and what was downloading before the launch goes on first.
struct LoadedTasks {
    /// Active tasks of the last load that the scheduler does not follow yet.
    var unscheduled: [String] = []
    /// Tasks the last load found cut off while downloading, in the order they go on.
    var runningBefore: [String] = []
}

/// Loading the session: the launch rules of the lifecycle table, and the start of what it left.
extension DownloadManager {
    /// Reads the session, reconciles what a crash left behind, and restarts interrupted downloads.
    /// Returns how many downloads were interrupted (SDE's restore-from-force-quit).
    /// With `restoring` false the states are shown as stored (for `tdl list` beside a running tdl).
    /// `resumeInterrupted` changes the session's setting (resume, or wait paused) from now on.
    /// `arrangedFor`, given the session's arrangement, names the one to show instead (`tdl
    /// list --sort`, which saves nothing): a million tasks are then sorted once, not twice.
    /// Without `keepingSortNames` a name sort keeps no sort names with the tasks (a listing that
    /// ends after it: a million of them are 100 MB).
    /// Without `startingDownloads` nothing starts until `startLoadedDownloads`: the screen shows
    /// the list first (queueing a million waiting tasks takes most of a second).
    @discardableResult
    public func load(restoring: Bool = true, resumeInterrupted: Bool? = nil,
                     arrangedFor: ((Arrangement) -> Arrangement)? = nil, keepingSortNames: Bool = true,
                     startingDownloads: Bool = true) throws -> Int {
        guard let store else { return 0 }
        var snapshot = try store.load()
        settings = snapshot.settings
        if let resumeInterrupted, resumeInterrupted != settings.resumeInterruptedOnLaunch {
            settings.resumeInterruptedOnLaunch = resumeInterrupted
            markSettingsDirty()
        }
        var interrupted = 0
        // A clean quit says so in the session; anything else was a crash or a kill.
        let crashed = !settings.endedCleanly
        // The store's table becomes the manager's, changed in place: 100,000 tasks are
        // neither copied nor inserted again, and only the active ones are visited.
        var loaded = snapshot.tasks
        snapshot.tasks = [:]
        let storeHeldTasks = !loaded.isEmpty
        // Tasks added before the load (none at launch) stay.
        var counts = snapshot.listedCounts
        for (url, task) in tasks.byURL where loaded[url] == nil {
            loaded[url] = task
            counts.add(task)
        }
        let tracking = tasks.isTrackingChanges
        tasks = TaskTable(loaded, listed: counts)
        loaded = [:]
        // Whoever follows the changes sees every loaded task as one.
        if tracking { tasks.trackChanges(all: true) }
        var runningBefore: [DownloadTask] = []
        for url in snapshot.activeURLsToReconcile {
            guard let wasDownloading = tasks[url].map({ $0.state == .downloading }) else { continue }
            // The states change in place, by the lifecycle table's launch rules.
            if restoring {
                if var task = tasks[url], reconcileFinished(&task) {
                    tasks[url] = task
                    saves.taskChanged(url)
                } else if wasDownloading {
                    if crashed { interrupted += 1 }
                    let event: LifecycleEvent = !crashed ? .relaunchAfterCleanQuit
                        : resumesInterrupted ? .relaunchAfterCrash : .relaunchAfterCrashWaiting
                    tasks[url]?.state = Self.launchState(of: .downloading, event)
                    saves.taskChanged(url)
                    if let task = tasks[url], task.state == .waiting && task.deletedAt == nil {
                        runningBefore.append(task)
                    }
                }
            } else if wasDownloading {
                // Nothing downloads it while this process reads the session: it waits (as the
                // store keeps it, so the next launch starts it first again).
                tasks[url]?.state = Self.launchState(of: .downloading, .readWithoutDownloading)
            }
        }
        if leftByLoad.unscheduled.isEmpty { leftByLoad.unscheduled = snapshot.activeURLs } else { leftByLoad.unscheduled += snapshot.activeURLs }
        toDeleteList = snapshot.trashed.sorted { ($0.deletedAt, $0.url) > ($1.deletedAt, $1.url) }.map(\.url)
        switch arrangedFor?(settings.arrangement) ?? settings.arrangement {
        case .manual: list.adopt(snapshot.manualLayout ?? ManualLayout(sections: [], titles: []), tasks: tasks.byURL)
        case .sorted(let key, let order):
            let placing = sorter(key, order)
            tasks.preparingSortNames { list.sort(by: placing, tasks: &$0, keepingSortNames: keepingSortNames) }
        }
        if restoring && engine != nil {
            // Until `shutdown` says otherwise, the next launch treats this run as cut off. With
            // no task saved yet, a cut-off run has nothing to restore: the mark goes with the
            // next commit, which no task's commit can overtake (`SaveQueue.holdsOnlyTaskChanges`).
            settings.endedCleanly = false
            markSettingsDirty()
            if storeHeldTasks { flush() }
        }
        // A purge a kill cut off is finished first: its tasks must not start.
        if restoring && engine != nil { finishPendingPurges(snapshot.pendingPurges) }
        engine?.setGlobalRateLimit(rateLimitInForce)
        leftByLoad.runningBefore = runningBefore.sorted { ($0.addTime, $0.url) < ($1.addTime, $1.url) }.map(\.url)
        if startingDownloads { startLoadedDownloads() }
        return interrupted
    }

    /// Starts what the last load left to start: what was downloading before it first, so a
    /// relaunch runs the same downloads, then the oldest waiting tasks.
    public func startLoadedDownloads() {
        let first = leftByLoad.runningBefore
        leftByLoad.runningBefore = []
        for url in first where engine != nil && hasFreeSlot && scheduler.mayStart(url) && tasks[url]?.state == .waiting
            && queueMayStart(url) {
            move([url], .start)
        }
        schedule()
    }

    /// A task renamed into place but not yet marked finished: the part file is gone and the
    /// target holds exactly the expected bytes. Mark it finished instead of downloading again.
    /// The recorded progress is not required to be complete: checkpoints lag the last bytes,
    /// and the part file was created under a name whose target did not exist.
    func reconcileFinished(_ task: inout DownloadTask) -> Bool {
        guard let size = task.size else { return false }
        let fm = FileManager.default
        guard !fm.fileExists(atPath: task.partPath),
              let attributes = try? fm.attributesOfItem(atPath: task.filePath),
              (attributes[.size] as? NSNumber)?.int64Value == size else { return false }
        guard Self.launchState(of: task.state, .foundFinishedOnDisk) == .finished else { return false }
        task.state = .finished
        task.completedPath = task.filePath
        return true
    }

    /// Writes what changed since the last call in one transaction.

    /// Tells the scheduler the states of the tasks loaded since its last use. A task changed in
    /// between is taken in its state now, and its change then tracked again, which changes nothing.
    func scheduleLoadedTasks() {
        guard !leftByLoad.unscheduled.isEmpty else { return }
        let urls = leftByLoad.unscheduled
        leftByLoad.unscheduled = []
        schedulerState.reserveCapacity(urls.count)
        for url in urls { scheduleLoaded(url) }
    }

    /// Queues the loaded tasks for at most `seconds`, the last ones of the load first; returns
    /// whether some are left. The screen calls it turn by turn after its first frame, then
    /// starts the downloads (`startLoadedDownloads`): queueing a million waiting tasks at once
    /// took 0.7 s, during which a key waited. Whatever asks the scheduler before it is done
    /// queues the rest at once, so the scheduler never answers from part of the tasks.
    public func queueLoadedTasks(for seconds: Double) -> Bool {
        guard !leftByLoad.unscheduled.isEmpty else { return false }
        let deadline = DispatchTime.now().uptimeNanoseconds + UInt64(seconds * 1e9)
        schedulerState.reserveCapacity(leftByLoad.unscheduled.count)
        var urls = leftByLoad.unscheduled
        leftByLoad.unscheduled = []  // not shared with `urls` while it shrinks
        repeat {
            for _ in 0..<min(1_024, urls.count) { scheduleLoaded(urls.removeLast()) }
        } while !urls.isEmpty && DispatchTime.now().uptimeNanoseconds < deadline
        leftByLoad.unscheduled = urls
        return !urls.isEmpty
    }

    /// Tells the scheduler the state of a loaded task, as it is now.
    private func scheduleLoaded(_ url: String) {
        if let task = tasks[url], task.state.isActive && task.deletedAt == nil {
            schedulerState.track(url, task.state) { WaitingQueue.Entry(addTime: task.addTime, url: url) }
        }
    }
}
