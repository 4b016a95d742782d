import Foundation

/// Changing tasks' states by URL: each names an event of the lifecycle table.
extension DownloadManager {
    /// A task's place in the waiting queue by add time (nil for a URL the manager does not
    /// know); the scheduler puts a task moved by hand where it was moved.
    func waitingEntry(_ url: String) -> WaitingQueue.Entry? {
        tasks[url].map { WaitingQueue.Entry(addTime: $0.addTime, url: url) }
    }

    func trackState(_ url: String, _ state: TaskState) {
        scheduler.track(url, state) { waitingEntry(url) }
    }

    func setState(_ url: String, _ state: TaskState, reason: FailReason? = nil, mayWait: Bool = false) {
        guard tasks[url] != nil else { return }
        tasks[url]?.state = state
        tasks[url]?.failReason = state == .failed ? reason : nil
        trackState(url, state)
        live.retrying[url] = nil
        if state != .downloading { live.forget(url) }
        markDirty(url, mayWait: mayWait)
        emit(.taskChanged(url))
    }

    func isInTrash(_ url: String) -> Bool { tasks[url]?.deletedAt != nil }

    /// Pauses downloading or waiting tasks; returns those that changed. A download whose bytes
    /// are all in is finishing (made durable and renamed): it is not paused, nor stopped, and
    /// ends finished in a moment; a restart after such a pause would pull its file from under it.
    @discardableResult
    public func pauseTasks(_ urls: [String]) -> [String] {
        let changed = move(urls, .pause)
        finishBatch()
        return changed
    }

    /// Resumes paused, stopped or failed tasks; one in the trash comes back from it first
    /// (resuming is asking for it again). SDE's rule: only while under the limit; with
    /// `queueIfFull` the rest wait for a slot instead. Without an engine (no tdl downloads
    /// this session) they wait for the next one that does.
    @discardableResult
    public func resumeTasks(_ urls: [String], queueIfFull: Bool = false) -> [String] {
        var changed: [String] = []
        restoreToDeleteTasks(urls.filter { isInTrash($0) && tasks[$0]?.state != .finished })
        for url in urls {
            if engine != nil && hasFreeSlot && queueMayStart(url) {  // a closed queue's download waits
                changed += move([url], .start)
            } else if engine == nil || queueIfFull || isUnsaved || !queueMayStart(url) {
                changed += move([url], .queue)
            }
        }
        finishBatch()
        return changed
    }

    /// Disconnects downloading tasks and cancels waiting ones; returns those that changed.
    @discardableResult
    public func stopTasks(_ urls: [String]) -> [String] {
        let changed = move(urls, .stop)
        finishBatch()
        return changed
    }

    /// Deletes what was downloaded and starts again from zero.
    @discardableResult
    public func restartTasks(_ urls: [String]) -> [String] {
        // SDE restarts finished or stopped tasks (paused and failed ones too); an active
        // transfer would race the file deletion.
        let changed = move(urls, .restart)
        finishBatch()
        return changed
    }

    /// Deletes the files of tasks but keeps their records; returns those whose files went.
    @discardableResult
    public func deleteFilesOfTasks(_ urls: [String]) -> [String] {
        // SDE counts a pending task too: a stopped transfer changed in any case.
        let withFiles = Set(filesToDelete(of: urls.filter { tasks[$0] != nil }, keepFinished: false).map(\.url))
        let changed = move(urls.filter { withFiles.contains($0) || tasks[$0]?.state.isActive == true }, .deleteFiles)
        finishBatch()
        return changed
    }

    func resetProgress(_ url: String) {
        tasks[url]?.segments = []
        tasks[url]?.received = 0
        tasks[url]?.completedPath = nil
        tasks[url]?.etag = nil
        tasks[url]?.lastModified = nil
        tasks[url]?.retries = 0
        tasks[url]?.note = nil
        saves.resetProgress(url)
    }

    // MARK: - All tasks

    public func resumeAllTasks(underLimit: Bool = true) {
        if !underLimit { runLimits.maxDownloadCount = nil; settings.maxDownloadCount = 0; markSettingsDirty() }
        move(listedTasksByAddTime().map(\.url), .queue)
        finishBatch()
    }

    public func pauseAllTasks() { pauseTasks(Array(scheduler.downloading.union(scheduler.waiting))) }

    func listedTasksByAddTime() -> [DownloadTask] {
        tasks.values.filter { $0.deletedAt == nil }.sorted { ($0.addTime, $0.url) < ($1.addTime, $1.url) }
    }
}
