import Foundation

/// Whether a queue may start a download at one moment: its hours are open and it runs fewer
/// than its most at once. Built for one pass of the scheduler (the manager's `schedule`),
/// counting each start it allows; the session's own limit is the scheduler's to keep.
struct QueueGate {
    let queues: QueueList
    let now: Date
    let calendar: Calendar
    /// Downloads running (in slots) by queue name.
    private var running: [String: Int] = [:]
    private var open: [String: Bool] = [:]

    /// `runningQueues`: the queue each running download names.
    init(queues: QueueList, runningQueues: [String?], now: Date, calendar: Calendar) {
        self.queues = queues
        self.now = now
        self.calendar = calendar
        for queue in runningQueues where !queues.isEmpty { running[queues.key(for: queue), default: 0] += 1 }
    }

    /// Whether a download of `queue` may start now.
    mutating func mayStart(queue: String?) -> Bool {
        guard let definition = queues.definition(for: queue) else { return true }
        guard isOpen(definition) else { return false }
        return definition.maxActive <= 0 || running[definition.name, default: 0] < definition.maxActive
    }

    /// A download of `queue` started.
    mutating func started(queue: String?) {
        guard !queues.isEmpty else { return }
        running[queues.key(for: queue), default: 0] += 1
    }

    private mutating func isOpen(_ definition: QueueDefinition) -> Bool {
        if let known = open[definition.name] { return known }
        let answer = definition.hours.isOpen(at: now, calendar: calendar)
        open[definition.name] = answer
        return answer
    }

    /// The running downloads that must go back to waiting at `now`: those of a queue whose
    /// hours are closed, and the newest of a queue running more than its most at once.
    static func mustWait(running: [(url: String, queue: String?, addTime: Date)], queues: QueueList,
                         now: Date, calendar: Calendar) -> [String] {
        guard !queues.isEmpty else { return [] }
        var byQueue: [String: [(url: String, addTime: Date)]] = [:]
        for download in running {
            guard let definition = queues.definition(for: download.queue) else { continue }
            byQueue[definition.name, default: []].append((download.url, download.addTime))
        }
        var result: [String] = []
        for (name, downloads) in byQueue.sorted(by: { $0.key < $1.key }) {
            let definition = queues[name]!
            let newestFirst = downloads.sorted { ($0.addTime, $0.url) > ($1.addTime, $1.url) }.map(\.url)
            if !definition.hours.isOpen(at: now, calendar: calendar) {
                result += newestFirst
            } else if definition.maxActive > 0 && downloads.count > definition.maxActive {
                result += newestFirst.prefix(downloads.count - definition.maxActive)
            }
        }
        return result
    }
}
