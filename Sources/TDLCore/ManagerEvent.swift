import Foundation

/// What the manager tells its clients (the TUI, the CLI) about changes.
public enum ManagerEvent: Equatable, Sendable {
    /// A task's state, progress or name changed.
    case taskChanged(String)
    /// Rows moved, appeared or disappeared: re-read `downloadList`.
    case listChanged
    /// SDE's deleteCompletionHandler: the task, where it was, how many in this batch, which one (from 1).
    case deleted(url: String, from: ListIndex?, count: Int, nth: Int)
    /// The session could not be saved (the changes are kept and tried again): tell the user.
    case saveFailed(String)
    /// A task's file could not be deleted: the task stays as it was.
    case deleteFailed(FileDeleteFailure)
    /// A task finished (file in place) or failed for good.
    case taskSucceeded(url: String, path: String)
    case taskFailed(url: String, reason: FailReason)
    /// Nothing is downloading or waiting any more.
    case allDownloadsOver
}

/// The outcome of adding URLs: what was added, what was already there, what was refused and why.
public struct AddResult: Equatable, Sendable {
    public var added: [String] = []
    public var existing: [String] = []
    public var rejected: [Rejection] = []
    /// The URLs of `existing`, each with what asking for it again did ("already in the list",
    /// "back from the trash", "downloads again: …", "repeated in this batch").
    public var duplicates: [Rejection] = []
    /// Options given for a URL the session has that could not be applied to it, and why.
    public var notApplied: [Rejection] = []
    /// URLs of `notApplied` whose finished file does not match the checksum given: a failed
    /// verification (exit 1), not a bad option.
    public var mismatched: [String] = []

    public struct Rejection: Equatable, Sendable {
        public let url: String
        public let reason: String
    }

    public init() {}
}

/// One add given to the manager in several calls, as a file of a million URLs is, a part at a
/// time: a URL named again in a later part is repeated in the batch, as within one call, and
/// each part's tasks come after the earlier parts' in add-time order.
public struct AddBatch {
    /// Every URL the batch has named so far.
    var seen = Set<String>()
    /// The add time of the batch's newest task.
    var lastAddTime: Date?

    public init() {}

    /// Makes room for about `count` URLs at once: grown part by part, the URLs seen so far
    /// are hashed again at each doubling.
    public mutating func expect(_ count: Int) { seen.reserveCapacity(max(0, count)) }
}

/// Live numbers for one task, refreshed by `tick`.
public struct TaskActivity: Equatable, Sendable {
    public var received: Int64
    public var expected: Int64?
    public var speed: Int64
    public var eta: Double?
}
