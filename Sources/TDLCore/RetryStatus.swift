/// A download whose connection failed and that waits to try again, so a screen can say
/// "Retrying (2 of 3)" instead of showing a download that receives nothing.
///
/// Set when the engine schedules a retry; gone as soon as bytes arrive again or the task's
/// state changes.
public struct RetryStatus: Equatable, Sendable {
    /// Which retry this is, from 1.
    public var attempt: Int
    /// How many retries the task gets before it fails.
    public var limit: Int
    /// Why the last try failed.
    public var reason: FailReason
    /// Bytes the task had when the retry was scheduled: more means the retry worked.
    var receivedAtRetry: Int64
}
