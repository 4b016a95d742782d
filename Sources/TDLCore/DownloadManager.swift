import Foundation

/// The heart of tdl, after SDEDownloadManager: the list of downloads as sections of URL strings,
/// the trash, the scheduler, and the bridge between the transfer engine and the session store.
///
///     let manager = DownloadManager(identifier: "default", defaultDirectory: "/tmp")
///     let result = manager.add(["https://example.org/a.iso"])
///     manager.downloadList   // [["https://example.org/a.iso"]]
///
/// Not thread-safe by design: it lives on the event loop, like every caller of it.
public final class DownloadManager {
    public let identifier: String
    public internal(set) var settings: SessionSettings
    /// Folder for new downloads when neither the call nor the settings name one.
    public var defaultDirectory: String
    /// SDE's downloadNewFileImmediately: new tasks start (or queue) at once when true.
    public var downloadNewFileImmediately = true
    /// The tdl home: no download is added into it (see `ReservedFolder`).
    public var reservedFolder: ReservedFolder?
    /// Injected for tests: the time used for add times, sectioning and speed.
    public var clock: () -> Date = Date.init
    /// Who hears of every change (the screen, `tdl get`, the hooks), on the loop thread, in
    /// the order they began to listen.
    private var observers: [(id: Int, hear: (ManagerEvent) -> Void)] = []
    private var nextObserver = 0
    /// Hashes a file (path, algorithm → hex): a finished file asked for again with a checksum
    /// is verified, not trusted. Nil: not verified.
    public var fileDigest: ((String, Checksum.Algorithm) -> String?)?

    public let engine: TransferEngine?
    public let store: SessionStore?

    var tasks = TaskTable()
    var list: ListModel
    public internal(set) var toDeleteList: [String] = []
    /// Follows the states of the loaded tasks from its first use on: a command that only reads
    /// the session (`tdl list`) never queues a million waiting tasks, most of a second.
    var scheduler: Scheduler {
        _read {
            scheduleLoadedTasks()
            yield schedulerState
        }
        _modify {
            scheduleLoadedTasks()
            yield &schedulerState
        }
    }
    private var schedulerState = Scheduler()
    /// Active tasks of the last load that the scheduler does not follow yet.
    private var loadedUnscheduled: [String] = []
    /// Tasks the last load found cut off while downloading, in the order they go on.
    private var runningBeforeLoad: [String] = []
    /// True inside `schedule`, which an engine event from `start` may call again.
    var scheduling = false
    var live = LiveActivity()
    var saves = SaveQueue()
    /// This run's own limits over the session's (see `RunLimits`).
    var runLimits = RunLimits()
    var wasBusy = false
    /// See `today()`.
    var currentDay: DateInterval?
    /// How far `prepareSortNames(for:)` got.
    var sortNamePreparation = SortNamePreparation()
    /// QUEUES: see `DownloadManager+Queues.swift`.
    var queueClock = QueueClock()

    public init(identifier: String = "default", defaultDirectory: String, engine: TransferEngine? = nil, store: SessionStore? = nil) {
        self.identifier = identifier
        self.defaultDirectory = defaultDirectory
        self.engine = engine
        self.store = store
        self.settings = SessionSettings()
        list = ListModel(arrangement: settings.arrangement)
        engine?.onEvent = { [weak self] event in self?.handle(event) }
        engine?.isNameTaken = { [weak self] url, path in self?.isNameTaken(path, except: url) ?? false }
        // `.resolved` is committed before the engine goes on: a failed commit shows here.
        engine?.isRecorded = { [weak self] _ in self?.isUnsaved == false }
    }

    // MARK: - Observers

    /// Hears every change from now on, until `stopObserving` with the returned number.
    @discardableResult
    public func observe(_ hear: @escaping (ManagerEvent) -> Void) -> Int {
        nextObserver += 1
        observers.append((nextObserver, hear))
        return nextObserver
    }

    public func stopObserving(_ id: Int) {
        observers.removeAll { $0.id == id }
    }

    func emit(_ event: ManagerEvent) {
        for observer in observers { observer.hear(event) }
    }

