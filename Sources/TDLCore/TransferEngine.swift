/// What the manager asks the engine to download. The core owns this protocol so it can be
/// driven by the real libcurl engine or, in list tests, by no engine at all.
public struct TransferJob: Sendable {
    public var url: String
    public var directory: String
    /// The file name to use. When `nameIsFixed` is false the engine may replace it with the
    /// server's Content-Disposition name on the first response.
    public var fileName: String
    public var nameIsFixed: Bool
    /// The part file under `fileName` was created by this task in an earlier run (it resolved
    /// before the first checkpoint): reuse it instead of choosing a new name.
    public var partFileIsOurs: Bool
    public var size: Int64?
    /// Durable progress from earlier runs; empty for a fresh start.
    public var segments: [Segment]
    public var etag: String?
    public var lastModified: String?
    /// What the user asked of this download; `connections` below is its count, resolved.
    public var options: DownloadOptions
    public var connections: Int
    public var maxRetries: Int

    public init(task: DownloadTask, connections: Int, maxRetries: Int) {
        url = task.url
        directory = task.directory
        fileName = task.fileName
        nameIsFixed = task.received > 0 || task.userChoseName
        partFileIsOurs = task.finalURL != nil
        size = task.size
        segments = task.segments
        etag = task.etag
        lastModified = task.lastModified
        options = task.options
        self.connections = task.options.connections ?? connections
        self.maxRetries = maxRetries
    }
}

/// What the engine reports back, always on the event-loop thread.
public enum TransferEvent: Sendable {
    /// The server answered: the name, size and validators are now known. The manager records
    /// them before it returns: the engine creates the part file under this name (or renames it
    /// to it) only afterwards. Also sent again when the size is learned at the end. With
    /// `commitNow` false the commit waits for the next `.resolved` that commits (the engine
    /// reports a turn's new names first, then creates their files: one commit for all).
    case resolved(url: String, fileName: String, size: Int64?, mimeType: String?, etag: String?, lastModified: String?,
                  finalURL: String?, commitNow: Bool = true)
    /// These segment offsets are durable on disk (the part file was fdatasync'ed first).
    case checkpoint(url: String, segments: [Segment])
    /// Something worth telling the user ("server ignored Range: restarted from zero", "retry 2 of 3").
    case note(url: String, text: String, retries: Int)
    /// A transient failure (refused connection, 503…): the engine tries again after a backoff.
    case retrying(url: String, reason: FailReason, attempt: Int, limit: Int)
    /// Every byte is in and the file waits to be verified and made durable (`started` true), or
    /// it downloads again because that check failed (false). A finishing file leaves its
    /// download slot to the next one: making files durable in batches costs one flush of the
    /// file system per batch, and batches only grow when the network keeps going meanwhile.
    case finishing(url: String, started: Bool)
    /// The file is verified, fsync'ed and renamed into place.
    case finished(url: String, path: String, size: Int64)
    /// The task failed; its partial bytes (if any) are kept for a later resume.
    case failed(url: String, reason: FailReason, segments: [Segment])
}

/// A descriptor the event loop waits on beside the transfers: until it can be read, or until
/// it can take more bytes.
public struct WatchedFD: Sendable {
    public enum Readiness: Sendable { case readable, writable }
    public let fd: Int32
    public let readiness: Readiness

    public static func reading(_ fd: Int32) -> WatchedFD { WatchedFD(fd: fd, readiness: .readable) }
    public static func writing(_ fd: Int32) -> WatchedFD { WatchedFD(fd: fd, readiness: .writable) }
}

/// The transfer engine as the core sees it. One thread: every call and every event happens
/// on the event loop that calls `wait(timeoutMs:watching:)`.
public protocol TransferEngine: AnyObject {
    var onEvent: ((TransferEvent) -> Void)? { get set }
    /// Whether a file path belongs to another task than the URL's (set by the manager): a name
    /// is chosen only where nothing is on disk and no other task owns it.
    var isNameTaken: ((_ url: String, _ path: String) -> Bool)? { get set }
    /// Whether the session committed what the URL's last `.resolved` said (set by the
    /// manager): a file is created or renamed under a name only once the session knows it.
    var isRecorded: ((_ url: String) -> Bool)? { get set }
    func start(_ job: TransferJob)
    /// Disconnects the task's transfers; a final checkpoint event follows.
    func stop(url: String)
    /// Bytes received so far per active task, durable or not (for speed and progress).
    func liveProgress() -> [String: Int64]
    func setGlobalRateLimit(_ bytesPerSecond: Int64?)
    func setRateLimit(url: String, _ bytesPerSecond: Int64?)
    /// Runs transfers until `timeoutMs` passes, a watched fd becomes ready, or `waker` is
    /// called; returns the ready fds among `fds`.
    func wait(timeoutMs: Int, watching fds: [WatchedFD]) -> Set<Int32>
    /// For any thread: makes a pending `wait` return, and a running one end its turn's
    /// transfers early, so that work another thread handed to the loop does not wait for them.
    /// It holds nothing of the engine but that wake-up (a no-op once the engine is gone).
    var waker: @Sendable () -> Void { get }
    /// Called once before exit: stops everything and records the last durable checkpoints.
    func shutdown()
}
