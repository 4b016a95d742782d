import Foundation

/// What the manager keeps for queues and the rate schedule between turns of the loop: the
/// run's own definitions (a config file's, never saved), the calendar their hours are read in,
/// and what was last given to the engine.
struct QueueClock {
    /// Definitions of this run over the session's (same name: this run's holds).
    var runQueues = QueueList()
    /// This run's rate schedule in place of the session's, when set.
    var runRateSchedule: RateSchedule?
    /// Made at its first use (nil until then): the current calendar costs about 0.5 ms of
    /// ICU the first time, which a run without queues or a rate schedule never needs.
    var calendar: Calendar?
    /// When the queues' hours were last looked at, and when they next change.
    var lastApplied: Date?
    var nextChange: Date?
    /// The moment a call of `applyQueueClock(now:)` looks at (else the manager's clock).
    var moment: Date?
    /// The cap the rate schedule gave the engine (nil: none in force).
    var scheduledCap: Int64??
    /// The per-download caps queues' shares gave the engine, by URL.
    var shares: [String: Int64] = [:]
    /// Folders by kind of file, for this run (a config file's); nil: none.
    var categories: Categories?
    /// Request options every new download of this run takes where its own leave them unset
    /// (a config file's user-agent, headers…), whoever adds it: a command, the screen, a call.
    var requestDefaults = DownloadOptions()
}

/// Queues (`QueueDefinition`) and the rate schedule as the manager applies them: a queue
/// outside its hours starts nothing and sends its running downloads back to waiting (their
/// bytes kept, as a lowered limit does); a queue's rate cap is shared equally by its running
/// downloads; the schedule's cap replaces the usual total cap while one of its entries is open.
extension DownloadManager {
    /// The queues in force: the session's, with this run's over them.
    public var queues: QueueList { settings.queues.overlaid(by: queueClock.runQueues) }

    /// The rate schedule in force: this run's, else the session's.
    public var rateSchedule: RateSchedule { queueClock.runRateSchedule ?? settings.rateSchedule }

    /// The calendar queue hours are read in (local time; tests give a time zone).
    public var queueCalendar: Calendar {
        get {
            if let calendar = queueClock.calendar { return calendar }
            let calendar = Calendar.current
            queueClock.calendar = calendar
            return calendar
        }
        set { queueClock.calendar = newValue }
    }

    /// Folders by kind of file for downloads added with no folder (this run's; nil: none).
    public var categories: Categories? {
        get { queueClock.categories }
        set { queueClock.categories = newValue }
    }

    /// Request options for new downloads where theirs are unset (this run's: a config file's).
    public var requestDefaults: DownloadOptions {
        get { queueClock.requestDefaults }
        set { queueClock.requestDefaults = newValue }
    }

    /// `options` with this run's request defaults where they leave a field unset; headers of
    /// its own replace the defaults' (as the command line's replace a config file's).
    func withRequestDefaults(_ options: DownloadOptions) -> DownloadOptions {
        guard !requestDefaults.isEmpty else { return options }
        var defaults = requestDefaults
        if options.headers != nil { defaults.headers = nil }
        return options.filling(from: defaults)
    }

    /// The folder of a download added with no folder: its category's, else the session's.
    func folder(forNewFile name: String) -> String {
        categories?.directory(forFileName: name) ?? downloadDirectory
    }

    /// Adds or replaces a queue of the session (saved), and applies it at once.
    public func setQueue(_ definition: QueueDefinition) {
        settings.queues.set(definition)
        markSettingsDirty()
        applyQueueClock()
    }

    /// Removes a queue of the session; its downloads run in the default queue. False when it
    /// had none of that name.
    @discardableResult
    public func removeQueue(_ name: String) -> Bool {
        guard settings.queues.remove(name) else { return false }
        markSettingsDirty()
        applyQueueClock()
        return true
    }

    /// Sets the session's rate schedule (saved).
    public func setRateSchedule(_ schedule: RateSchedule) {
        settings.rateSchedule = schedule
        markSettingsDirty()
        applyQueueClock()
    }

    /// Queues and a schedule for this run alone (a config file's), over the session's.
    public func useRunQueues(_ queues: QueueList, rateSchedule: RateSchedule?) {
        queueClock.runQueues = queues
        queueClock.runRateSchedule = rateSchedule
        applyQueueClock()
    }

    /// Why a download may not be added to `queue`: no queue of that name is defined (a typo
    /// would otherwise run at once, in the default queue's hours). `default` is always known.
    func unknownQueue(_ queue: String?) -> String? {
        guard let queue, queue != QueueDefinition.defaultName else { return nil }
        let known = queues
        guard known[queue] == nil else { return nil }
        let names = [QueueDefinition.defaultName] + known.names.filter { $0 != QueueDefinition.defaultName }
        return "no queue named \(queue) (queues: \(names.joined(separator: ", ")))"
    }

    /// Puts downloads in a queue (nil: the default one); saved with each. A running download
    /// moved into a queue that may not run it now goes back to waiting; a list sorted by
    /// queue moves it to its new queue's section.
    public func setQueue(_ queue: String?, forTasks urls: [String]) {
        var moved = false
        for url in urls where tasks[url].map({ $0.options.queue != queue }) == true {
            tasks[url]?.options.queue = queue
            markDirty(url)
            emit(.taskChanged(url))
            moved = true
        }
        if moved && list.arrangement.sortKey == .queue {
            resort()
            emit(.listChanged)
        }
        applyQueueClock()
    }

