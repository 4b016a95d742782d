import Foundation

/// Which tasks hold a download slot and which wait for one, and the start order: the waiting
/// task of lowest rank starts first, its add time unless it was moved by hand (a relaunch
/// starts what ran before ahead of it, see `DownloadManager.load`). It knows nothing of
/// engines, files or the list; the manager tells it every state change and asks it what
/// starts next.
struct Scheduler {
    /// Downloading tasks whose bytes are all in wait to be made durable without holding a slot
    /// (see `TransferEvent.finishing`), up to this many: a disk slower than the network must
    /// hold the next downloads back.
    static let finishingOutsideSlots = 64

    private(set) var waiting: Set<String> = []
    /// `waiting` in start order; see `WaitingQueue`.
    private var queue = WaitingQueue()
    private(set) var downloading: Set<String> = []
    private(set) var finishing: Set<String> = []
    /// When set, only these start: a `tdl get` runs what it was given, not the session's
    /// backlog, which waits (in its order) for a tdl that runs everything.
    private(set) var focus: Set<String>?
    /// The waiting tasks of `focus`, in start order: a pick does not pass over the backlog.
    private var focusQueue = WaitingQueue()
    /// Start ranks given by hand (aria2's changePosition), for this run; the others rank by add time.
    private var movedRanks: [String: Double] = [:]

    /// Where a task stands in the start order: the lowest waiting one starts first.
    func rank(of url: String, addTime: Date) -> Double {
        movedRanks[url] ?? addTime.timeIntervalSinceReferenceDate
    }

    /// Gives tasks new ranks; the waiting ones are queued again under them (their old entries
    /// go stale).
    mutating func setRanks(_ ranks: [String: Double], entry: (String) -> WaitingQueue.Entry?) {
        movedRanks.merge(ranks) { $1 }
        for url in ranks.keys where waiting.contains(url) {
            guard let entry = entry(url).map(placed) else { continue }
            queue.insert(entry)
            if focus?.contains(url) == true { focusQueue.insert(entry) }
        }
    }

    /// An entry by add time, at its task's place if the task was moved.
    private func placed(_ entry: WaitingQueue.Entry) -> WaitingQueue.Entry {
        // Empty collections are not asked: a batch of a million new tasks hashed each URL
        // into every one of them.
        if movedRanks.isEmpty { return entry }
        return movedRanks[entry.url].map { WaitingQueue.Entry(rank: $0, url: entry.url) } ?? entry
    }

    /// Whether an entry carries its task's rank (not one it had before a move).
    private static func isCurrent(_ entry: WaitingQueue.Entry, movedRanks: [String: Double]) -> Bool {
        movedRanks[entry.url].map { $0 == entry.rank } ?? true
    }

    /// Room for `count` more waiting tasks: a batch of a million grew the set step by step.
    mutating func reserveCapacity(_ count: Int) {
        waiting.reserveCapacity(waiting.count + count)
    }

    /// Follows a task's new state. `entry` gives its place in the queue by add time when it starts waiting.
    mutating func track(_ url: String, _ state: TaskState, entry: () -> WaitingQueue.Entry?) {
        if state == .waiting {
            if waiting.insert(url).inserted, let entry = entry().map(placed) {
                queue.insert(entry)
                if focus?.contains(url) == true { focusQueue.insert(entry) }
            }
        } else if !waiting.isEmpty {
            waiting.remove(url)
        }
        if state == .downloading {
            downloading.insert(url)
        } else if !downloading.isEmpty {
            downloading.remove(url)
            if !finishing.isEmpty { finishing.remove(url) }
        }
    }

    /// A downloading task's bytes are all in (`started`), or it downloads again after a failed check.
    mutating func setFinishing(_ url: String, _ started: Bool) {
        if started && downloading.contains(url) { finishing.insert(url) } else { finishing.remove(url) }
    }

    /// Anything downloads or waits for a slot.
    var isBusy: Bool { !downloading.isEmpty || !waiting.isEmpty }

    /// Downloading tasks that take a slot.
    var downloadsInSlots: Int { downloading.count - min(finishing.count, Self.finishingOutsideSlots) }

    /// 0 or negative: no limit.
    func hasFreeSlot(limit: Int) -> Bool { limit <= 0 || downloadsInSlots < limit }

    /// The downloads beyond `limit`, newest first by `addTime`: those the limit sends back to waiting.
    func excess(over limit: Int, addTime: (String) -> Date) -> [String] {
        guard limit > 0, downloadsInSlots > limit else { return [] }
        return downloading.subtracting(finishing).sorted { (addTime($0), $0) > (addTime($1), $1) }
            .prefix(downloadsInSlots - limit).map { $0 }
    }

    /// The next waiting task that `canStart` (tasks in the trash wait without starting), or nil.
    mutating func next(canStart: (String) -> Bool, entry: (String) -> WaitingQueue.Entry?) -> String? {
        // The closures hold copies of these two alone: a closure made of a method of `self`
        // would hold a copy of all of it, the queue too, and the take would then copy the
        // queue whole (a million entries at each start).
        let waiting = self.waiting, movedRanks = self.movedRanks
        let isWaiting = { (url: String) in waiting.contains(url) }
        let isCurrent = { (entry: WaitingQueue.Entry) in Self.isCurrent(entry, movedRanks: movedRanks) }
        if focus != nil {
            return focusQueue.takeOldest(1, isWaiting: isWaiting, isCurrent: isCurrent, canStart: canStart).first
        }
        if queue.count > 2 * waiting.count + 64 {  // mostly stale entries
            queue.rebuild(waiting.compactMap { entry($0).map(placed) })
        }
        return queue.takeOldest(1, isWaiting: isWaiting, isCurrent: isCurrent, canStart: canStart).first
    }

    /// Only `urls` start from now on (added to those already given); nil lifts the focus.
    mutating func focus(on urls: [String]?, entry: (String) -> WaitingQueue.Entry?) {
        guard let urls else {
            focus = nil
            focusQueue = WaitingQueue()
            return
        }
        var added: [String] = []
        for url in urls where focus?.contains(url) != true {
            if focus == nil { focus = [] }
            focus!.insert(url)
            added.append(url)
        }
        if focus == nil { focus = [] }
        for url in added where waiting.contains(url) {
            if let entry = entry(url).map(placed) { focusQueue.insert(entry) }
        }
    }

    /// Whether a task may start now (outside a focus, nothing may).
    func mayStart(_ url: String) -> Bool { focus?.contains(url) ?? true }
}