    // MARK: - Loading and saving

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
                if reconcileFinished(&tasks[url]!) {
                    saves.taskChanged(url)
                } else if wasDownloading {
                    if crashed { interrupted += 1 }
                    let event: LifecycleEvent = !crashed ? .relaunchAfterCleanQuit
                        : settings.resumeInterruptedOnLaunch ? .relaunchAfterCrash : .relaunchAfterCrashWaiting
                    tasks[url]!.state = Self.launchState(of: .downloading, event)
                    saves.taskChanged(url)
                    if let task = tasks[url], task.state == .waiting && task.deletedAt == nil {
                        runningBefore.append(task)
                    }
                }
            } else if wasDownloading {
                // Nothing downloads it while this process reads the session: it waits (as the
                // store keeps it, so the next launch starts it first again).
                tasks[url]!.state = Self.launchState(of: .downloading, .readWithoutDownloading)
            }
        }
        if loadedUnscheduled.isEmpty { loadedUnscheduled = snapshot.activeURLs } else { loadedUnscheduled += snapshot.activeURLs }
        toDeleteList = snapshot.trashed.sorted { ($0.deletedAt, $0.url) > ($1.deletedAt, $1.url) }.map(\.url)
        switch arrangedFor?(settings.arrangement) ?? settings.arrangement {
        case .manual: list.adopt(snapshot.manualLayout ?? ManualLayout(sections: [], titles: []), tasks: tasks.byURL)
        case .sorted(let key, let order):
            tasks.preparingSortNames { list.sort(by: sorter(key, order), tasks: &$0, keepingSortNames: keepingSortNames) }
        }
        if restoring && engine != nil {
            // Until `shutdown` says otherwise, the next launch treats this run as cut off.
            settings.endedCleanly = false
            markSettingsDirty()
            flush()
        }
        // A purge a kill cut off is finished first: its tasks must not start.
        if restoring && engine != nil { finishPendingPurges(snapshot.pendingPurges) }
        engine?.setGlobalRateLimit(globalRateLimit)
        runningBeforeLoad = runningBefore.sorted { ($0.addTime, $0.url) < ($1.addTime, $1.url) }.map(\.url)
        if startingDownloads { startLoadedDownloads() }
        return interrupted
    }

    /// Starts what the last load left to start: what was downloading before it first, so a
    /// relaunch runs the same downloads, then the oldest waiting tasks.
    public func startLoadedDownloads() {
        let first = runningBeforeLoad
        runningBeforeLoad = []
        for url in first where engine != nil && hasFreeSlot && scheduler.mayStart(url) && tasks[url]?.state == .waiting
            && queueMayStart(url) {  // QUEUES
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
    public func flush() {
        guard let store, let changes = saves.take(tasks: tasks.byURL, list: list, at: clock()) else { return }
        do {
            try store.commit(changes)
            lastError = nil
        } catch {
            saves.giveBack(changes)
            let problem = "could not save the session: \(error)"
            lastError = problem
            emit(.saveFailed(problem))
        }
    }

    /// Why the last save failed (nil once one succeeds): the changes wait for the next try.
    public internal(set) var lastError: String?

    /// Files that could not be deleted, kept for the command that asked (`takeDeleteFailures`).
    var deleteFailures: [FileDeleteFailure] = []

    /// Every change that is saved passes here, so the name claims follow it too.
    func markDirty(_ url: String) {
        saves.taskChanged(url)
        if claims != nil, let task = tasks[url] { claims!.update(task) }
    }

    /// Built when the engine first asks (a launch of 100,000 tasks does not pay for it), then
    /// kept current by `markDirty`.
    var claims: NameClaims?

    func isNameTaken(_ path: String, except url: String) -> Bool {
        if claims == nil { claims = NameClaims(tasks.values) }
        return claims!.isTaken(path, except: url)
            || isClaimedOutside(path) { $0.url != url && NameClaims.path(of: $0) == path }
    }

    /// Whether a task the store did not load (see `SessionStore.unloadedTasks`) claims `path`
    /// by `claims`. A store that cannot answer counts as a claim: a name is then refused and
    /// a file kept, never one taken or deleted under another task.
    func isClaimedOutside(_ path: String, by claims: (DownloadTask) -> Bool) -> Bool {
        guard let store else { return false }
        guard let others = try? store.unloadedTasks(mayOwning: path) else { return true }
        return others.contains { tasks[$0.url] == nil && claims($0) }
    }

    func markSettingsDirty() { saves.settingsChanged(settings) }

    // MARK: - Data source

    public var downloadList: [[String]] { list.sections }
    public var sectionTitles: [String] { list.titles }
    public var sectionCount: Int { list.sections.count }

    /// Goes up whenever a task is added, removed or moved in the list, or the list is sorted.
    public var listRevision: Int { list.revision }
    public var arrangement: Arrangement { list.arrangement }
    public var isTrashOpened: Bool {
        get { settings.isTrashOpened }
        set { settings.isTrashOpened = newValue; markSettingsDirty() }
    }
    public var hiddenFileExtension: Bool {
        get { settings.hiddenFileExtension }
        set { settings.hiddenFileExtension = newValue; markSettingsDirty(); resort() }
    }

    /// Tasks in the list (not the trash).
    public var downloadTaskSet: Set<String> { Set(tasks.keys).subtracting(toDeleteList) }
    /// Every task the manager knows, list and trash.
    public var allTasksSet: Set<String> { Set(tasks.keys) }
    /// How many tasks the manager knows, list and trash.
    public var taskCount: Int { tasks.count }
    /// Unfinished tasks in the list, most recently added first.
    public var unfinishedList: [String] {
        let trash = Set(toDeleteList)
        return tasks.values.filter { $0.state != .finished && !trash.contains($0.url) }
            .sorted { ($0.addTime, $0.url) > ($1.addTime, $1.url) }.map(\.url)
    }

    /// -1 when the section does not exist (SDE's answer).
    public func taskCountInSection(_ section: Int) -> Int {
        list.sections.indices.contains(section) ? list.sections[section].count : -1
    }

    public func titleForHeaderInSection(_ section: Int) -> String? {
        guard list.titles.indices.contains(section), !list.titles[section].isEmpty else { return nil }
        return list.titles[section]
    }

    public func task(_ url: String) -> DownloadTask? { tasks[url] }

    public func url(at index: ListIndex) -> String? { list.url(at: index) }

    /// O(1) amortized: the map is rebuilt once after each change of the list.
    public func indexPath(of url: String) -> ListIndex? { list.indexPath(of: url) }

    public func displayName(of url: String) -> String? {
        tasks[url]?.displayName(hidingExtension: settings.hiddenFileExtension)
    }

    public func state(of url: String) -> TaskState? { tasks[url]?.state }

    public func detailText(of url: String) -> String? { tasks[url]?.detailText }

    public func progress(of url: String) -> Double {
        guard let task = tasks[url] else { return 0 }
        if let now = live.byTask[url], let expected = now.expected, expected > 0 {
            return min(1, Double(now.received) / Double(expected))
        }
        return task.progress
    }

    /// SDE's meta info: free-form facts a client attaches to a task.
    public func updateMetaInfo(_ info: [String: String], forTask url: String) {
        guard tasks[url] != nil else { return }
        tasks[url]!.metaInfo.merge(info) { _, new in new }
        markDirty(url)
    }

    public func info(ofTask url: String, about key: String) -> String? { tasks[url]?.metaInfo[key] }

    /// Says what happened to a task (its details and `tdl list` show it): a hook that could not run.
    public func addNote(_ text: String, toTask url: String) {
        guard tasks[url] != nil else { return }
        tasks[url]!.note = text
        markDirty(url)
        emit(.taskChanged(url))
    }

    /// Tasks of the list (not the trash) by state.
    public var counts: [TaskState: Int] { tasks.countsByState }

    // MARK: - Adding

    /// Adds URLs with the same options (repeated and invalid ones are filtered and reported).
    /// New tasks land where the current sort puts them; in manual mode at `manualIndex`
    /// (default: top of section 0).
    @discardableResult
    public func add(_ urls: [String], options: DownloadOptions = DownloadOptions(), at manualIndex: ListIndex? = nil) -> AddResult {
        add(urls.map { DownloadRequest(url: $0, options: options) }, at: manualIndex)
    }

    /// Adds downloads, each with its own options, in one batch: the list places them and the
    /// scheduler starts them once. A URL the session has already is asked for again (see
    /// `askAgain`): its new options apply to it.
    @discardableResult
    public func add(_ requests: [DownloadRequest], at manualIndex: ListIndex? = nil) -> AddResult {
        var batch = AddBatch()
        return add(requests, at: manualIndex, batch: &batch)
    }

    /// Adds one part of a batch given in several calls (see `AddBatch`).
    @discardableResult
    public func add(_ requests: [DownloadRequest], at manualIndex: ListIndex? = nil, batch: inout AddBatch) -> AddResult {
        var result = AddResult()
        // Grown by doubling over a batch's later parts: reserving each part's count again
        // would hash every URL seen so far once per part.
        if batch.seen.capacity < batch.seen.count + requests.count {
            batch.seen.reserveCapacity(max(batch.seen.count + requests.count, 2 * batch.seen.capacity))
        }
        let now = batch.lastAddTime.map { max(clock(), $0.addingTimeInterval(1e-6)) } ?? clock()
        var newTasks: [DownloadTask] = []
        newTasks.reserveCapacity(requests.count)
        for request in requests {
            let url = URLIdentity.normalized(String(request.url.trimmingWhitespace()))
            var options = request.options
            if let problem = URLCheck.problem(with: url) {
                result.rejected.append(.init(url: url, reason: problem))
                continue
            }
            if let refusal = placeInSubfolder(&options) {
                result.rejected.append(.init(url: url, reason: refusal))
                continue
            }
            if let name = options.fileName {
                // A name from a user or a script is as untrusted as a server's.
                guard let safe = FileNameSanitizer.sanitize(name) else {
                    result.rejected.append(.init(url: url, reason: "the file name given has nothing usable in it"))
                    continue
                }
                options.fileName = safe
            }
            let fileName = options.fileName ?? URLCheck.suggestedFileName(for: url)
            if let problem = folderProblem(options.directory ?? folder(forNewFile: fileName)) {  // QUEUES: categories
                result.rejected.append(.init(url: url, reason: problem))
                continue
            }
            if !batch.seen.insert(url).inserted {
                result.existing.append(url)
                result.duplicates.append(.init(url: url, reason: "repeated in this batch"))
                continue
            }
            if tasks[url] != nil {
                result.existing.append(url)
                let outcome = askAgain(url, options: options)
                result.duplicates.append(.init(url: url, reason: outcome.done))
                if let problem = outcome.notApplied { result.notApplied.append(.init(url: url, reason: problem)) }
                continue
            }
            var task = DownloadTask(url: url, fileName: fileName,
                                    directory: options.directory ?? folder(forNewFile: fileName),
                                    // A microsecond apart: the batch keeps its order in add-time order.
                                    addTime: now.addingTimeInterval(Double(newTasks.count) * 1e-6),
                                    state: downloadNewFileImmediately ? .waiting : .stopped)
            task.options = options.kept
            // A batch's tasks mostly have the same options: one copy serves them all.
            if let previous = newTasks.last { task.shareExtras(ifEqualTo: previous) }
            newTasks.append(task)
            result.added.append(url)
        }
        guard let last = newTasks.last else {
            finishBatch()
            return result
        }
        batch.lastAddTime = last.addTime
        tasks.reserveCapacity(tasks.count + newTasks.count)
        saves.reserveCapacity(newTasks.count)
        scheduler.reserveCapacity(newTasks.count)
        for task in newTasks {
            tasks[task.url] = task
            trackState(task.url, task.state)
            markDirty(task.url)
        }
        place(newTasks.map(\.url), atManualIndex: manualIndex ?? ListIndex(section: 0, row: 0))
        emit(.listChanged)
        finishBatch()
        return result
    }

    // MARK: - State changes

    /// A task's place in the waiting queue by add time (nil for a URL the manager does not
    /// know); the scheduler puts a task moved by hand where it was moved.
    func waitingEntry(_ url: String) -> WaitingQueue.Entry? {
        tasks[url].map { WaitingQueue.Entry(addTime: $0.addTime, url: url) }
    }

    /// Tells the scheduler the states of the tasks loaded since its last use. A task changed in
    /// between is taken in its state now, and its change then tracked again, which changes nothing.
    private func scheduleLoadedTasks() {
        guard !loadedUnscheduled.isEmpty else { return }
        let urls = loadedUnscheduled
        loadedUnscheduled = []
        schedulerState.reserveCapacity(urls.count)
        for url in urls {
            if let task = tasks[url], task.state.isActive && task.deletedAt == nil {
                schedulerState.track(url, task.state) { WaitingQueue.Entry(addTime: task.addTime, url: url) }
            }
        }
    }

    func trackState(_ url: String, _ state: TaskState) {
        scheduler.track(url, state) { waitingEntry(url) }
    }

    func setState(_ url: String, _ state: TaskState, reason: FailReason? = nil) {
        guard tasks[url] != nil else { return }
        tasks[url]!.state = state
        tasks[url]!.failReason = state == .failed ? reason : nil
        trackState(url, state)
        live.retrying[url] = nil
        if state != .downloading { live.forget(url) }
        markDirty(url)
        emit(.taskChanged(url))
    }

    func isInTrash(_ url: String) -> Bool { tasks[url]?.deletedAt != nil }

    /// Pauses downloading or waiting tasks; returns those that changed. A download whose bytes
    /// are all in is finishing (made durable and renamed): it is not paused, nor stopped, and
    /// ends finished in a moment; a restart after such a pause would pull its file from under it.
    @discardableResult
    public func pauseTasks(_ urls: [String]) -> [String] {
        let changed = move(urls, .pause)
        finishBatch()
        return changed
    }

    /// Resumes paused, stopped or failed tasks; one in the trash comes back from it first
    /// (resuming is asking for it again). SDE's rule: only while under the limit; with
    /// `queueIfFull` the rest wait for a slot instead. Without an engine (no tdl downloads
    /// this session) they wait for the next one that does.
    @discardableResult
    public func resumeTasks(_ urls: [String], queueIfFull: Bool = false) -> [String] {
        var changed: [String] = []
        restoreToDeleteTasks(urls.filter { isInTrash($0) && tasks[$0]?.state != .finished })
        for url in urls {
            if engine != nil && hasFreeSlot && queueMayStart(url) {  // QUEUES: a closed queue's download waits
                changed += move([url], .start)
            } else if engine == nil || queueIfFull || isUnsaved || !queueMayStart(url) {  // QUEUES
                changed += move([url], .queue)
            }
        }
        finishBatch()
        return changed
    }

    /// Disconnects downloading tasks and cancels waiting ones; returns those that changed.
    @discardableResult
    public func stopTasks(_ urls: [String]) -> [String] {
        let changed = move(urls, .stop)
        finishBatch()
        return changed
    }

    /// Deletes what was downloaded and starts again from zero.
    @discardableResult
    public func restartTasks(_ urls: [String]) -> [String] {
        // SDE restarts finished or stopped tasks (paused and failed ones too); an active
        // transfer would race the file deletion.
        let changed = move(urls, .restart)
        finishBatch()
        return changed
    }

    /// Deletes the files of tasks but keeps their records; returns those whose files went.
    @discardableResult
    public func deleteFilesOfTasks(_ urls: [String]) -> [String] {
        // SDE counts a pending task too: a stopped transfer changed in any case.
        let withFiles = Set(filesToDelete(of: urls.filter { tasks[$0] != nil }, keepFinished: false).map(\.url))
        let changed = move(urls.filter { withFiles.contains($0) || tasks[$0]?.state.isActive == true }, .deleteFiles)
        finishBatch()
        return changed
    }

    func resetProgress(_ url: String) {
        tasks[url]!.segments = []
        tasks[url]!.received = 0
        tasks[url]!.completedPath = nil
        tasks[url]!.etag = nil
        tasks[url]!.lastModified = nil
        tasks[url]!.retries = 0
        tasks[url]!.note = nil
        saves.resetProgress(url)
    }

    // MARK: - All tasks

    public func resumeAllTasks(underLimit: Bool = true) {
        if !underLimit { runLimits.maxDownloadCount = nil; settings.maxDownloadCount = 0; markSettingsDirty() }
        move(listedTasksByAddTime().map(\.url), .queue)
        finishBatch()
    }

    public func pauseAllTasks() { pauseTasks(Array(scheduler.downloading.union(scheduler.waiting))) }

    public func stopAllTasks() {
        stopTasks(Array(scheduler.downloading.union(scheduler.waiting)) + tasks.values.filter { $0.state == .paused && $0.deletedAt == nil }.map(\.url))
    }

    func listedTasksByAddTime() -> [DownloadTask] {
        tasks.values.filter { $0.deletedAt == nil }.sorted { ($0.addTime, $0.url) < ($1.addTime, $1.url) }
    }

    // MARK: - Scheduler

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
        // QUEUES: a queue outside its hours or at its most at once passes its turn.
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
        if loadedUnscheduled.contains(where: { tasks[$0].map { $0.state.isActive && $0.deletedAt == nil } ?? false }) { return true }
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
        live.sample(at: t, of: scheduler.downloading, live: { engine?.liveProgress() },
                    received: { tasks[$0]?.received ?? 0 }, size: { tasks[$0]?.size })
        // Changed tasks (ended downloads too) and durable progress within a tenth of a second:
        // a checkpoint's offsets arrive after its fdatasync, twice a second per download, and
        // what a crash loses is what they do not yet say.
        let wasUnsaved = isUnsaved
        if saves.isDue(at: now, retrying: wasUnsaved) { flush() }
        if wasUnsaved && !isUnsaved { finishBatch() }  // the downloads held still start again
        applyQueueClockIfDue(now)  // QUEUES: windows that open or close, rate shares
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
            guard let size = tasks[url]?.size else { return nil }
            remaining += max(0, size - (activity[url]?.received ?? tasks[url]!.received))
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

extension DownloadManager {
    /// Caps the total download rate (nil: none); takes effect on running transfers at once.
    public func setGlobalRateLimit(_ bytesPerSecond: Int64?) {
        settings.globalRateLimit = bytesPerSecond
        runLimits.globalRateLimit = nil  // the session's cap, set now, is the one in force
        markSettingsDirty()
        engine?.setGlobalRateLimit(bytesPerSecond)
    }

    /// Caps each task's own download rate (nil or 0: none) under the global cap; saved with the
    /// task and applied to a running transfer at once.
    public func setRateLimit(_ bytesPerSecond: Int64?, forTasks urls: [String]) {
        let limit = bytesPerSecond.flatMap { $0 > 0 ? $0 : nil }
        for url in urls where tasks[url] != nil && tasks[url]!.options.rateLimit != limit {
            tasks[url]!.options.rateLimit = limit
            markDirty(url)
            engine?.setRateLimit(url: url, limit)
        }
    }
}

extension DownloadManager {
    /// The folder new downloads go to from now on (a session setting).
    public func setDownloadDirectory(_ path: String) {
        guard settings.downloadDirectory != path else { return }
        settings.downloadDirectory = path
        markSettingsDirty()
    }

    /// Nil when downloads may be saved in `folder`; else why not.
    public func folderProblem(_ folder: String) -> String? { reservedFolder?.problem(with: folder) }

    /// Where a new download goes when the call names no folder.
    public var downloadDirectory: String { settings.downloadDirectory ?? defaultDirectory }
}

extension DownloadManager {
    /// Connections per file for downloads that start from now on (1…32).
    public func setConnectionsPerDownload(_ count: Int) {
        let clamped = min(DownloadOptions.maxConnections, max(1, count))
        runLimits.connectionsPerDownload = nil
        guard settings.connectionsPerDownload != clamped else { return }
        settings.connectionsPerDownload = clamped
        markSettingsDirty()
    }
}

extension DownloadManager {
    /// Changes settings that need no other action (retries, hooks, resume-on-launch…); saved with the session.
    public func updateSettings(_ change: (inout SessionSettings) -> Void) {
        change(&settings)
        markSettingsDirty()
    }
}
