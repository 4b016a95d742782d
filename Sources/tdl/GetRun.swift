import Foundation
import TDLCore
import TDLSession
import TDLTransfer

/// One `tdl get` that runs the session: adds what it was given, turns the loop until those
/// downloads end (and those another tdl hands it), then shuts down once and says how it went.
final class GetRun {
    let session: Session
    let manager: DownloadManager
    let loop: SessionLoop
    let sums: SumFiles
    /// Run every unfinished download of the session too (`--all`).
    let all: Bool
    /// The URLs this run reports on, as the session spells them.
    private(set) var requested: [String] = []
    /// What could not be added, said already: the run then ends with exit 2 (or 3).
    private(set) var rejected: [String]
    /// Requested downloads not ended yet: the loop turns while there are any.
    private var unsettled: Set<String> = []
    /// Requested downloads that ended since the last turn.
    private var ended: [String] = []
    private var shownNotes: [String: String] = [:]
    private var shownSaveError: String?
    /// Finished files that do not match a checksum given: a failed verification, exit 1.
    private var mismatched: Set<String> = []

    /// `problems`: what the input file could not give, said before the session opened.
    init(session: Session, sums: SumFiles, all: Bool, problems: [String]) {
        self.session = session
        manager = session.manager
        self.sums = sums
        self.all = all
        rejected = problems
        // Made before anything starts: SIGINT from now on ends the loop, not the process.
        loop = SessionLoop(manager: session.manager, control: session.control)
    }

    /// A task in the trash keeps its state but runs nowhere: nothing to wait for.
    private func isPending(_ url: String) -> Bool {
        manager.state(of: url)?.isActive == true && manager.task(url)?.deletedAt == nil
    }

    /// Adds `requests`, runs them (with the session's other unfinished ones under `--all`)
    /// until they end, and exits with the run's status.
    func run(_ requests: [DownloadRequest], quiet: Bool) -> Never {
        let result = manager.add(requests)
        let problems = (result.rejected + result.notApplied).map { "\(ScreenSafe.url($0.url)): \($0.reason)" }
        problems.forEach(warn)
        rejected = problems + rejected
        mismatched = Set(result.mismatched)
        var asked = result.added + result.existing
        if all { asked += manager.unfinishedList }
        var seen = Set<String>()
        requested = asked.filter { seen.insert($0).inserted }
        // Without --all nothing has started yet: the session was opened to run none of its tasks.
        if !all { manager.runOnly(requested) }  // as the session spells them
        // Tasks from an earlier run continue; a failed one is tried again.
        let toResume = requested.filter { manager.state(of: $0) != .finished && manager.state(of: $0) != .downloading }
        manager.resumeTasks(toResume, queueIfFull: true)
        // The new rows and their start, committed in one transaction before the first turn: a
        // session that cannot be written starts nothing.
        loop.saver?.durablePoint()

        let progress = ProgressPrinter(manager: manager, urls: requested, quiet: quiet)
        unsettled = Set(requested).filter(isPending)
        let observer = follow(Set(requested))
        loop.handle = { [unowned self] request in self.handle(request) }
        var lastFullCheck = Date()
        // A session that cannot be written ends the run (exit 5): nothing more may start, and
        // the shutdown stops what runs at its last durable checkpoint, for the next run.
        loop.run(while: { !self.unsettled.isEmpty && !self.manager.isUnsaved }) { _ in
            for url in ended where !isPending(url) { unsettled.remove(url) }
            progress.update(ended: ended)
            ended.removeAll()
            session.hooks?.takeProblems().forEach(warn)
            sayIfSaveFailed()
            if Date().timeIntervalSince(lastFullCheck) >= 1 {
                unsettled = unsettled.filter(isPending)  // a state changed without an event
                lastFullCheck = Date()
            }
        }
        manager.stopObserving(observer)
        progress.finish()
        shutDown()
        let code = status()
        // All the run keeps is saved and all it says is out: the libraries' exit handlers
        // (OpenSSL's frees every table it made, about 0.2 ms) would only free memory.
        fflush(nil)
        _exit(code)
    }

