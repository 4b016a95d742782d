import Foundation

/// Speed over recent samples, not the average since start: a stall shows as a falling speed
/// within seconds, and ETA turns unknown when nothing moves.
///
/// Bytes may arrive in bursts: under a low rate limit a connection hands over 16 KiB every
/// few seconds. A fixed window then reads 0 B/s between bursts and a jump at each. So the
/// speed is measured between the moments the count changed, over at least `window` seconds
/// and two bursts; only when nothing arrived for longer than two usual gaps does it count
/// the time since, and fall.
public struct SpeedMeter: Sendable {
    /// Samples where the byte count changed (and the first one), oldest first.
    private var changes: [(time: Double, bytes: Int64)] = []
    private var latest: (time: Double, bytes: Int64)?
    /// When the transfer started and what it had then: bytes that all came before the first
    /// sample (a rate limit's first burst) are counted from here.
    private var origin: (time: Double, bytes: Int64)?
    public let window: Double
    /// How long after the first bytes the speed stays the average so far, waiting for more.
    static let firstBurstWait = 120.0

    public init(window: Double = 4) {
        self.window = window
    }

    /// The transfer starts now with `bytes`.
    public mutating func start(time: Double, bytes: Int64) {
        reset()
        origin = (time, bytes)
    }

    public mutating func add(time: Double, bytes: Int64) {
        if let latest, bytes < latest.bytes {
            changes.removeAll()  // restarted from zero: old samples describe another transfer
            origin = nil
        }
        if changes.last?.bytes != bytes { changes.append((time, bytes)) }
        latest = (time, bytes)
        // What no later measurement reaches back to: more than a few gaps and windows ago.
        let reach = max(2 * window, 5 * (meanGap ?? 0))
        while changes.count > 4, time - changes[1].time > reach { changes.removeFirst() }
    }

    public mutating func reset() {
        changes.removeAll()
        latest = nil
        origin = nil
    }

    /// The usual time between changes, over the last few; nil with fewer than two.
    private var meanGap: Double? {
        guard changes.count >= 2 else { return nil }
        let first = changes[max(0, changes.count - 5)], last = changes[changes.count - 1]
        return (last.time - first.time) / Double(min(4, changes.count - 1))
    }

    /// Bytes per second; 0 with fewer than two samples.
    public var bytesPerSecond: Int64 {
        guard let latest, let oldest = changes.first else { return 0 }
        let last = changes[changes.count - 1]
        if changes.count >= 3, let gap = meanGap, latest.time - last.time <= 2 * gap + 0.3 {
            // Flowing: from the newest change at least a window (and two changes) before the last.
            var start = 0
            for k in stride(from: changes.count - 3, through: 0, by: -1) where last.time - changes[k].time >= window {
                start = k
                break
            }
            let span = last.time - changes[start].time
            return span > 0.05 ? Int64(Double(last.bytes - changes[start].bytes) / span) : 0
        }
        if changes.count < 3 && latest.time - last.time < Self.firstBurstWait {
            // Just started (one burst or none yet): the average so far. A low limit shared by
            // eight connections lets each take one buffer a minute or so.
            let from = origin.flatMap { $0.bytes < oldest.bytes ? $0 : nil } ?? oldest
            let span = latest.time - from.time
            return span > 0.05 ? Int64(Double(latest.bytes - from.bytes) / span) : 0
        }
        // Stalled: what arrived within the last window (or two usual gaps), counted to now.
        let reach = max(window, 2.5 * (meanGap ?? 0))
        let from = latest.time - reach
        let before = changes.last { $0.time <= from } ?? oldest
        let span = latest.time - max(from, oldest.time)
        return span > 0.05 ? Int64(Double(latest.bytes - before.bytes) / span) : 0
    }

    /// Seconds left for `remaining` bytes; nil when the speed is about zero or the size unknown.
    public func eta(remaining: Int64?) -> Double? {
        let speed = bytesPerSecond
        guard let remaining, speed > 1 else { return nil }
        return Double(max(remaining, 0)) / Double(speed)
    }
}