    /// The queue sort's sections in order: `default`, then every other queue a listed download
    /// names, by name. Looks at every task: the queue sort is chosen, and a list by queue is
    /// seldom a million downloads long.
    func queueSectionNames() -> [String] {
        var names = Set<String>()
        for task in tasks.values where task.deletedAt == nil {
            if let queue = task.options.queue { names.insert(queue) }
        }
        names.remove(QueueDefinition.defaultName)
        return [QueueDefinition.defaultName] + names.sorted()
    }

    /// Whether a download's queue may start it now (its hours open, under its most at once).
    public func queueMayStart(_ url: String) -> Bool {
        let queues = self.queues
        guard !queues.isEmpty else { return true }
        var gate = queueGate(queues)
        return gate.mayStart(queue: tasks[url]?.options.queue)
    }

    /// Whether a queue's hours are open now.
    public func isQueueOpen(_ name: String) -> Bool {
        queues.definition(for: name)?.hours.isOpen(at: queueMoment, calendar: queueCalendar) ?? true
    }

    /// When a queue next opens or closes, or the rate schedule next changes (nil: never).
    public func nextQueueChange(after date: Date? = nil) -> Date? {
        let date = date ?? queueMoment
        guard !queues.isEmpty || !rateSchedule.isEmpty else { return nil }
        return [queues.nextChange(after: date, calendar: queueCalendar),
                rateSchedule.nextChange(after: date, calendar: queueCalendar)].compactMap { $0 }.min()
    }

    /// The total cap in force now: the schedule's while one of its entries is open.
    public var rateLimitInForce: Int64? {
        scheduledCap(at: queueMoment) ?? globalRateLimit
    }

    /// The rate schedule's cap at `date` (as `RateSchedule.cap`: nil when none of its entries
    /// is open then).
    private func scheduledCap(at date: Date) -> Int64?? {
        rateSchedule.isEmpty ? nil : rateSchedule.cap(at: date, calendar: queueCalendar)
    }

    var queueMoment: Date { queueClock.moment ?? clock() }

    /// The gate for one pass of the scheduler at the moment in force.
    func queueGate(_ queues: QueueList) -> QueueGate {
        let running = scheduler.downloading.subtracting(scheduler.finishing).map { tasks[$0]?.options.queue }
        return QueueGate(queues: queues, runningQueues: running, now: queueMoment, calendar: queueCalendar)
    }

    /// Applies the queues and the schedule at `now` (the manager's clock when nil): downloads
    /// of a queue whose hours closed, or over its most at once, go back to waiting (bytes kept,
    /// the newest first); what may start starts; the schedule's cap and the queues' shares go
    /// to the engine. Returns when the next queue opens or closes, for the loop's timer.
    @discardableResult
    public func applyQueueClock(now: Date? = nil) -> Date? {
        let now = now ?? clock()
        queueClock.moment = now
        defer { queueClock.moment = nil }
        queueClock.lastApplied = now
        queueClock.nextChange = nextQueueChange(after: now)
        guard engine != nil else { return queueClock.nextChange }
        let queues = self.queues
        if !queues.isEmpty {
            let running = scheduler.downloading.subtracting(scheduler.finishing).map {
                (url: $0, queue: tasks[$0]?.options.queue, addTime: tasks[$0]?.addTime ?? .distantPast)
            }
            move(QueueGate.mustWait(running: running, queues: queues, now: now, calendar: queueCalendar), .limitLowered)
        }
        applyScheduledRate(at: now)
        finishBatch()
        applyQueueShares(force: true)
        return queueClock.nextChange
    }

    /// From the loop's turn (`tick`): applies the clock when a queue or the schedule changes,
    /// and about once a second while queues share rates (downloads come and go).
    func applyQueueClockIfDue(_ now: Date) {
        guard engine != nil else { return }
        let queues = self.queues
        guard !queues.isEmpty || !rateSchedule.isEmpty || queueClock.scheduledCap != nil else { return }
        if let last = queueClock.lastApplied, now >= last, now < (queueClock.nextChange ?? .distantFuture) {
            // Between changes only shares need a look, once a second.
            let sharing = queues.definitions.contains { $0.rateLimit != nil }
            guard sharing && now.timeIntervalSince(last) >= 1 else { return }
        }
        applyQueueClock(now: now)
    }

    private func applyScheduledRate(at now: Date) {
        if let cap = scheduledCap(at: now) {
            // Given again each time: a cap set meanwhile (a key, a call) yields to the schedule.
            engine?.setGlobalRateLimit(cap)
            queueClock.scheduledCap = cap
        } else if queueClock.scheduledCap != nil {
            engine?.setGlobalRateLimit(globalRateLimit)
            queueClock.scheduledCap = nil
        }
    }

    /// Gives each running download of a queue with a rate cap an equal share of it (or its
    /// own cap when lower); a download no longer sharing gets its own cap back. `force` gives
    /// every share again (a download stopped and started since took its own from its job).
    func applyQueueShares(force: Bool = false) {
        let queues = self.queues
        guard !queues.isEmpty || !queueClock.shares.isEmpty else { return }
        var members: [String: [String]] = [:]
        for url in scheduler.downloading {
            guard let definition = queues.definition(for: tasks[url]?.options.queue), definition.rateLimit != nil else { continue }
            members[definition.name, default: []].append(url)
        }
        var shares: [String: Int64] = [:]
        for (name, urls) in members {
            let share = max(1, queues[name]!.rateLimit! / Int64(urls.count))
            for url in urls { shares[url] = min(share, tasks[url]?.options.rateLimit ?? share) }
        }
        for (url, share) in shares where force || queueClock.shares[url] != share {
            engine?.setRateLimit(url: url, share)
        }
        for url in queueClock.shares.keys where shares[url] == nil && scheduler.downloading.contains(url) {
            engine?.setRateLimit(url: url, tasks[url]?.options.rateLimit)
        }
        queueClock.shares = shares
    }
}
