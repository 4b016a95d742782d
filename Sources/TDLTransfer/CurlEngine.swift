import CCurl
import Foundation
import TDLCore
#if canImport(Glibc)
import Glibc
#endif

/// The libcurl engine: every transfer on one multi handle, driven by the caller's event loop
/// through `wait(timeoutMs:watching:)`. Slow file-system work (fdatasync, the finish) runs on
/// one background worker that reports back through `curl_multi_wakeup` (`WorkerQueue`).
/// What the engine tells the manager is queued and delivered at the loop's next step, never
/// from inside libcurl (see `report`).
public final class CurlEngine: TransferEngine {
    public var onEvent: ((TransferEvent) -> Void)?
    public var isNameTaken: ((_ url: String, _ path: String) -> Bool)?
    public var isRecorded: ((_ url: String) -> Bool)?
    public let settings: EngineSettings

    /// Made at the first transfer or turn, not with the engine: a command that transfers
    /// nothing never sets libcurl (and OpenSSL) up.
    private var madeMulti: UnsafeMutableRawPointer?
    var multi: UnsafeMutableRawPointer { madeMulti ?? makeMulti() }
    let worker: WorkerQueue
    lazy var finisher = Finisher(engine: self)
    /// The active downloads. One that ends is dropped at once: work it queued on the worker
    /// holds the download (or its part file) until that work is done.
    var downloads: [String: FileDownload] = [:]
    /// Bytes handed to the worker and not yet written (see `FileDownload.writePending`).
    let queuedWriteBytes = ByteCounter()
    /// Gather buffers written by the worker, for the next connections to fill.
    let gatherBuffers = GatherBuffers()
    /// At this many queued bytes transfers pause until the worker has written half of them
    /// (see `CurlEngine+WriteBacklog`); a variable for tests.
    var writeBacklogLimit = 32 << 20
    /// Connections paused because the worker is behind with the writes.
    var pausedForWrites: [Connection] = []
    /// Truncations queued on the worker and not yet done. While there are any, every write
    /// goes through the worker too: one written by the loop could land before the truncation
    /// and be erased by it (truncations are rare: restarts from zero, failed checks).
    var truncationsQueued = 0
    var globalRateLimit: Int64?
    var rateLimits: [String: Int64] = [:]
    var lastCheckpoint: Double = 0
    var timers: [Double] = []
    let netrc = NetrcProbe()
    /// The download folders' free space, asked once per folder in a step (see `FreeSpace`).
    var freeSpace = FreeSpace()
    /// Reports for the manager not yet delivered, oldest first (see `report`).
    private var reports: [TransferEvent] = []
    /// Set while libcurl runs (and may call back into the connections): nothing is delivered.
    private var insideCurl = false
    /// Set while reports are delivered: the manager may call the engine, whose new reports
    /// wait their turn in the same delivery.
    private var delivering = false
    /// Connections paused on their first answer, settled together (see `settleIsDue`).
    private var awaitingSettling: [Connection] = []
    /// When the oldest of `awaitingSettling` paused.
    private var awaitingSince: Double = 0
    /// First answers wait for others this long at most, or until this many wait: the names
    /// settled together are committed together, and each commit of the session costs its
    /// journal pages and a transaction (500 small files made about 90 commits, one every
    /// 1.7 ms; a step rarely had more than 6 answers).
    static let settleDelay = 0.004
    static let settleBatch = 8

    private static let globalInit: Void = { curl_global_init(Int(CURL_GLOBAL_ALL)) }()
    static var globalInitDone: Void { globalInit }

