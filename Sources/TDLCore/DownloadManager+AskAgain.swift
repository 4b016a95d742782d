import Foundation

/// Asking for a URL the session already has (`tdl get`, `tdl add`, `a` on the screen, another
/// tdl through the socket). The rules, as a user expects them:
/// - a task in the trash comes back, in the state it had;
/// - new options apply to it: a checksum replaces the old one (a failed check is not sticky),
///   a file name renames what is on disk (never over another file), a folder applies while
///   nothing is downloaded yet, a rate limit at once, a connection count and what the requests
///   carry (headers, agent, referer, cookies, mirrors) from the next start;
///   what cannot apply is named, and the command fails;
/// - a finished file is verified, not trusted: missing or of another size, it is downloaded
///   again; a checksum given with the ask that the file does not match is refused and said,
///   and the file stays finished (a document naming a wrong hash never deletes a user's file;
///   trashing or restarting it is the user's own action).
/// A download running meanwhile is stopped for the change and goes on from the bytes it has.
extension DownloadManager {
    struct AskAgainOutcome {
        var done: String
        var notApplied: String?
        var mismatched = false
    }

    func askAgain(_ url: String, options: DownloadOptions) -> AskAgainOutcome {
        let (directory, fileName) = (options.directory, options.fileName)
        var checksum = options.checksum
        var mismatched = false
        var done: [String] = []
        var problems: [String] = []
        if isInTrash(url) {
            restoreToDeleteTasks([url])
            done.append("back from the trash")
        }
        guard let task = tasks[url] else { return AskAgainOutcome(done: "no longer in the list", notApplied: nil) }
        if let given = checksum, given != task.options.checksum, let why = whyFinishedFileDoesNotMatch(url, given) {
            problems.append(why)
            checksum = nil
            mismatched = true
        }
        let changes = checksum.map { $0 != task.options.checksum } == true || fileName.map { $0 != task.fileName } == true
            || directory.map { $0 != task.directory } == true
        if changes && scheduler.finishing.contains(url) {
            // Its file is being made durable and renamed right now: no option can change under it.
            return AskAgainOutcome(done: "finishing", notApplied: "it is finishing; ask again in a moment")
        }
        // A running download takes new options by stopping and going on from its bytes.
        let wasDownloading = changes && !move([url], .optionsChanging).isEmpty
        if let checksum, tasks[url]?.options.checksum != checksum {
            tasks[url]?.options.checksum = checksum
            markDirty(url)
        }
        if let limit = options.rateLimit { setRateLimit(limit, forTasks: [url]) }
        if let queue = options.queue, tasks[url]?.options.queue != queue {  // the new queue from the next start
            setQueue(queue, forTasks: [url])
        }
        if let connections = options.connections, tasks[url]?.options.connections != connections {
            tasks[url]?.options.connections = connections
            markDirty(url)
        }
        if let retries = options.checksumRetries, tasks[url]?.options.checksumRetries != retries {
            tasks[url]?.options.checksumRetries = retries
            markDirty(url)
        }
        if let size = options.expectedSize, tasks[url]?.options.expectedSize != size {
            tasks[url]?.options.expectedSize = size
            markDirty(url)
        }
        // What the requests carry (headers, agent, cookies, mirrors) applies from the next start.
        let current = tasks[url]?.options ?? task.options
        let given = options.filling(from: current)
        let request = DownloadOptions(headers: options.headers ?? current.headers, userAgent: given.userAgent,
                                      referer: given.referer, cookieFile: given.cookieFile,
                                      saveCookies: given.saveCookies, mirrors: given.mirrors)
        if request.headers != current.headers || request.userAgent != current.userAgent
            || request.referer != current.referer || request.cookieFile != current.cookieFile
            || request.saveCookies != current.saveCookies || request.mirrors != current.mirrors {
            tasks[url]?.options.headers = request.headers
            tasks[url]?.options.userAgent = request.userAgent
            tasks[url]?.options.referer = request.referer
            tasks[url]?.options.cookieFile = request.cookieFile
            tasks[url]?.options.saveCookies = request.saveCookies
            tasks[url]?.options.mirrors = request.mirrors
            markDirty(url)
        }
        if let fileName, fileName != tasks[url]?.fileName {
            if let problem = rename(url, to: fileName) { problems.append(problem) } else { done.append("renamed to \(fileName)") }
        }
        if let directory, let task = tasks[url], directory != task.directory {
            if task.received == 0 && task.state != .finished && !(task.ownPartPath.map(FileManager.default.fileExists) ?? false) {
                tasks[url]?.directory = directory
                tasks[url]?.options.directory = directory
                markDirty(url)
            } else {
                problems.append("it is already downloaded (or partly) in \(task.directory); not moved")
            }
        }
        if tasks[url]?.state == .finished, let why = whyFinishedFileIsNotTheDownload(url) {
            move([url], .askedAgainFileWrong)  // saved before the file goes
            done.append("downloads again: \(why)")
        } else if wasDownloading && queueMayStart(url) {
            move([url], .start)
        }
        if done.isEmpty { done.append(tasks[url]?.state == .finished ? "already downloaded" : "already in the list") }
        return AskAgainOutcome(done: done.joined(separator: ", "), notApplied: problems.isEmpty ? nil : problems.joined(separator: "; "),
                               mismatched: mismatched)
    }

