import Foundation
import TDLCore

/// Times the list operations at scale (`tdl debug bench-list`): populate N tasks, then each
/// predefined sort with sectioning on, adding URLs, index-path lookups, delete and restore.
/// Meaningful only in a release build.
public enum ListBenchmark {
    public struct Result: Sendable, Equatable {
        public let name: String
        public let milliseconds: Double
        /// The budget for this step at 100,000 tasks, when there is one.
        public let limit: Double?

        public init(name: String, milliseconds: Double, limit: Double?) {
            self.name = name
            self.milliseconds = milliseconds
            self.limit = limit
        }

        public var withinLimit: Bool { limit.map { milliseconds <= $0 } ?? true }
    }

    public static let sortLimitMs = 100.0
    public static let addLimitMs = 50.0

    /// Each timed step runs `repetitions` times and reports its fastest run: on a shared
    /// machine the slower runs measure the neighbours.
    public static func run(taskCount: Int = 100_000, addCount: Int = 1_000, seed: UInt64 = 1, repetitions: Int = 3) -> [Result] {
        var results: [Result] = []
        func time(_ name: String, limit: Double? = nil, repeatable: Bool = true, _ body: () -> Void) {
            var best = Double.infinity
            for _ in 0 ..< (repeatable ? max(1, repetitions) : 1) {
                let start = DispatchTime.now().uptimeNanoseconds
                body()
                best = min(best, Double(DispatchTime.now().uptimeNanoseconds - start) / 1_000_000)
            }
            results.append(Result(name: name, milliseconds: best, limit: limit))
        }
        let manager = DownloadManager(identifier: "bench", defaultDirectory: NSTemporaryDirectory())
        manager.downloadNewFileImmediately = false
        for type in [SortKey.addTime, .fileSize, .fileName] { manager.setSectioning(true, for: type) }

        time("populate \(taskCount) tasks", repeatable: false) { manager.reproduceData(count: taskCount, seed: seed) }
        for type in SortKey.allCases {
            for order in [SortOrder.ascending, .descending] {
                time("sort by \(type.title), \(order.rawValue), sectioned", limit: sortLimitMs) {
                    manager.sortListBy(type: type, order: order)
                }
            }
        }
        var batch = 0
        func newURLs() -> [String] {
            batch += 1
            return (0 ..< addCount).map { "https://bench.example.org/\(seed)/\(batch)/file-\($0).iso" }
        }
        for type in [SortKey.addTime, .fileName] {
            manager.sortListBy(type: type, order: .ascending)
            var batches = (0 ..< max(1, repetitions)).map { _ in newURLs() }
            time("add \(addCount) URLs (sorted by \(type.title))", limit: addLimitMs) { manager.add(batches.removeLast()) }
        }
        manager.sortListBy(type: .addTime, order: .descending)
        let everyURL = manager.downloadList.flatMap { $0 }
        manager.add(newURLs())  // a change: the next lookup rebuilds the index map
        var found = 0
        time("index-path lookup of all \(everyURL.count) tasks after a change", repeatable: false) {
            for url in everyURL where manager.indexPath(of: url) != nil { found += 1 }
        }
        time("index-path lookup of all \(everyURL.count) tasks, map warm") {
            for url in everyURL where manager.indexPath(of: url) != nil { found += 1 }
        }
        let doomed = Array(everyURL.prefix(addCount))
        time("delete \(doomed.count) tasks to the trash", repeatable: false) { manager.deleteTasks(doomed) }
        time("restore \(doomed.count) tasks from the trash", repeatable: false) { manager.restoreToDeleteTasks(doomed) }
        time("switch to manual mode", repeatable: false) { manager.arrange(.manual) }
        time("switch back to add time, sectioned", limit: sortLimitMs, repeatable: false) { manager.sortListBy(type: .addTime) }
        precondition(found % everyURL.count == 0, "every listed task has an index path")
        return results
    }

    /// A plain-text table: step, milliseconds, budget and whether it was met.
    public static func table(_ results: [Result]) -> String {
        let width = max(4, results.map(\.name.count).max() ?? 0)
        func pad(_ s: String, _ n: Int) -> String { s.count >= n ? s : s + String(repeating: " ", count: n - s.count) }
        func lpad(_ s: String, _ n: Int) -> String { s.count >= n ? s : String(repeating: " ", count: n - s.count) + s }
        var lines = [pad("step", width) + "  " + lpad("ms", 9) + "  " + lpad("budget", 7) + "  ok"]
        for r in results {
            let ms = String(format: "%.1f", r.milliseconds)
            let budget = r.limit.map { String(format: "%.0f", $0) } ?? "-"
            lines.append(pad(r.name, width) + "  " + lpad(ms, 9) + "  " + lpad(budget, 7) + "  " + (r.withinLimit ? "yes" : "NO"))
        }
        return lines.joined(separator: "\n")
    }
}