    private static let processSetUp: Void = {
        // Every connection allocates curl's 512 KiB receive buffer and a 256 KiB gather buffer.
        // glibc maps chunks that large afresh and gives freed heap back to the kernel, so each
        // new connection paid page faults on both (about a tenth of the loop's time for 500
        // small files). Keeping them on the heap, and freed heap mapped (at most 64 MiB), lets
        // the next connection reuse pages already mapped.
        mallopt(M_MMAP_THRESHOLD, 4 << 20)
        mallopt(M_TRIM_THRESHOLD, 64 << 20)
        // A file-size limit (`ulimit -f`) must fail the download with "File too large", with its
        // partial kept, not kill tdl with SIGXFSZ. (Hooks get the default back when spawned.)
        signal(SIGXFSZ, SIG_IGN)
    }()

    public init(settings: EngineSettings = .fromEnvironment()) {
        _ = Self.processSetUp
        self.settings = settings
        wake = MultiWake()
        worker = WorkerQueue(wake: wake)
    }

    /// The first call into libcurl, with its global set-up.
    private func makeMulti() -> UnsafeMutableRawPointer {
        _ = Self.globalInit
        let handle = curl_multi_init()!
        tdl_multi_setopt_long(handle, CURLMOPT_MAX_TOTAL_CONNECTIONS, settings.maxTotalConnections)
        madeMulti = handle
        wake.attach(handle)
        return handle
    }

    deinit {
        wake.detach()
        if let madeMulti { curl_multi_cleanup(madeMulti) }
    }

    var now: Double { Date().timeIntervalSinceReferenceDate }

    /// Until when one `curl_multi_perform` takes body bytes. At loopback speed curl reads up
    /// to 100 buffers per connection in one call while the socket has data: hundreds of MiB,
    /// a quarter of a second and more in which keys and the screen waited. A connection that
    /// gets bytes past it pauses, and goes on at the start of the next turn.
    var performDeadline = Double.infinity
    static let turnBudget = 0.03
    /// Connections paused by `performDeadline`, resumed at the next turn.
    var pausedForTurn: [Connection] = []
    /// Set by `waker` from another thread: work waits for the loop (a JSON-RPC call), so the
    /// turn's transfers stop taking bytes at once instead of at `performDeadline`, up to 30 ms
    /// later. Cleared after the perform: the caller runs that work right after `wait`.
    private let wake: MultiWake
    /// Turns left before the file worker's thread is started (see `wait`).
    private var turnsBeforeWorker = 2
    /// The caller's descriptors, looked at during the turn's transfers: one that becomes ready
    /// (a key) ends the turn as a wake does.
    private var watch = TurnWatch()

    @inline(__always)
    func turnIsOver() -> Bool {
        guard performDeadline.isFinite else { return false }
        let t = now
        return t > performDeadline || wake.isRequested || watch.sawReady(at: t)
    }

    /// Lets the connections paused at the end of the last turn go on (those still running).
    private func resumeTurnPaused() {
        guard !pausedForTurn.isEmpty else { return }
        let paused = pausedForTurn
        pausedForTurn = []
        resume(paused, clearing: \.isPausedForTurn)
    }

    /// Clears the pause `flag` names on `paused` and lets go on those still running and not
    /// paused for another reason (the user's, the turn's, the worker's backlog).
    func resume(_ paused: [Connection], clearing flag: ReferenceWritableKeyPath<Connection, Bool>) {
        let live = Set(downloads.values.flatMap(\.connections).map(ObjectIdentifier.init))
        for connection in paused where connection[keyPath: flag] {
            connection[keyPath: flag] = false
            guard live.contains(ObjectIdentifier(connection)), !connection.isPaused,
                  !connection.isPausedForTurn, !connection.isPausedForWrites else { continue }
            continueTransfer(connection)
        }
    }

    // MARK: - TransferEngine

    public func start(_ job: TransferJob) {
        guard downloads[job.url] == nil else { return }
        _ = multi  // libcurl is open before the download touches a file
        let download = FileDownload(job: job, engine: self)
        downloads[job.url] = download
        rateLimits[job.url] = job.options.rateLimit
        download.begin()
        applyRateLimits()
        deliverReports()
    }