    /// Follows the manager's events instead of asking about every requested URL on every
    /// turn of the loop: with 500 files that was most of the loop's time.
    private func follow(_ wanted: Set<String>) -> Int {
        manager.observe { [unowned self] event in
            switch event {
            case .taskChanged(let url):
                // A mirror given up is said at once: the user may want to fix or drop it.
                if wanted.contains(url), let note = manager.task(url)?.note, note.hasPrefix("mirror "), shownNotes[url] != note {
                    shownNotes[url] = note
                    warn("\(ScreenSafe.url(url)): \(note)")
                }
            case .taskSucceeded(let url, _), .taskFailed(let url, _):
                if wanted.contains(url) { ended.append(url) }
            default:
                break
            }
        }
    }

    /// A request of another tdl: what it hands over runs here too, beside what this one was
    /// given, and is downloaded before this one exits.
    private func handle(_ request: ControlRequest) -> ControlReply {
        let handsOver = request.command == .add || request.command == .resume
        let urls = request.items.map { URLIdentity.normalized($0.url) }
        if !all && handsOver { manager.runOnly(urls) }
        let reply = ControlActions.perform(request, on: loop.saver!)
        if handsOver { unsettled.formUnion(urls.filter(isPending)) }
        return reply
    }

    /// Said when it starts, not only at the end: a long run may be saving nothing.
    private func sayIfSaveFailed() {
        if manager.lastError != shownSaveError {
            shownSaveError = manager.lastError
            if let shownSaveError { warn(shownSaveError) }
        }
    }

    /// The one way a run that opened the session ends: transfers stop at their last durable
    /// checkpoint, the session is saved with a clean end recorded, the socket closes, and how
    /// the last hooks ended is said before the run ends, not lost with it.
    func shutDown() {
        manager.shutdown()
        session.control?.shutDown()
        if session.hooks?.waitForRunning(upTo: 10) == false { warn("hooks still running are left to finish on their own") }
        session.hooks?.takeProblems().forEach(warn)
    }

    /// The exit status once shut down, with what went wrong said.
    private func status() -> Int32 {
        if loop.interruption != nil {
            warn("interrupted: run the same command again to continue")
            return ExitStatus.interrupted
        }
        // Files that arrived are whole either way; the session that should remember them is not.
        // What did not finish waits, with its recorded name and bytes, for the same command.
        if let saveError = manager.lastError {
            if saveError != shownSaveError { warn(saveError) }
            warn("nothing more was started: run the same command again once the session can be saved")
            return ExitStatus.session
        }
        var failed = false
        for url in requested {
            guard let task = manager.task(url) else { continue }
            if mismatched.contains(url) { failed = true }
            if task.state == .finished, !sums.lists.isEmpty, task.options.checksum == nil, !matchesSumFile(task) { failed = true }
            if task.state != .finished {
                failed = true
                let why = task.deletedAt != nil ? "moved to the trash" : task.failReason?.message ?? ListStateWord.word(task.state)
                warn("\(ScreenSafe.url(url)): \(why)\(Self.hint(for: task.failReason))")
            }
        }
        if !rejected.isEmpty && !failed { return ExitStatus.badInput }
        return failed || !rejected.isEmpty ? ExitStatus.downloadFailed : ExitStatus.ok
    }

    /// The server named the file otherwise than its URL: its own name is looked up now.
    /// False when the sum file's digest differs; a file it does not list is said, not failed.
    private func matchesSumFile(_ task: DownloadTask) -> Bool {
        let name = (task.filePath as NSString).lastPathComponent
        guard let checksum = sums.checksum(forFileName: name) else {
            warn("\(name): not verified (no sum file lists it)")
            return true
        }
        guard FileDigest.hex(ofFile: task.filePath, algorithm: checksum.algorithm) == checksum.hex else {
            warn("\(name): does not match the \(checksum.algorithm.rawValue) of the sum file")
            return false
        }
        return true
    }

    /// What the user can do about a failure that has a remedy on the command line.
    private static func hint(for reason: FailReason?) -> String {
        guard case .tls? = reason else { return "" }
        return " (--cacert FILE trusts the server's CA; --insecure skips the check)"
    }
}
