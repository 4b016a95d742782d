import Foundation

/// The live numbers of running downloads: bytes so far, speed over the last seconds, time
/// remaining (Tiercel's), and which wait to retry a failed connection (Reed's). Sampled ten
/// times a second; nothing here is saved.
struct LiveActivity {
    private var meters: [String: SpeedMeter] = [:]
    private(set) var byTask: [String: TaskActivity] = [:]
    /// Downloading tasks that wait to try a failed connection again.
    var retrying: [String: RetryStatus] = [:]
    /// Sum of the current speeds of every downloading task.
    private(set) var overallSpeed: Int64 = 0
    /// When `sample` last ran (seconds since the reference date).
    private var lastSample = -Double.infinity

    /// A download starts with `received` bytes: the speed counts from here, so bytes that
    /// all came before the first sample (a rate limit's first burst) still make a speed.
    mutating func started(_ url: String, at t: Double, received: Int64) {
        var meter = SpeedMeter()
        meter.start(time: t, bytes: received)
        meters[url] = meter
    }

    /// The task no longer downloads: its numbers go.
    mutating func forget(_ url: String) {
        meters[url] = nil
        byTask[url] = nil
        retrying[url] = nil
    }

    /// Takes a sample at time `t` unless one was taken in the last tenth of a second. The loop
    /// turns hundreds of times a second with many small files, and a sample looks up every
    /// downloading task. `live` is the engine's byte counts, `received` and `size` the tasks'.
    mutating func sample(at t: Double, of downloading: Set<String>, live: () -> [String: Int64]?,
                         received: (String) -> Int64, size: (String) -> Int64?) {
        guard t - lastSample >= 0.1, let live = live() else { return }
        lastSample = t
        var total: Int64 = 0
        for url in downloading {
            let bytes = live[url] ?? received(url)
            meters[url, default: SpeedMeter()].add(time: t, bytes: bytes)
            guard let meter = meters[url] else { continue }
            let expected = size(url)
            byTask[url] = TaskActivity(received: bytes, expected: expected, speed: meter.bytesPerSecond,
                                       eta: meter.eta(remaining: expected.map { $0 - bytes }))
            total += meter.bytesPerSecond
            if let retry = retrying[url], bytes > retry.receivedAtRetry { retrying[url] = nil }
        }
        overallSpeed = total
    }
}