    public func stop(url: String) {
        // A file whose bytes are all in is finished, not stopped: it is complete, and stopping
        // it would let a new download of the URL reopen the part file the finisher renames.
        guard let download = downloads[url], !download.finishing else { return }
        download.stop()
        forget(download)
        // The bytes written so far become durable and are reported once more.
        download.checkpoint(final: true)
    }

    public func liveProgress() -> [String: Int64] {
        downloads.mapValues(\.written)
    }

    public func setGlobalRateLimit(_ bytesPerSecond: Int64?) {
        globalRateLimit = bytesPerSecond.flatMap { $0 > 0 ? $0 : nil }
        applyRateLimits()
    }

    public func setRateLimit(url: String, _ bytesPerSecond: Int64?) {
        // A task that is not running takes its limit from its job when it starts.
        guard downloads[url] != nil else { return }
        rateLimits[url] = bytesPerSecond.flatMap { $0 > 0 ? $0 : nil }
        applyRateLimits()
    }

    public func wait(timeoutMs: Int, watching fds: [WatchedFD]) -> Set<Int32> {
        let multi = self.multi
        var waitFDs = fds.map { watched in
            curl_waitfd(fd: watched.fd, events: Int16(watched.readiness == .readable ? CURL_WAIT_POLLIN : CURL_WAIT_POLLOUT), revents: 0)
        }
        var timeout = timeoutMs
        // Only a limit pauses a connection, and lifting it unpauses (see `applyRateLimits`).
        let limited = limitsApplied
        if limited { timeout = min(timeout, 20) }
        // Connections paused at the end of the last turn have data waiting: no sleeping.
        if !pausedForTurn.isEmpty { timeout = 0 }
        // The worker wakes the loop when it catches up; this is only a fallback.
        if !pausedForWrites.isEmpty { timeout = min(timeout, 50) }
        if let next = timers.min() {
            timeout = max(0, min(timeout, Int((next - now) * 1000) + 1))
        }
        if !awaitingSettling.isEmpty {
            timeout = max(0, min(timeout, Int((awaitingSince + Self.settleDelay - now) * 1000) + 1))
        }
        // A wake that came before the multi handle was made did not reach its poll.
        if wake.isRequested { timeout = 0 }
        var count: Int32 = 0
        waitFDs.withUnsafeMutableBufferPointer { buffer in
            _ = curl_multi_poll(multi, buffer.baseAddress, UInt32(buffer.count), Int32(timeout), &count)
        }
        if limited { refillRateLimits() }
        freeSpace.forget()
        defer { freeSpace.forget() }
        performDeadline = watch.begin(waitFDs, at: now, budget: Self.turnBudget)
        resumeTurnPaused()
        resumeWritePaused()
        var running: Int32 = 0
        withinCurl { _ = curl_multi_perform(multi, &running) }
        performDeadline = .infinity
        // After the second turn's transfers, whose first turn typically opened their connections
        // and the second sent their requests: the thread starts while they wait for the answers
        // (see `WorkerQueue.startThread`).
        if turnsBeforeWorker > 0 {
            turnsBeforeWorker -= 1
            if turnsBeforeWorker == 0 { worker.startThread() }
        }
        watch.end()
        wake.clear()
        // What the callbacks left for the loop, each step's reports delivered before the next.
        if settleIsDue { settleFirstAnswers() }
        deliverReports()
        drainFinishedTransfers()
        deliverReports()
        runCompleted()
        runDueTimers()
        finisher.runIfDue()
        let t = now
        // Twice a second: a crash loses at most half a second of transfer.
        if t - lastCheckpoint >= 0.5 {
            lastCheckpoint = t
            for download in downloads.values {
                download.checkpoint()
                download.compareSources(now: t)
            }
        }
        deliverReports()
        var ready = Set(watch.ready)
        for waitFD in waitFDs where waitFD.revents != 0 { ready.insert(waitFD.fd) }
        return ready
    }

    public var waker: @Sendable () -> Void {
        { [wake] in wake.wake() }
    }

