import Foundation

/// Picks which waiting tasks start next: the oldest by add time (URL breaks ties).
enum Scheduler {
    /// The `count` oldest of `candidates` in add-time order. A partial selection: with a few
    /// free slots and 100,000 waiting tasks this is one pass, not a full sort.
    static func oldest(_ count: Int, of candidates: Set<String>, tasks: [String: DownloadTask]) -> [String] {
        guard count > 0 else { return [] }
        // Fields are read in place: `tasks[url]` would copy the whole task for two fields.
        let all = tasks.values
        func key(_ url: String) -> (Date, String)? {
            guard let index = tasks.index(forKey: url), all[index].deletedAt == nil else { return nil }
            return (all[index].addTime, url)
        }
        if count >= candidates.count || count > 64 {
            return candidates.compactMap { url in key(url) }.sorted { $0 < $1 }.prefix(count).map(\.1)
        }
        // Keep the best `count` in a small sorted buffer.
        var best: [(Date, String)] = []
        best.reserveCapacity(count + 1)
        for url in candidates {
            guard let candidate = key(url) else { continue }
            if best.count == count, let last = best.last, !(candidate < last) { continue }
            let position = best.firstIndex { candidate < $0 } ?? best.count
            best.insert(candidate, at: position)
            if best.count > count { best.removeLast() }
        }
        return best.map(\.1)
    }
}
