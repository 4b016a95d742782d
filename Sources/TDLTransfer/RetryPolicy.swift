/// How a download tries again: the reconnects left after transient failures (`RetryBudget`),
/// the backoff before the next one, and the restarts from zero and checksum failures it may
/// still take before it fails.
struct RetryPolicy {
    let maxRetries: Int
    /// The first backoff; it doubles with every failure counted, up to `maxBackoff`.
    let baseSeconds: Double
    static let maxBackoff: Double = 30

    private(set) var budget = RetryBudget()
    /// A server's Retry-After for the next retry only.
    var retryAfter: Double?
    private(set) var restartsFromZero = 0
    private(set) var checksumFailures = 0

    init(maxRetries: Int, baseSeconds: Double) {
        self.maxRetries = maxRetries
        self.baseSeconds = baseSeconds
    }

    var failures: Int { budget.failures }

    /// Counts a transient failure with `received` bytes in: the attempt it makes, nil when
    /// there are no retries left.
    mutating func countFailure(received: Int64, stalled: Bool, size: Int64?) -> Int? {
        let attempt = budget.count(received: received, stalled: stalled, size: size)
        return attempt > maxRetries ? nil : attempt
    }

    /// Seconds before `attempt`: the server's Retry-After once, else the doubling backoff;
    /// times `jitter` (0.8…1.2 at random, so many downloads do not come back at once).
    mutating func delay(attempt: Int, jitter: Double) -> Double {
        let backoff = retryAfter ?? Self.backoff(attempt: attempt, base: baseSeconds)
        retryAfter = nil
        return backoff * jitter
    }

    static func backoff(attempt: Int, base: Double) -> Double {
        min(maxBackoff, base * pow2(attempt - 1))
    }

    /// One more restart from zero; false when that is past `maxRetries + 1` for this run.
    mutating func countRestart() -> Bool {
        restartsFromZero += 1
        return restartsFromZero <= maxRetries + 1
    }

    /// Starts the restarts over (a server that cannot resume: each retry is from zero).
    mutating func forgetRestarts() {
        restartsFromZero = 0
    }

    /// One more checksum mismatch; false when there are no downloads again left (`limit`: the
    /// download's own, else `maxRetries`).
    mutating func countChecksumFailure(limit: Int? = nil) -> Bool {
        checksumFailures += 1
        return checksumFailures <= (limit ?? maxRetries)
    }

    private static func pow2(_ n: Int) -> Double {
        n <= 0 ? 1 : Double(1 << min(n, 62))
    }
}
