import Foundation
import TDLCore
import TDLStore

/// Times the session at scale (`tdl debug bench-session`): a made-up list of N tasks written
/// to a real SQLite file, the event loop's share of one progress checkpoint of many active
/// downloads, then opening and restoring the file as the next launch does. Meaningful only in
/// a release build.
public enum SessionBenchmark {
    public static let restoreLimitMs = 300.0
    public static let checkpointLimitMs = 5.0

    /// `folder` receives the database; each step reports its fastest of `repetitions` runs.
    public static func run(folder: String, taskCount: Int = 100_000, activeCount: Int = 100,
                           repetitions: Int = 3) throws -> [ListBenchmark.Result] {
        var results: [ListBenchmark.Result] = []
        func time(_ name: String, limit: Double? = nil, runs: Int = repetitions, _ body: () throws -> Void) throws {
            var best = Double.infinity
            for _ in 0 ..< max(1, runs) {
                let start = DispatchTime.now().uptimeNanoseconds
                try body()
                best = min(best, Double(DispatchTime.now().uptimeNanoseconds - start) / 1_000_000)
            }
            results.append(ListBenchmark.Result(name: name, milliseconds: best, limit: limit))
        }
        let path = (folder as NSString).appendingPathComponent("session.sqlite")
        do {
            let engine = CheckpointingEngine()
            let manager = DownloadManager(identifier: "bench", defaultDirectory: folder, engine: engine,
                                          store: try SQLiteSessionStore(path: path, session: "bench"))
            manager.reproduceData(count: taskCount)
            try time("write \(taskCount) new tasks", runs: 1) { manager.flush() }

            // Active downloads of 8 segments each, as the engine reports them twice a second.
            let active = manager.downloadList.flatMap { $0 }.prefix(activeCount)
            var round: Int64 = 0
            try time("checkpoint of \(active.count) active downloads", limit: checkpointLimitMs, runs: max(5, repetitions)) {
                round += 1
                for url in active {
                    let segments = (0 ..< 8).map { i in Segment(start: Int64(i) << 20, end: Int64(i + 1) << 20, done: round * 1000) }
                    engine.onEvent?(.checkpoint(url: url, segments: segments))
                }
                manager.flush()
                if let error = manager.lastError { throw BenchmarkError(error) }
            }
        }
        // The writer is closed now, as when the previous tdl quit or was killed.
        var restored: [DownloadManager] = []  // freed after the timing: a launch frees nothing
        try time("open and restore \(taskCount) tasks", limit: restoreLimitMs) {
            let reopened = DownloadManager(identifier: "bench", defaultDirectory: folder,
                                           store: try SQLiteSessionStore(path: path, session: "bench", soleWriter: true))
            try reopened.load(restoring: true)
            guard reopened.taskCount == taskCount else {  // not a Set of 100,000 URLs inside the timing
                throw BenchmarkError("restored \(reopened.taskCount) of \(taskCount) tasks")
            }
            restored.append(reopened)
        }
        return results
    }

    /// Reports checkpoints as the engine does, and downloads nothing.
    final class CheckpointingEngine: TransferEngine {
        var onEvent: ((TransferEvent) -> Void)?
        var isNameTaken: ((_ url: String, _ path: String) -> Bool)?
        var isRecorded: ((_ url: String) -> Bool)?
        func start(_ job: TransferJob) {}
        func stop(url: String) {}
        func liveProgress() -> [String: Int64] { [:] }
        func setGlobalRateLimit(_ bytesPerSecond: Int64?) {}
        func setRateLimit(url: String, _ bytesPerSecond: Int64?) {}
        func wait(timeoutMs: Int, watching fds: [WatchedFD]) -> Set<Int32> { [] }
        let waker: @Sendable () -> Void = {}
        func shutdown() {}
    }

    struct BenchmarkError: Error, CustomStringConvertible {
        let description: String
        init(_ description: String) { self.description = description }
    }
}
