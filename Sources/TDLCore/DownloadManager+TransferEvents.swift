import Foundation

/// What the engine reports, turned into the task's record and lifecycle moves.
extension DownloadManager {
    func handle(_ event: TransferEvent) {
        switch event {
        case let .resolved(url, fileName, size, mimeType, etag, lastModified, finalURL, commitNow):
            guard var task = tasks[url] else { return }
            // The same as the task in memory: nothing new to write. This stands for the session
            // because every change to `tasks[url]` is either committed or marked dirty (and then
            // written by the next flush, which `commitNow` asks for here: a change of what this
            // report carries never waits, `markDirty(_:mayWait:)`). A name reported ahead
            // is marked dirty, so it is committed even if its file is never made (the download
            // stopped in between): the name then stays the task's, with no file under it yet.
            let same = task.fileName == fileName && task.size == size && task.mimeType == mimeType && task.etag == etag
                && task.lastModified == lastModified && task.finalURL == (finalURL ?? url)
            // The type sort also reads the MIME type.
            let resort = placeDepends(nameChanged: task.fileName != fileName || task.mimeType != mimeType,
                                      sizeChanged: task.size != size)
            task.fileName = fileName
            task.size = size
            task.mimeType = mimeType
            task.etag = etag
            task.lastModified = lastModified
            // A final URL marks the part file under this name as the task's own.
            task.finalURL = finalURL ?? url
            tasks[url] = task
            live.retrying[url] = nil
            if !same { markDirty(url) }
            // Recorded before the engine creates or renames a file under this name, so a run
            // after a kill at any moment recognises the file as this task's (no "name (1)").
            // The commit writes every change waiting but a download's start or end, the names
            // reported without a commit too.
            if commitNow { flushUrgent() }
            if resort && task.deletedAt == nil { reposition(url) }
            emit(.taskChanged(url))
        case let .checkpoint(url, segments):
            guard tasks[url] != nil, !saves.progressReset.contains(url) else { return }
            tasks[url]?.segments = segments
            tasks[url]?.received = segments.reduce(0) { $0 + $1.done }
            saves.progressed(url, segments)
            holdStillIfUnsaved(url)
        case let .note(url, text, retries):
            guard tasks[url] != nil else { return }
            tasks[url]?.note = text
            tasks[url]?.retries = retries
            markDirty(url)
            emit(.taskChanged(url))
        case let .retrying(url, reason, attempt, limit):
            guard let task = tasks[url] else { return }
            tasks[url]?.note = "\(reason.message): retry \(attempt) of \(limit)"
            tasks[url]?.retries = attempt
            // Bytes now, not at the last tick: those in between must not count as the retry working.
            let received = engine?.liveProgress()[url] ?? task.received
            live.retrying[url] = RetryStatus(attempt: attempt, limit: limit, reason: reason, receivedAtRetry: received)
            markDirty(url)
            emit(.taskChanged(url))
        case let .finishing(url, started):
            move([url], started ? .allBytesIn : .checkFailedRetrying)
            if started { finishBatch() }
        case let .finished(url, path, size):
            guard let before = tasks[url], rule(for: url, .transferFinished) != nil else { return }
            tasks[url]?.completedPath = path
            tasks[url]?.fileName = LocalPath.lastComponent(of: path)
            tasks[url]?.size = size
            tasks[url]?.received = size
            tasks[url]?.segments = [Segment(start: 0, end: size, done: size)]
            // The end of a download may wait for the next save, a change of its name or size not.
            if tasks[url]?.fileName != before.fileName || before.size != size { markDirty(url) }
            move([url], .transferFinished)
            if before.deletedAt == nil,
               placeDepends(nameChanged: before.fileName != tasks[url]?.fileName, sizeChanged: before.size != size) {
                reposition(url)
            }
            emit(.taskSucceeded(url: url, path: path))
            finishBatch()
        case let .failed(url, reason, segments):
            if reason == .notRecorded { return holdStillAfterRefusal(url, segments: segments) }
            guard rule(for: url, .transferFailed) != nil else { return }
            tasks[url]?.segments = segments
            tasks[url]?.received = segments.reduce(0) { $0 + $1.done }
            move([url], .transferFailed, reason: reason)
            emit(.taskFailed(url: url, reason: reason))
            finishBatch()
        }
    }
}
