import Foundation

/// The order in which waiting downloads start: by add time, unless one was moved (aria2's
/// changePosition). Moves last for this run; a relaunch starts in add-time order again.
extension DownloadManager {
    /// A task's place in the start order: among waiting tasks the lowest starts first (the URL
    /// breaks ties). Nil for a URL the manager does not know.
    public func startRank(of url: String) -> Double? {
        tasks[url].map { scheduler.rank(of: url, addTime: $0.addTime) }
    }

    /// Puts `url` between `previous` and `next` in the start order (nil: no task on that side).
    /// The caller names the neighbours it sees in its own queue (aria2's waiting and paused
    /// downloads), so a move is one new rank, not a renumbering of every task.
    public func moveInStartOrder(_ url: String, after previous: String?, before next: String?) {
        guard tasks[url] != nil, previous != url, next != url else { return }
        let low = previous.flatMap(startRank), high = next.flatMap(startRank)
        let rank: Double
        switch (low, high) {
        case (nil, nil): return
        case (let low?, nil): rank = low + 1
        case (nil, let high?): rank = high - 1
        case (let low?, let high?):
            let middle = low + (high - low) / 2
            guard low < middle && middle < high else {
                renumberStartOrder(placing: url, after: previous!)
                return
            }
            rank = middle
        }
        scheduler.setRanks([url: rank], entry: waitingEntry)
        emit(.taskChanged(url))
    }

    /// Gives every task a whole-number rank in its present order, with `url` right after
    /// `previous`: when two neighbours' ranks have no room left between them (equal add
    /// times, or many moves into one gap).
    private func renumberStartOrder(placing url: String, after previous: String) {
        var order = tasks.values.lazy.filter { $0.url != url }
            .map { (rank: self.scheduler.rank(of: $0.url, addTime: $0.addTime), url: $0.url) }
            .sorted { ($0.rank, $0.url) < ($1.rank, $1.url) }
            .map(\.url)
        let at = order.firstIndex(of: previous).map { $0 + 1 } ?? order.count
        order.insert(url, at: at)
        var ranks: [String: Double] = [:]
        ranks.reserveCapacity(order.count)
        for (i, task) in order.enumerated() { ranks[task] = Double(i) }
        scheduler.setRanks(ranks, entry: waitingEntry)
        emit(.taskChanged(url))
    }
}