    /// Why a finished task's file, there and whole, does not match a checksum given for it;
    /// nil when it matches, or when there is no such file to keep.
    func whyFinishedFileDoesNotMatch(_ url: String, _ checksum: Checksum) -> String? {
        guard let task = tasks[url], task.state == .finished, let fileDigest,
              FileManager.default.fileExists(atPath: task.filePath),
              whyFinishedFileIsNotTheDownload(url) == nil,
              fileDigest(task.filePath, checksum.algorithm) != checksum.hex else { return nil }
        return "checksum error: the finished file \(task.fileName) does not match the \(checksum.algorithm.rawValue) given;"
            + " kept as it is (trash or restart it to download it again)"
    }

    /// Why a finished task's file is not what it downloaded; nil when it is.
    func whyFinishedFileIsNotTheDownload(_ url: String) -> String? {
        guard let task = tasks[url] else { return nil }
        guard let attributes = try? FileManager.default.attributesOfItem(atPath: task.filePath) else {
            return "the file is missing"
        }
        let size = (attributes[.size] as? NSNumber)?.int64Value
        if let expected = task.size, size != expected { return "the file on disk has another size" }
        if let checksum = task.options.checksum, let fileDigest, fileDigest(task.filePath, checksum.algorithm) != checksum.hex {
            return "the file on disk does not match \(checksum.algorithm.rawValue)"
        }
        return nil
    }

    /// Gives a task the file name the user chose, renaming its finished or part file on disk
    /// (never over another file). The new name is recorded before the file moves. Returns why
    /// it could not, or nil.
    func rename(_ url: String, to fileName: String) -> String? {
        guard let task = tasks[url] else { return nil }
        let target = (task.directory as NSString).appendingPathComponent(fileName)
        // Only the task's own file moves: a part under a name it never recorded is another task's.
        let (from, to): (String?, String) = task.state == .finished ? (task.filePath, target) : (task.ownPartPath, target + ".part")
        let moving = from.map(FileManager.default.fileExists) ?? false
        if isNameTaken(target, except: url)
            || moving && (FileManager.default.fileExists(atPath: target) || FileManager.default.fileExists(atPath: target + ".part")) {
            return "cannot rename to \(fileName): a file of that name exists"
        }
        tasks[url]?.fileName = fileName
        tasks[url]?.options.fileName = fileName
        if task.state == .finished { tasks[url]?.completedPath = target }
        markDirty(url)
        if moving, let from {
            flush()
            if let problem = lastError {
                tasks[url] = task
                markDirty(url)
                return "cannot rename to \(fileName): \(problem)"
            }
            do {
                try Self.moveWithoutReplacing(from: from, to: to)
            } catch {
                tasks[url] = task
                markDirty(url)
                flush()
                return "cannot rename to \(fileName): \(error.localizedDescription)"
            }
        }
        if task.deletedAt == nil, placeDepends(nameChanged: true, sizeChanged: false) { reposition(url) }
        emit(.taskChanged(url))
        return nil
    }
}
