import TDLCore

/// When a connection counts as stalled and is reconnected: below a speed for the stall time
/// (curl's low-speed check, which does not run while tdl pauses a transfer for a rate limit).
/// The floor is 1 KB/s; `--lowest-speed-limit` (aria2's option) raises it. Off by default, as
/// in aria2: a slow server that keeps giving bytes is let be. A trickle that never completes
/// ends anyway: each stall counts against the retries (`RetryBudget`).
struct LowSpeedRule: Equatable {
    static let floor = 1024

    let bytesPerSecond: Int
    let seconds: Int

    init(lowestSpeed: Int64?, stallSeconds: Int) {
        bytesPerSecond = Int(max(Int64(Self.floor), min(lowestSpeed ?? 0, Int64(Int32.max))))
        seconds = stallSeconds
    }
}