    public func shutdown() {
        for url in Array(downloads.keys) { stop(url: url) }
        // Files waiting for a batch are finished now, and every pending sync is let finish, so
        // the last checkpoints are reported before exit.
        finisher.hurry = true
        // A finish may fail and queue a sync whose report comes back later: go on until the
        // worker has nothing more to say.
        repeat {
            finisher.runIfDue()
            worker.drain()
        } while runCompleted() || !finisher.isIdle
        deliverReports()
    }

    // MARK: - Used by downloads

    /// Queues a report for the manager. Reports are delivered in order at the loop's next
    /// step (`deliverReports`): the manager commits to SQLite and tells its observers, which
    /// must not happen inside a libcurl callback.
    func report(_ event: TransferEvent) {
        reports.append(event)
    }

    /// Delivers the queued reports, oldest first. Only outside libcurl. The manager may call
    /// the engine meanwhile: what that reports is delivered after, by the same loop, unless
    /// the engine must have an answer at once (`evenWhileDelivering`, see `reportResolved`).
    func deliverReports(evenWhileDelivering: Bool = false) {
        precondition(!insideCurl, "reports are delivered outside libcurl's callbacks")
        guard !delivering || evenWhileDelivering else { return }
        let outer = delivering
        delivering = true
        defer { delivering = outer }
        while !reports.isEmpty {
            onEvent?(reports.removeFirst())
        }
    }

    /// Runs a libcurl call that may call back into the connections.
    private func withinCurl(_ call: () -> Void) {
        let outer = insideCurl
        insideCurl = true
        call()
        insideCurl = outer
    }

    /// Lets a paused transfer go on. libcurl hands it the bytes it kept at once, inside this.
    func continueTransfer(_ connection: Connection) {
        withinCurl { _ = curl_easy_pause(connection.handle, CURLPAUSE_CONT) }
    }

    /// A connection paused on its first answer (in a callback): settled at the next step.
    func settleLater(_ connection: Connection) {
        if awaitingSettling.isEmpty { awaitingSince = now }
        awaitingSettling.append(connection)
    }

    /// The first answers waiting are settled now: enough of them, the oldest waited long
    /// enough, or no other connection is left to bring another (waiting would only delay them).
    private var settleIsDue: Bool {
        guard !awaitingSettling.isEmpty else { return false }
        if awaitingSettling.count >= Self.settleBatch || now - awaitingSince >= Self.settleDelay { return true }
        return !downloads.values.contains { download in download.connections.contains { !$0.awaitsSettling } }
    }

    func add(_ connection: Connection) {
        connection.holdsHostSlot = true
        connectionsPerHost[connection.origin, default: 0] += 1
        applyRateLimits()
        connection.fixReadSize()
        curl_multi_add_handle(multi, connection.handle)
    }

    func remove(_ connection: Connection) {
        curl_multi_remove_handle(multi, connection.handle)
        release(connection)
    }

    /// Connections open (or waiting in libcurl) per "scheme://host:port", over all downloads.
    var connectionsPerHost: [String: Int] = [:]
    private var hostSlotFreed = false

    /// Whether another connection to `origin` stays within `--max-connections-per-host`.
    func hostHasRoom(_ origin: String) -> Bool {
        (connectionsPerHost[origin] ?? 0) < max(1, settings.maxConnectionsPerHost)
    }

    private func release(_ connection: Connection) {
        guard connection.holdsHostSlot else { return }
        connection.holdsHostSlot = false
        let left = (connectionsPerHost[connection.origin] ?? 1) - 1
        connectionsPerHost[connection.origin] = left > 0 ? left : nil
        hostSlotFreed = true
    }

