import Foundation

/// Adding downloads, in one batch or a batch given in parts.
extension DownloadManager {
    /// Adds URLs with the same options (repeated and invalid ones are filtered and reported).
    /// New tasks land where the current sort puts them; in manual mode at `manualIndex`
    /// (default: top of section 0).
    @discardableResult
    public func add(_ urls: [String], options: DownloadOptions = DownloadOptions(), at manualIndex: ListIndex? = nil) -> AddResult {
        add(urls.map { DownloadRequest(url: $0, options: options) }, at: manualIndex)
    }

    /// Adds downloads, each with its own options, in one batch: the list places them and the
    /// scheduler starts them once. A URL the session has already is asked for again (see
    /// `askAgain`): its new options apply to it.
    @discardableResult
    public func add(_ requests: [DownloadRequest], at manualIndex: ListIndex? = nil) -> AddResult {
        var batch = AddBatch()
        return add(requests, at: manualIndex, batch: &batch)
    }

    /// Adds one part of a batch given in several calls (see `AddBatch`).
    @discardableResult
    public func add(_ requests: [DownloadRequest], at manualIndex: ListIndex? = nil, batch: inout AddBatch) -> AddResult {
        var result = AddResult()
        // Grown by doubling over a batch's later parts: reserving each part's count again
        // would hash every URL seen so far once per part.
        if batch.seen.capacity < batch.seen.count + requests.count {
            batch.seen.reserveCapacity(max(batch.seen.count + requests.count, 2 * batch.seen.capacity))
        }
        let now = batch.lastAddTime.map { max(clock(), $0.addingTimeInterval(1e-6)) } ?? clock()
        var newTasks: [DownloadTask] = []
        newTasks.reserveCapacity(requests.count)
        // A batch's downloads mostly share a folder: it is checked once, as the check follows
        // its symbolic links (a dozen system calls; see docs/measurements.md).
        var folderProblems: [String: String?] = [:]
        var sharedOptions: SharedOptions?
        for request in requests {
            let url = URLIdentity.normalized(String(request.url.trimmingWhitespace()))
            var options = request.options
            if let problem = URLCheck.problem(with: url) {
                result.rejected.append(.init(url: url, reason: problem))
                continue
            }
            if let refusal = unknownQueue(options.queue) {
                result.rejected.append(.init(url: url, reason: refusal))
                continue
            }
            if let refusal = placeInSubfolder(&options) {
                result.rejected.append(.init(url: url, reason: refusal))
                continue
            }
            if let name = options.fileName {
                // A name from a user or a script is as untrusted as a server's.
                guard let safe = FileNameSanitizer.sanitize(name) else {
                    result.rejected.append(.init(url: url, reason: "the file name given has nothing usable in it"))
                    continue
                }
                options.fileName = safe
            }
            let fileName = options.fileName ?? URLCheck.suggestedFileName(for: url)
            let directory = options.directory ?? folder(forNewFile: fileName)
            if folderProblems[directory] == nil { folderProblems[directory] = .some(folderProblem(directory)) }
            if let problem = folderProblems[directory]! {
                result.rejected.append(.init(url: url, reason: problem))
                continue
            }
            if !batch.seen.insert(url).inserted {
                result.existing.append(url)
                result.duplicates.append(.init(url: url, reason: "repeated in this batch"))
                continue
            }
            if tasks[url] != nil {
                result.existing.append(url)
                let outcome = askAgain(url, options: options)
                result.duplicates.append(.init(url: url, reason: outcome.done))
                if let problem = outcome.notApplied { result.notApplied.append(.init(url: url, reason: problem)) }
                if outcome.mismatched { result.mismatched.append(url) }
                continue
            }
            var task = DownloadTask(url: url, fileName: fileName,
                                    directory: directory,
                                    // A microsecond apart: the batch keeps its order in add-time order.
                                    addTime: now.addingTimeInterval(Double(newTasks.count) * 1e-6),
                                    state: downloadNewFileImmediately ? .waiting : .stopped)
            // A batch's tasks mostly have the same options: one copy serves them all.
            task.setOptions(withRequestDefaults(options).kept, sharing: &sharedOptions)
            if let previous = newTasks.last { task.shareExtras(ifEqualTo: previous) }
            newTasks.append(task)
            result.added.append(url)
        }
        guard let last = newTasks.last else {
            finishBatch()
            return result
        }
        batch.lastAddTime = last.addTime
        tasks.reserveCapacity(tasks.count + newTasks.count)
        saves.reserveCapacity(newTasks.count)
        scheduler.reserveCapacity(newTasks.count)
        for task in newTasks {
            tasks[task.url] = task
            trackState(task.url, task.state)
            markDirty(task.url)
        }
        place(newTasks.map(\.url), atManualIndex: manualIndex ?? ListIndex(section: 0, row: 0))
        emit(.listChanged)
        finishBatch()
        return result
    }
}
