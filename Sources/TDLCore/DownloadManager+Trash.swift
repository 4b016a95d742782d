import Foundation

/// Deleting, the trash (`toDeleteList`), restoring and cleaning up.
extension DownloadManager {
    /// Moves tasks to the trash, `toDeleteList` (newest first). Returns each deleted task's
    /// former place.
    @discardableResult
    public func deleteTasks(_ urls: [String]) -> [String: ListIndex] {
        deleteTasks(urls, intoTrash: true)
    }

    /// Forgets tasks for good, from the list or the trash: their records, their part files,
    /// never a finished file. Returns those forgotten.
    @discardableResult
    public func purgeTasks(_ urls: [String]) -> [String] {
        let trashed = urls.filter(isInTrash)
        let fromTrash = cleanupToDeleteTasks(trashed)
        let fromList = deleteTasks(urls.filter { tasks[$0] != nil && !isInTrash($0) }, intoTrash: false)
        return urls.filter { fromTrash[$0] != nil || fromList[$0] != nil }
    }

    private func deleteTasks(_ urls: [String], intoTrash: Bool) -> [String: ListIndex] {
        // A download whose bytes are all in is being made durable and renamed: it ends
        // finished in a moment, and is deleted after that.
        var urls = urls.filter { !scheduler.finishing.contains($0) }
        let purging = intoTrash ? [] : urls
        if !intoTrash {
            // Its files go first: one that cannot be deleted keeps its task where it is.
            let undeletable = beginPurge(urls)
            urls.removeAll { undeletable.contains($0) }
        }
        defer { endPurge(purging) }
        let removed = list.remove(urls)
        guard !removed.isEmpty else { return [:] }
        if intoTrash {
            // A microsecond apart, so the order survives a reload: the last deleted is the newest.
            let now = clock()
            for (n, item) in removed.enumerated() {
                let url = item.url
                // Nothing in the trash runs or waits for a slot; see the table for its state.
                move([url], .trash)
                tasks[url]?.deletedAt = now.addingTimeInterval(Double(n) * 1e-6)
                trackState(url, .stopped)
                markDirty(url)
            }
            toDeleteList.insert(contentsOf: removed.reversed().map(\.url), at: 0)
        } else {
            eraseTasks(removed.map(\.url))
        }
        for (n, item) in removed.enumerated() {
            emit(.deleted(url: item.url, from: item.from, count: removed.count, nth: n + 1))
        }
        emit(.listChanged)
        finishBatch()
        return Dictionary(removed.map { ($0.url, $0.from) }, uniquingKeysWith: { a, _ in a })
    }

    /// Forgets tasks for good: files (unless a kept finished file), records, and their places.
    func eraseTasks(_ urls: [String]) {
        move(urls, .purge)
    }

    /// Forgets a task's record and place; its files stay.
    func eraseRecord(_ url: String) {
        claims?.set(url, nil)
        trackState(url, .stopped)
        tasks[url] = nil
        live.forget(url)
        saves.taskRemoved(url)
    }

    /// Deletes tasks in the trash permanently, with their part files (a finished file stays).
    @discardableResult
    public func cleanupToDeleteTasks(_ urls: [String]) -> [String: Int] {
        var result: [String: Int] = [:]
        // Their files go first: one that cannot be deleted keeps its task in the trash.
        let trashed = urls.filter(isInTrash)
        let undeletable = beginPurge(trashed)
        defer { endPurge(trashed) }
        let wanted = Set(trashed).subtracting(undeletable)
        let positions = toDeleteList.enumerated().filter { wanted.contains($0.element) }
        for (position, url) in positions { result[url] = position }
        eraseTasks(positions.map(\.element))
        toDeleteList.removeAll { wanted.contains($0) }
        for (n, (position, url)) in positions.enumerated() {
            emit(.deleted(url: url, from: ListIndex(section: 0, row: position), count: positions.count, nth: n + 1))
        }
        if !positions.isEmpty { emit(.listChanged) }
        return result
    }

    /// Puts trashed tasks back: where the sort puts them, or at `location` in manual mode.
    /// Returns their new places.
    @discardableResult
    public func restoreToDeleteTasks(_ urls: [String], toLocation location: ListIndex = ListIndex(section: 0, row: 0)) -> [ListIndex] {
        // Keep the order the caller gave, skipping anything not in the trash.
        var wanted = Set<String>()
        var restored: [String] = []
        for url in urls where tasks[url]?.deletedAt != nil && rule(for: url, .restore) != nil && wanted.insert(url).inserted {
            restored.append(url)
        }
        guard !restored.isEmpty else { return [] }
        toDeleteList.removeAll { wanted.contains($0) }
        for url in restored {
            tasks[url]?.deletedAt = nil
            dropTrashNotes(of: url)
            if let state = tasks[url]?.state { trackState(url, state) }
            markDirty(url)
        }
        place(restored, atManualIndex: location)
        emit(.listChanged)
        finishBatch()
        return restored.compactMap { indexPath(of: $0) }
    }
}
