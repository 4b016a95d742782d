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
    /// Injected for tests: the time used for add times, sectioning and speed.
    public var clock: () -> Date = Date.init
    /// Every change is reported here, on the loop thread.
    public var onEvent: ((ManagerEvent) -> Void)?

    public let engine: TransferEngine?
    public let store: SessionStore?

    var tasks: [String: DownloadTask] = [:]
    var sections: [[String]] = [[]]
    var titles: [String] = [""]
    var indexCache: [String: ListIndex]?
    public internal(set) var toDeleteList: [String] = []
    /// Tasks paused because the limit went down, oldest first: raising the limit resumes exactly these.
    var pausedByLimit: [String] = []
    var waitingSet: Set<String> = []
    /// The waiting set in start order; see `WaitingQueue`.
    var waitingQueue = WaitingQueue()
    var downloadingSet: Set<String> = []
    /// Downloading tasks whose bytes are all in, waiting to be made durable: they keep their
    /// state but not their slot (see `TransferEvent.finishing`), up to `finishingOutsideSlots`.
    var finishingSet: Set<String> = []
    /// True inside `schedule`, which an engine event from `start` may call again.
    var scheduling = false
    static let finishingOutsideSlots = 64
    var meters: [String: SpeedMeter] = [:]
    var overallMeter = SpeedMeter()
    var overallBase: Int64 = 0
    public internal(set) var activity: [String: TaskActivity] = [:]
    /// Downloading tasks that wait to try a failed connection again.
    public internal(set) var retrying: [String: RetryStatus] = [:]
    var pending = SessionChanges()
    var dirtyTasks: Set<String> = []
    var lastFlush: Date = .distantPast
    /// When `tick` last sampled the speeds (seconds since the reference date).
    var lastSpeedSample = -Double.infinity
    /// A download of unknown size finished this turn: its state is written at the end of the
    /// turn. After a crash, a launch recognises a file renamed into place only by its recorded
    /// size (`reconcileFinished`), so without a size the file would be downloaded again. Other
    /// ended downloads are written within a tenth of a second like any change: a commit per
    /// turn was a sixth of the event loop's time for 500 small files.
    var unsizedFinishSinceFlush = false
    var wasBusy = false
    /// See `today()`.
    var currentDay: DateInterval?

    public init(identifier: String = "default", defaultDirectory: String, engine: TransferEngine? = nil, store: SessionStore? = nil) {
        self.identifier = identifier
        self.defaultDirectory = defaultDirectory
        self.engine = engine
        self.store = store
        self.settings = SessionSettings()
        engine?.onEvent = { [weak self] event in self?.handle(event) }
    }

    // MARK: - Loading and saving

    /// Reads the session, reconciles what a crash left behind, and restarts interrupted downloads.
    /// Returns how many downloads were interrupted (SDE's restore-from-force-quit).
    /// With `restoring` false the states are shown as stored (for `tdl list` beside a running tdl).
    /// `resumeInterrupted` changes the session's setting (resume, or wait paused) from now on.
    @discardableResult
    public func load(restoring: Bool = true, resumeInterrupted: Bool? = nil) throws -> Int {
        guard let store else { return 0 }
        var snapshot = try store.load()
        settings = snapshot.settings
        if let resumeInterrupted, resumeInterrupted != settings.resumeInterruptedOnLaunch {
            settings.resumeInterruptedOnLaunch = resumeInterrupted
            markSettingsDirty()
        }
        var interrupted = 0
        // The store's table becomes the manager's, changed in place: 100,000 tasks are
        // neither copied nor inserted again, and only the active ones are visited.
        var loaded = snapshot.tasks
        snapshot.tasks = [:]
        // Tasks added before the load (none at launch) stay.
        for (url, task) in tasks where loaded[url] == nil { loaded[url] = task }
        tasks = loaded
        loaded = [:]
        for url in snapshot.activeURLs {
            guard let index = tasks.index(forKey: url) else { continue }
            if restoring {
                if reconcileFinished(&tasks.values[index]) {
                    dirtyTasks.insert(url)
                } else {
                    if tasks.values[index].state == .downloading { interrupted += 1 }
                    let restored: TaskState = settings.resumeInterruptedOnLaunch ? .waiting : .paused
                    // Saved as it is now, or a quit before the next change would keep "downloading".
                    if tasks.values[index].state != restored { dirtyTasks.insert(url) }
                    tasks.values[index].state = restored
                }
            }
            let state = tasks.values[index].state
            if state.isActive { trackState(url, state) }
        }
        toDeleteList = snapshot.trashed.sorted { ($0.deletedAt, $0.url) > ($1.deletedAt, $1.url) }.map(\.url)
        if settings.sortType == .manual, let layout = snapshot.manualLayout {
            applyManualLayout(layout)
        } else {
            rebuildList()
        }
        if interrupted > 0 { onEvent?(.restoredInterrupted(interrupted)) }
        engine?.setGlobalRateLimit(settings.globalRateLimit)
        schedule()
        return interrupted
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
        task.state = .finished
        task.completedPath = task.filePath
        return true
    }

    /// Writes what changed since the last call in one transaction.
    public func flush() {
        guard let store else { return }
        unsizedFinishSinceFlush = false
        for url in dirtyTasks {
            if let task = tasks[url] {
                pending.upserted.append(task)
                pending.progress[url] = nil
            }
        }
        dirtyTasks.removeAll()
        if settings.sortType == .manual, pending.manualLayout == nil, layoutDirty {
            pending.manualLayout = ManualLayout(sections: sections, titles: titles)
        }
        layoutDirty = false
        guard !pending.isEmpty else { return }
        let changes = pending
        pending = SessionChanges()
        do {
            try store.commit(changes)
            lastError = nil
        } catch {
            // Keep the changes for the next try: nothing the user did is dropped.
            pending = changes
            lastError = "could not save the session: \(error)"
        }
        lastFlush = clock()
    }

    var layoutDirty = false
    /// Why the last save failed (nil once one succeeds): the changes wait for the next try.
    public internal(set) var lastError: String?

    func markDirty(_ url: String) { dirtyTasks.insert(url) }

    func markSettingsDirty() { pending.settings = settings }

    // MARK: - Data source

    public var downloadList: [[String]] { sections }
    public var sectionTitles: [String] { titles }
    public var sectionCount: Int { sections.count }
    public var sortType: SortType { settings.sortType }
    public var sortOrder: SortOrder { settings.sortOrder }
    public var isTrashOpened: Bool {
        get { settings.isTrashOpened }
        set { settings.isTrashOpened = newValue; markSettingsDirty() }
    }
    public var hiddenFileExtension: Bool {
        get { settings.hiddenFileExtension }
        set { settings.hiddenFileExtension = newValue; markSettingsDirty(); if sortType != .manual { rebuildList() } }
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
        sections.indices.contains(section) ? sections[section].count : -1
    }

    public func titleForHeaderInSection(_ section: Int) -> String? {
        guard titles.indices.contains(section), !titles[section].isEmpty else { return nil }
        return titles[section]
    }

    public func task(_ url: String) -> DownloadTask? { tasks[url] }

    public func url(at index: ListIndex) -> String? {
        guard sections.indices.contains(index.section), sections[index.section].indices.contains(index.row) else { return nil }
        return sections[index.section][index.row]
    }

    /// O(1) amortized: the map is rebuilt once after each change of the list.
    public func indexPath(of url: String) -> ListIndex? {
        if indexCache == nil {
            var map: [String: ListIndex] = [:]
            map.reserveCapacity(tasks.count)
            for (s, section) in sections.enumerated() {
                for (r, u) in section.enumerated() { map[u] = ListIndex(section: s, row: r) }
            }
            indexCache = map
        }
        return indexCache![url]
    }

    public func displayName(of url: String) -> String? {
        tasks[url]?.displayName(hidingExtension: settings.hiddenFileExtension)
    }

    public func state(of url: String) -> TaskState? { tasks[url]?.state }

    public func detailText(of url: String) -> String? { tasks[url]?.detailText }

    public func progress(of url: String) -> Double {
        guard let task = tasks[url] else { return 0 }
        if let live = activity[url], let expected = live.expected, expected > 0 {
            return min(1, Double(live.received) / Double(expected))
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

    public var counts: [TaskState: Int] {
        let trash = Set(toDeleteList)
        var result: [TaskState: Int] = [:]
        for task in tasks.values where !trash.contains(task.url) { result[task.state, default: 0] += 1 }
        return result
    }

    // MARK: - Adding

    /// Adds URLs (repeated and invalid ones are filtered and reported). New tasks land where
    /// the current sort puts them; in manual mode at `manualIndex` (default: top of section 0).
    @discardableResult
    public func add(_ urls: [String], directory: String? = nil, fileName: String? = nil,
                    checksum: Checksum? = nil, at manualIndex: ListIndex? = nil) -> AddResult {
        var result = AddResult()
        var seen = Set<String>()
        let now = clock()
        let folder = directory ?? settings.downloadDirectory ?? defaultDirectory
        var newTasks: [DownloadTask] = []
        for raw in urls {
            let url = String(raw.trimmingWhitespace())
            if let problem = URLCheck.problem(with: url) {
                result.rejected.append(.init(url: url, reason: problem))
                continue
            }
            if tasks[url] != nil || seen.contains(url) {
                result.existing.append(url)
                let reason = seen.contains(url) ? "repeated in this batch"
                    : (tasks[url]?.deletedAt != nil ? "already in the trash" : "already in the list")
                result.duplicates.append(.init(url: url, reason: reason))
                continue
            }
            seen.insert(url)
            var task = DownloadTask(url: url, fileName: fileName ?? URLCheck.suggestedFileName(for: url),
                                    // A microsecond apart: the batch keeps its order in add-time order.
                                    directory: folder, addTime: now.addingTimeInterval(Double(newTasks.count) * 1e-6),
                                    state: downloadNewFileImmediately ? .waiting : .stopped)
            task.userChoseName = fileName != nil
            task.checksum = checksum
            newTasks.append(task)
            result.added.append(url)
        }
        guard !newTasks.isEmpty else { return result }
        for task in newTasks {
            tasks[task.url] = task
            trackState(task.url, task.state)
            markDirty(task.url)
        }
        if sortType == .manual {
            insertManual(newTasks.map(\.url), at: manualIndex ?? ListIndex(section: 0, row: 0))
        } else {
            insertSorted(newTasks)
        }
        onEvent?(.listChanged)
        finishBatch()
        return result
    }

    // MARK: - State changes

    /// A task's place in the waiting queue (nil for a URL the manager does not know).
    func waitingEntry(_ url: String) -> WaitingQueue.Entry? {
        tasks[url].map { WaitingQueue.Entry(addTime: $0.addTime, url: url) }
    }

    func trackState(_ url: String, _ state: TaskState) {
        if state == .waiting {
            if waitingSet.insert(url).inserted, let entry = waitingEntry(url) { waitingQueue.insert(entry) }
        } else {
            waitingSet.remove(url)
        }
        if state == .downloading {
            downloadingSet.insert(url)
        } else {
            downloadingSet.remove(url)
            finishingSet.remove(url)
        }
    }

    func setState(_ url: String, _ state: TaskState, reason: FailReason? = nil) {
        guard tasks[url] != nil else { return }
        tasks[url]!.state = state
        tasks[url]!.failReason = state == .failed ? reason : nil
        trackState(url, state)
        retrying[url] = nil
        if state != .downloading {
            meters[url] = nil
            activity[url] = nil
        }
        markDirty(url)
        onEvent?(.taskChanged(url))
    }

    func isInTrash(_ url: String) -> Bool { tasks[url]?.deletedAt != nil }

    /// Pauses downloading or waiting tasks; returns those that changed.
    @discardableResult
    public func pauseTasks(_ urls: [String]) -> [String] {
        var changed: [String] = []
        for url in urls {
            guard let task = tasks[url], task.state.isActive else { continue }
            if task.state == .downloading { engine?.stop(url: url) }
            pausedByLimit.removeAll { $0 == url }
            setState(url, .paused)
            changed.append(url)
        }
        finishBatch()
        return changed
    }

    /// Resumes paused, stopped or failed tasks in the list. SDE's rule: only while under the
    /// limit; with `queueIfFull` the rest wait for a slot instead.
    @discardableResult
    public func resumeTasks(_ urls: [String], queueIfFull: Bool = false) -> [String] {
        var changed: [String] = []
        for url in urls {
            guard let task = tasks[url], !isInTrash(url), task.state != .finished, task.state != .downloading else { continue }
            if task.state == .waiting {
                if hasFreeSlot { start(url); changed.append(url) }
                continue
            }
            if hasFreeSlot {
                start(url)
                changed.append(url)
            } else if queueIfFull {
                setState(url, .waiting)
                changed.append(url)
            }
        }
        finishBatch()
        return changed
    }

    /// Disconnects downloading tasks and cancels waiting ones; returns those that changed.
    @discardableResult
    public func stopTasks(_ urls: [String]) -> [String] {
        var changed: [String] = []
        for url in urls {
            guard let task = tasks[url], task.state == .downloading || task.state == .waiting || task.state == .paused else { continue }
            if task.state == .downloading { engine?.stop(url: url) }
            pausedByLimit.removeAll { $0 == url }
            setState(url, .stopped)
            changed.append(url)
        }
        finishBatch()
        return changed
    }

    /// Deletes what was downloaded and starts again from zero.
    @discardableResult
    public func restartTasks(_ urls: [String]) -> [String] {
        var changed: [String] = []
        for url in urls {
            // SDE restarts finished or stopped tasks (paused and failed ones are disconnected too);
            // an active transfer would race the file deletion.
            guard let task = tasks[url], !isInTrash(url), !task.state.isActive else { continue }
            removeFiles(of: url, keepFinished: false)
            resetProgress(url)
            setState(url, .waiting)
            changed.append(url)
        }
        finishBatch()
        return changed
    }

    /// Deletes the files of tasks but keeps their records; returns those whose files went.
    @discardableResult
    public func deleteFilesOfTasks(_ urls: [String]) -> [String] {
        var changed: [String] = []
        for url in urls {
            guard let task = tasks[url] else { continue }
            if task.state == .downloading { engine?.stop(url: url) }
            let hadFile = removeFiles(of: url, keepFinished: false)
            // SDE counts a pending task too; a stopped transfer changed in any case.
            guard hadFile || task.state.isActive else { continue }
            resetProgress(url)
            setState(url, .stopped)
            changed.append(url)
        }
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
        pending.progress[url] = nil
    }

    /// Removes the task's part file and, unless kept, its finished file. True if anything was removed.
    @discardableResult
    func removeFiles(of url: String, keepFinished: Bool) -> Bool {
        guard let task = tasks[url] else { return false }
        let fm = FileManager.default
        var removed = false
        if fm.fileExists(atPath: task.partPath) {
            removed = (try? fm.removeItem(atPath: task.partPath)) != nil || removed
        }
        if task.state == .finished, !keepFinished, fm.fileExists(atPath: task.filePath) {
            removed = (try? fm.removeItem(atPath: task.filePath)) != nil || removed
        }
        return removed
    }

    // MARK: - All tasks

    public func resumeAllTasks(underLimit: Bool = true) {
        if !underLimit { settings.maxDownloadCount = 0; markSettingsDirty() }
        let candidates = listedTasksByAddTime().filter { $0.state == .paused || $0.state == .stopped || $0.state == .failed }
        for task in candidates { setState(task.url, .waiting) }
        pausedByLimit.removeAll()
        finishBatch()
    }

    public func pauseAllTasks() { pauseTasks(Array(downloadingSet.union(waitingSet))) }

    public func stopAllTasks() {
        stopTasks(Array(downloadingSet.union(waitingSet)) + tasks.values.filter { $0.state == .paused && $0.deletedAt == nil }.map(\.url))
    }

    func listedTasksByAddTime() -> [DownloadTask] {
        tasks.values.filter { $0.deletedAt == nil }.sorted { ($0.addTime, $0.url) < ($1.addTime, $1.url) }
    }

    // MARK: - Scheduler

    /// 0 or negative means no limit. Lowering pauses the excess (newest first); raising resumes
    /// exactly the tasks the lowering paused.
    public var maxDownloadCount: Int {
        get { settings.maxDownloadCount }
        set {
            settings.maxDownloadCount = newValue
            markSettingsDirty()
            if newValue > 0 && downloadsInSlots > newValue {
                let excess = downloadingSet.subtracting(finishingSet).compactMap { tasks[$0] }
                    .sorted { ($0.addTime, $0.url) > ($1.addTime, $1.url) }
                    .prefix(downloadsInSlots - newValue)
                for task in excess.reversed() {
                    engine?.stop(url: task.url)
                    setState(task.url, .paused)
                    pausedByLimit.append(task.url)
                }
            } else {
                pausedByLimit.sort { (tasks[$0]?.addTime ?? .distantPast, $0) < (tasks[$1]?.addTime ?? .distantPast, $1) }
                while hasFreeSlot, !pausedByLimit.isEmpty {
                    let url = pausedByLimit.removeFirst()
                    if tasks[url]?.state == .paused { start(url) }
                }
            }
            finishBatch()
        }
    }

    var hasFreeSlot: Bool { settings.maxDownloadCount <= 0 || downloadsInSlots < settings.maxDownloadCount }

    /// Downloading tasks that take a slot: finishing ones do not, as long as there are not
    /// too many of them (a disk slower than the network must hold the next downloads back).
    var downloadsInSlots: Int { downloadingSet.count - min(finishingSet.count, Self.finishingOutsideSlots) }

    /// Starts waiting tasks in add-time order while slots are free.
    func schedule() {
        // Without an engine (tdl add, tdl list) tasks wait for the next tdl that downloads.
        guard engine != nil, hasFreeSlot, !waitingSet.isEmpty else { return }
        // An engine may report an event from inside `start` (a file already complete begins
        // finishing, a missing folder fails) that schedules again: that call returns at once,
        // and this loop, which checks for a free slot before each start, goes on instead.
        // (Recursing once per task could exhaust the stack with thousands of failing tasks.)
        guard !scheduling else { return }
        scheduling = true
        defer { scheduling = false }
        if waitingQueue.count > 2 * waitingSet.count + 64 {  // mostly stale entries
            waitingQueue.rebuild(waitingSet.compactMap(waitingEntry))
        }
        while hasFreeSlot, let url = waitingQueue.takeOldest(1, isWaiting: { waitingSet.contains($0) },
                                                               canStart: { tasks[$0]?.deletedAt == nil }).first {
            start(url)
        }
    }

    func start(_ url: String) {
        guard let task = tasks[url] else { return }
        setState(url, .downloading)
        meters[url] = SpeedMeter()
        guard let engine else { return }
        engine.start(TransferJob(task: task, connections: settings.connectionsPerDownload, maxRetries: settings.maxRetries))
    }

    func finishBatch() {
        schedule()
        noteIfAllOver()
    }

    func noteIfAllOver() {
        let busy = !downloadingSet.isEmpty || !waitingSet.isEmpty
        if wasBusy && !busy { onEvent?(.allDownloadsOver) }
        wasBusy = busy
    }

    /// True while anything downloads or waits for a slot.
    public var isBusy: Bool { !downloadingSet.isEmpty || !waitingSet.isEmpty }

    // MARK: - Engine events

    func handle(_ event: TransferEvent) {
        switch event {
        case let .resolved(url, fileName, size, mimeType, etag, lastModified, finalURL):
            guard var task = tasks[url] else { return }
            // The type sort also reads the MIME type.
            let resort = placeDepends(nameChanged: task.fileName != fileName || task.mimeType != mimeType,
                                      sizeChanged: task.size != size)
            task.fileName = fileName
            task.size = size
            task.mimeType = mimeType
            task.etag = etag
            task.lastModified = lastModified
            task.finalURL = finalURL
            tasks[url] = task
            retrying[url] = nil
            markDirty(url)
            if resort && task.deletedAt == nil { reposition(url) }
            onEvent?(.taskChanged(url))
        case let .checkpoint(url, segments):
            guard tasks[url] != nil else { return }
            tasks[url]!.segments = segments
            tasks[url]!.received = segments.reduce(0) { $0 + $1.done }
            if dirtyTasks.contains(url) {
                // The whole row goes out anyway.
            } else {
                pending.progress[url] = segments
            }
        case let .note(url, text, retries):
            guard tasks[url] != nil else { return }
            tasks[url]!.note = text
            tasks[url]!.retries = retries
            markDirty(url)
            onEvent?(.taskChanged(url))
        case let .retrying(url, reason, attempt, limit):
            guard let task = tasks[url] else { return }
            tasks[url]!.note = "\(reason.message): retry \(attempt) of \(limit)"
            tasks[url]!.retries = attempt
            // Bytes now, not at the last tick: those in between must not count as the retry working.
            let received = engine?.liveProgress()[url] ?? task.received
            retrying[url] = RetryStatus(attempt: attempt, limit: limit, reason: reason, receivedAtRetry: received)
            markDirty(url)
            onEvent?(.taskChanged(url))
        case let .finishing(url, started):
            guard started, downloadingSet.contains(url) else {
                finishingSet.remove(url)
                return
            }
            finishingSet.insert(url)
            finishBatch()
        case let .finished(url, path, size):
            guard let before = tasks[url] else { return }
            tasks[url]!.completedPath = path
            tasks[url]!.fileName = (path as NSString).lastPathComponent
            tasks[url]!.size = size
            tasks[url]!.received = size
            tasks[url]!.segments = [Segment(start: 0, end: size, done: size)]
            setState(url, .finished)
            if before.deletedAt == nil,
               placeDepends(nameChanged: before.fileName != tasks[url]!.fileName, sizeChanged: before.size != size) {
                reposition(url)
            }
            if before.size == nil { unsizedFinishSinceFlush = true }
            onEvent?(.taskSucceeded(url: url, path: path))
            finishBatch()
        case let .failed(url, reason, segments):
            guard tasks[url] != nil else { return }
            tasks[url]!.segments = segments
            tasks[url]!.received = segments.reduce(0) { $0 + $1.done }
            setState(url, .failed, reason: reason)
            onEvent?(.taskFailed(url: url, reason: reason))
            finishBatch()
        }
    }

    // MARK: - The loop

    /// One turn of the event loop: transfers run until the timeout or until one of `fds` is
    /// readable; then activity and checkpoints are brought up to date.
    public func runOnce(timeoutMs: Int, watching fds: [Int32] = []) -> Set<Int32> {
        let ready = engine?.wait(timeoutMs: timeoutMs, watching: fds) ?? []
        tick()
        return ready
    }

    /// Samples speeds, and writes batched progress about once a second.
    public func tick() {
        let now = clock()
        let t = now.timeIntervalSinceReferenceDate
        // Ten samples a second are plenty for a speed over seconds. The loop turns hundreds of
        // times a second with many small files, and sampling on each turn looked up every
        // downloading URL in five tables each time.
        if t - lastSpeedSample >= 0.1, let live = engine?.liveProgress() {
            lastSpeedSample = t
            var total: Int64 = 0
            for url in downloadingSet {
                let received = live[url] ?? tasks[url]?.received ?? 0
                meters[url, default: SpeedMeter()].add(time: t, bytes: received)
                let meter = meters[url]!
                let expected = tasks[url]?.size
                activity[url] = TaskActivity(received: received, expected: expected, speed: meter.bytesPerSecond,
                                             eta: meter.eta(remaining: expected.map { $0 - received }))
                total += meter.bytesPerSecond
                if let retry = retrying[url], received > retry.receivedAtRetry { retrying[url] = nil }
            }
            overallSpeed = total
        }
        // Progress once a second; changed tasks (ended downloads too) within a tenth.
        let sinceFlush = now.timeIntervalSince(lastFlush)
        if sinceFlush >= 1 || unsizedFinishSinceFlush || (!dirtyTasks.isEmpty && sinceFlush >= 0.1) {
            flush()
        }
    }

    /// Sum of the current speeds of every downloading task.
    public internal(set) var overallSpeed: Int64 = 0

    /// Seconds until everything that downloads now is done, nil when unknown.
    public var overallETA: Double? {
        guard overallSpeed > 1 else { return nil }
        var remaining: Int64 = 0
        for url in downloadingSet {
            guard let size = tasks[url]?.size else { return nil }
            remaining += max(0, size - (activity[url]?.received ?? tasks[url]!.received))
        }
        return Double(remaining) / Double(overallSpeed)
    }

    /// Called before the program ends: transfers stop, the last durable offsets are saved.
    public func shutdown() {
        engine?.shutdown()
        flush()
    }
}

extension DownloadManager {
    /// Caps the total download rate (nil: none); takes effect on running transfers at once.
    public func setGlobalRateLimit(_ bytesPerSecond: Int64?) {
        settings.globalRateLimit = bytesPerSecond
        markSettingsDirty()
        engine?.setGlobalRateLimit(bytesPerSecond)
    }

    /// Caps each task's own download rate (nil or 0: none) under the global cap; saved with the
    /// task and applied to a running transfer at once.
    public func setRateLimit(_ bytesPerSecond: Int64?, forTasks urls: [String]) {
        let limit = bytesPerSecond.flatMap { $0 > 0 ? $0 : nil }
        for url in urls where tasks[url] != nil && tasks[url]!.rateLimit != limit {
            tasks[url]!.rateLimit = limit
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

    /// Where a new download goes when the call names no folder.
    public var downloadDirectory: String { settings.downloadDirectory ?? defaultDirectory }
}

extension DownloadManager {
    /// Connections per file for downloads that start from now on (1…16).
    public func setConnectionsPerDownload(_ count: Int) {
        let clamped = min(16, max(1, count))
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