    /// The download left the active set. Only that one: a finish or failure that arrives after
    /// a stop must not drop a newer download of the same URL.
    func forget(_ download: FileDownload) {
        guard downloads[download.url] === download else { return }
        // Its connections waiting to be settled are let go (they hold it unowned).
        if !awaitingSettling.isEmpty { awaitingSettling.removeAll { $0.download === download } }
        downloads[download.url] = nil
        rateLimits[download.url] = nil
        applyRateLimits()  // the caps it shared go to the downloads left
    }

    func scheduleTimer(at time: Double) {
        timers.append(time)
    }

    // MARK: - Loop internals

    /// Runs what came back from the worker (and what was left for this step), delivering the
    /// reports of each; true when there was anything.
    @discardableResult
    private func runCompleted() -> Bool {
        let ranAny = worker.runCompleted()
        deliverReports()
        return ranAny
    }

    /// The first answers that waited in a callback: each settled with the manager, then let
    /// go on (a settling may pause another on its first answer: those are settled too).
    private func settleFirstAnswers() {
        // Several at once: their names are reported first and committed together by the
        // first part file made (see `recordNameAhead`).
        if awaitingSettling.count > 1 {
            for connection in awaitingSettling { connection.download.recordNameAhead(connection) }
        }
        while !awaitingSettling.isEmpty {
            let connection = awaitingSettling.removeFirst()
            connection.download.settleFirstAnswer(connection)
        }
    }

    private func runDueTimers() {
        let t = now
        guard timers.contains(where: { $0 <= t }) else { return }
        timers.removeAll { $0 <= t }
        for download in downloads.values { download.fillConnections() }
    }

    private func drainFinishedTransfers() {
        var remaining: Int32 = 0
        while let message = curl_multi_info_read(multi, &remaining) {
            guard message.pointee.msg == CURLMSG_DONE, let handle = message.pointee.easy_handle else { continue }
            let result = message.pointee.data.result
            var raw: UnsafeMutableRawPointer?
            tdl_getinfo_pointer(handle, CURLINFO_PRIVATE, &raw)
            curl_multi_remove_handle(multi, handle)
            guard let raw else { continue }
            let connection = Unmanaged<Connection>.fromOpaque(raw).takeUnretainedValue()
            release(connection)
            // Its first answer waits to be settled with the others: it ends then.
            if connection.awaitsSettling {
                connection.endedWhileSettling = result
                continue
            }
            connection.download.connectionDone(connection, result: result)
            applyRateLimits()
        }
        // A connection that ended leaves room on its host for one that waits.
        if hostSlotFreed {
            hostSlotFreed = false
            for download in Array(downloads.values) where download.waitsForHost { download.fillConnections() }
        }
    }

    private var lastRefill: Double = 0

    private func refillRateLimits() {
        let t = now
        let elapsed = lastRefill == 0 ? 0.02 : min(1, t - lastRefill)
        lastRefill = t
        for download in downloads.values {
            for connection in download.connections { connection.refill(seconds: elapsed) }
        }
    }

    /// Whether some connection may still carry a limit from the last time limits were set.
    private var limitsApplied = false

    /// A connection ended outside `curl_multi_info_read` (its first answer was being settled):
    /// the others take its share of the rate limits.
    func connectionEnded() { applyRateLimits() }

    /// Every connection gets an equal share of its task's limit and of the global one.
    private func applyRateLimits() {
        // Without any limit there is nothing to share out (this runs for every started and
        // ended transfer), only once to lift the limits of the last time.
        let anyLimit = globalRateLimit != nil || !rateLimits.isEmpty
        guard anyLimit || limitsApplied else { return }
        limitsApplied = anyLimit
        let all = downloads.values.flatMap(\.connections)
        let globalShare = globalRateLimit.map { $0 / Int64(max(1, all.count)) }
        for download in downloads.values {
            let connections = download.connections
            let taskShare = rateLimits[download.url].map { $0 / Int64(max(1, connections.count)) }
            let limit = [globalShare, taskShare].compactMap { $0 }.min()
            for connection in connections { connection.setRateLimit(limit.map { max(1, $0) }) }
        }
    }
}
