/// Limits one run sets for itself (`tdl get -j 2 -x 4 --limit-rate 50K`) over the session's
/// own: they hold while this process runs and are never written into the session, so a run
/// that is killed leaves the session's settings as they were.
public struct RunLimits: Equatable, Sendable {
    /// Downloads at once (0 or less: no limit).
    public var maxDownloadCount: Int?
    /// Connections per file for downloads started from now on.
    public var connectionsPerDownload: Int?
    /// The total rate cap in bytes per second; `.some(nil)` runs without one.
    public var globalRateLimit: Int64??

    public init(maxDownloadCount: Int? = nil, connectionsPerDownload: Int? = nil, globalRateLimit: Int64?? = nil) {
        self.maxDownloadCount = maxDownloadCount
        self.connectionsPerDownload = connectionsPerDownload.map { min(DownloadOptions.maxConnections, max(1, $0)) }
        self.globalRateLimit = globalRateLimit
    }
}

extension DownloadManager {
    /// Takes `limits` over the session's settings for this run; nothing is saved.
    public func useRunLimits(_ limits: RunLimits) {
        runLimits = limits
        engine?.setGlobalRateLimit(rateLimitInForce)  // a rate schedule in force holds over it
        // A lower cap sends the newest downloads back to waiting; a higher one starts more.
        move(scheduler.excess(over: maxDownloadCount, addTime: { tasks[$0]?.addTime ?? .distantPast }), .limitLowered)
        finishBatch()
    }

    /// The rate cap in force: this run's, else the session's.
    public var globalRateLimit: Int64? { runLimits.globalRateLimit ?? settings.globalRateLimit }

    /// Connections per file in force: this run's, else the session's.
    public var connectionsPerDownload: Int { runLimits.connectionsPerDownload ?? settings.connectionsPerDownload }
}
