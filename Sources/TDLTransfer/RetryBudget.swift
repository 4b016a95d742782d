/// The reconnects a download may still make after transient failures. Every reconnect is
/// counted; the count starts over only after real progress since the last failure: any bytes
/// after a dropped connection (a flaky server that keeps giving bytes is not a dead one), but
/// after a stall (below the lowest speed for the stall time) a sixteenth of the file (1 MiB
/// when its size is unknown). A server that sends half of what is left and then stalls made
/// progress at every reconnect, and so was retried without end. Bytes fetched again after a
/// restart from zero are no progress until they pass where the last failure was.
struct RetryBudget {
    /// Failures counted since the count last started over.
    private(set) var failures = 0
    private var receivedAtLastFailure: Int64 = 0

    /// Counts one more failure with `received` bytes in; the attempt number it makes.
    mutating func count(received: Int64, stalled: Bool, size: Int64?) -> Int {
        let forgiving = stalled ? Self.progressForgivingStall(size: size) : 1
        if received - receivedAtLastFailure >= forgiving { failures = 0 }
        receivedAtLastFailure = received
        failures += 1
        return failures
    }

    static func progressForgivingStall(size: Int64?) -> Int64 {
        size.map { max(1, $0 / 16) } ?? 1 << 20
    }
}
