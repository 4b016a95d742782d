import Foundation

/// Waiting tasks, lowest start rank first (add time unless moved by hand; the URL breaks
/// ties), kept as a binary heap: a finished download picks the next one in O(log n) instead of
/// a pass over every waiting task, which was a few percent of the event loop's time for 500
/// small files.
///
/// The manager's waiting set stays the truth. An entry goes stale when its task stops waiting
/// or is moved, and is dropped when it reaches the top; a task that waits again or moves gets
/// a new entry.
struct WaitingQueue {
    struct Entry: Comparable {
        let rank: Double
        let url: String

        init(rank: Double, url: String) {
            self.rank = rank
            self.url = url
        }

        init(addTime: Date, url: String) {
            self.init(rank: addTime.timeIntervalSinceReferenceDate, url: url)
        }

        static func < (lhs: Entry, rhs: Entry) -> Bool { (lhs.rank, lhs.url) < (rhs.rank, rhs.url) }
    }

    private var heap: [Entry] = []

    var count: Int { heap.count }

    mutating func insert(_ entry: Entry) {
        heap.append(entry)
        var child = heap.count - 1
        while child > 0 {
            let parent = (child - 1) / 2
            guard heap[child] < heap[parent] else { break }
            heap.swapAt(child, parent)
            child = parent
        }
    }

    /// Up to `count` URLs, lowest rank first, for which `canStart` holds. Entries whose task no
    /// longer waits, or that `isCurrent` says were replaced by a move, are dropped; waiting
    /// tasks that cannot start now (in the trash) stay.
    mutating func takeOldest(_ count: Int, isWaiting: (String) -> Bool, isCurrent: (Entry) -> Bool = { _ in true },
                             canStart: (String) -> Bool) -> [String] {
        var taken: [String] = []
        var kept: [Entry] = []
        var seen = Set<String>()
        while taken.count < count, let top = popMin() {
            guard isWaiting(top.url), isCurrent(top), seen.insert(top.url).inserted else { continue }
            if canStart(top.url) { taken.append(top.url) } else { kept.append(top) }
        }
        for entry in kept { insert(entry) }
        return taken
    }

    /// Rebuilds the heap from the tasks that wait now, dropping every stale entry.
    mutating func rebuild(_ entries: [Entry]) {
        heap = entries.sorted()  // a sorted array is a valid heap
    }

    private mutating func popMin() -> Entry? {
        guard !heap.isEmpty else { return nil }
        heap.swapAt(0, heap.count - 1)
        let top = heap.removeLast()
        var parent = 0
        while true {
            let left = 2 * parent + 1, right = left + 1
            var smallest = parent
            if left < heap.count && heap[left] < heap[smallest] { smallest = left }
            if right < heap.count && heap[right] < heap[smallest] { smallest = right }
            if smallest == parent { break }
            heap.swapAt(parent, smallest)
            parent = smallest
        }
        return top
    }
}
