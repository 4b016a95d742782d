import Foundation

/// Speed over a sliding window of recent samples, not the average since start: a stall shows
/// as a falling speed within seconds, and ETA turns unknown when nothing moves.
public struct SpeedMeter: Sendable {
    private var samples: [(time: Double, bytes: Int64)] = []
    public let window: Double

    public init(window: Double = 4) {
        self.window = window
    }

    public mutating func add(time: Double, bytes: Int64) {
        if let last = samples.last, bytes < last.bytes {
            samples.removeAll()  // restarted from zero: old samples describe another transfer
        }
        samples.append((time, bytes))
        while let first = samples.first, time - first.time > window, samples.count > 2 {
            samples.removeFirst()
        }
    }

    public mutating func reset() { samples.removeAll() }

    /// Bytes per second over the window; 0 with fewer than two samples.
    public var bytesPerSecond: Int64 {
        guard let first = samples.first, let last = samples.last, last.time - first.time > 0.05 else { return 0 }
        return Int64(Double(last.bytes - first.bytes) / (last.time - first.time))
    }

    /// Seconds left for `remaining` bytes; nil when the speed is about zero or the size unknown.
    public func eta(remaining: Int64?) -> Double? {
        let speed = bytesPerSecond
        guard let remaining, speed > 1 else { return nil }
        return Double(max(remaining, 0)) / Double(speed)
    }
}
