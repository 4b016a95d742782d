import Foundation
import TDLCore
import TDLSession

/// `tdl add -i FILE` of a file longer than one part (see `InputFileParts`) with no tdl
/// running the session: each part is added through a manager holding only its tasks and
/// committed before the next is read, so a million URLs need the memory of one part, not of
/// a million tasks. The parts are one batch (`AddBatch`): a URL repeated in a later part is
/// "repeated in this batch", and the list keeps the file's order. A crash leaves the parts
/// committed before it added; the same command then finds them in the session and adds the
/// rest. The reply is the one a single add prints. Into an empty session a part is committed
/// on a second thread while the next is added (`overlapped`).
///
/// When a tdl runs the session, the whole file goes to it in one request. A list arranged by
/// hand takes the whole file at once too: a part's tasks would go on top of the list, above
/// the earlier parts'.
enum AddInParts {
    /// Adds `given` and the parts of `input` after it; `fill` gives a part the command line's
    /// options. `sawProblems`: lines of the input already reported as unusable.
    static func run(_ given: [DownloadRequest], then input: InputFileParts, sawProblems: Bool,
                    fill: (inout [DownloadRequest]) -> Void, options: GlobalOptions) throws -> Never {
        var sawProblems = sawProblems
        func rest() throws -> [DownloadRequest] {
            let rest = try input.rest()
            rest.problems.forEach(warn)
            sawProblems = sawProblems || !rest.problems.isEmpty
            return rest.entries
        }
        func atOnce(_ reply: ControlReply) -> Never {
            var reply = reply
            if sawProblems && reply.status == ExitStatus.ok { reply.status = ExitStatus.badInput }
            SessionRoute.finish(reply)
        }
        let home = Paths.home(options.home)
        let deadline = Date().addingTimeInterval(3)
        var session: Session?
        while session == nil {
            if ControlClient.isListening(home: home, session: options.session) {
                var all = given + (try rest())
                fill(&all)
                atOnce(try SessionRoute.run(ControlRequest(command: .add, items: consume all), options: options))
            }
            do {
                session = try Session(options: options, downloading: false, locking: true, restoring: false, onlyTasks: [])
            } catch CLIError.sessionInUse(let name) {
                // A tdl that is starting holds the lock a moment before it listens: ask again.
                if Date() > deadline { throw CLIError.sessionInUse(name) }
                usleep(100_000)
            }
        }
        let opened = session!
        opened.knowConfigQueues()
        if let notice = opened.notice { warn(notice) }
        guard opened.loadedRowsOnly, !opened.manager.arrangement.isManual else {
            var all = given + (try rest())
            fill(&all)
            let manager = opened.loadedRowsOnly ? try opened.manager(ofRows: all.map(\.url)) : opened.manager
            let reply = ControlActions.perform(ControlRequest(command: .add, items: consume all), on: SessionSaver(manager))
            opened.endWithoutFreeing()
            atOnce(reply)
        }
        var reply = PartsReply()
        var batch = AddBatch()
        // A line of a URL is rarely shorter than this many bytes: room for the whole file at
        // once, within a bound (a file of short lines grows it as it goes).
        var status = stat()
        if input.path != "-", stat(input.path, &status) == 0 {
            batch.expect(min(Int(status.st_size) / 48, 4_000_000))
        }
        // Into an empty session, a part's URL is new or named by an earlier part (repeated in
        // the batch, which the manager knows): no row needs reading, and reading a million
        // URLs in a table the earlier parts grew was a twentieth of the add.
        if try opened.holdsNoTask() {
            try overlapped(given, input: input, opened: opened, fill: fill, batch: &batch, reply: &reply, sawProblems: &sawProblems)
            opened.endWithoutFreeing()
            reply.finish(badInput: sawProblems)
        }
        // A session with tasks: each part reads the rows of its URLs, then is committed.
        var recovery = opened.recovery
        var committed = false
        var part = given
        while true {
            fill(&part)
            if !part.isEmpty {
                guard let manager = try partManager(opened, rows: part.map(\.url), recovery: &recovery,
                                                    afterAdding: committed, reply: &reply) else { break }
                let result = manager.add(part, batch: &batch)
                part = []
                // Each part is committed before its lines are said and the next part is read.
                let saveError = SessionSaver(manager).durablePoint()
                committed = true
                reply.take(result, saveError: saveError)
                // What was not saved is not followed by more: the command is run again.
                if saveError != nil { break }
            }
            let read: (entries: [DownloadRequest], problems: [String])?
            do {
                read = try input.next()
            } catch let error as CLIError {
                // A line that cannot be read ends the add; what was committed is said first.
                reply.fail(error.description, status: error.exitCode)
                break
            }
            guard let next = read else { break }
            next.problems.forEach(warn)
            sawProblems = sawProblems || !next.problems.isEmpty
            part = next.entries
        }
        opened.endWithoutFreeing()
        reply.finish(badInput: sawProblems)
    }
}

extension AddInParts {
    /// The manager a part is added through. Nil when the session file was found damaged and
    /// moved aside after parts were added (said in `reply`): those parts went with the damaged
    /// file, and the rest alone would leave the new session with part of the input.
    static func partManager(_ opened: Session, rows: [String], recovery: inout String?, afterAdding: Bool,
                            reply: inout PartsReply) throws -> DownloadManager? {
        let manager = try opened.manager(ofRows: rows)
        if let moved = opened.recovery, moved != recovery {
            recovery = moved
            warn(moved)
            if afterAdding {
                reply.fail("the URLs added before are in the file moved aside: run the command again to add them all")
                return nil
            }
        }
        return manager
    }
}

/// An add's reply printed as its parts are added, in the order `SessionRoute.finish` prints
/// one reply: every added URL (printed at once), then the URLs the session had, then the
/// problems (both kept in files until then: at a million lines they would be most of the
/// memory the parts save).
struct PartsReply {
    private var out = OutputBuffer()
    private let existing = LineSpool()
    private let rejected = LineSpool()
    private let notApplied = LineSpool()
    /// Why the session did not take everything (a failed save), told last.
    private var sessionError: String?
    private var status = ExitStatus.ok

    mutating func take(_ result: AddResult, saveError: String?) {
        // Not one "added" without the commit that adds.
        for url in result.added where saveError == nil {
            out.append(ControlActions.addedLine(url))
            out.append("\n")
            out.flushIfFull()
        }
        for again in result.duplicates { existing.append(ControlActions.existingLine(again)) }
        for r in result.rejected { rejected.append(ControlActions.problemLine(r)) }
        for r in result.notApplied { notApplied.append(ControlActions.problemLine(r)) }
        if !result.rejected.isEmpty || !result.notApplied.isEmpty { status = ExitStatus.badInput }
        if let saveError { fail(saveError) }
    }

    /// The session (or the input) cannot give more: the command fails with `why`.
    mutating func fail(_ why: String, status: Int32 = ExitStatus.session) {
        sessionError = why
        self.status = status
    }

    /// Prints the rest and exits with the reply's status; `badInput`: lines of the input could
    /// not be used, which fails a command that otherwise succeeded.
    mutating func finish(badInput: Bool) -> Never {
        existing.forEach { line in
            out.append(line)
            out.append("\n")
            out.flushIfFull()
        }
        out.flush()
        rejected.forEach(warn)
        notApplied.forEach(warn)
        if let sessionError { warn(sessionError) }
        StandardStreams.flushOutput()
        exit(badInput && status == ExitStatus.ok ? ExitStatus.badInput : status)
    }
}

/// Lines kept in an unlinked temporary file until they are read back in order (in memory when
/// no such file can be made).
final class LineSpool {
    private var file: UnsafeMutablePointer<FILE>? = tmpfile()
    private var inMemory: [String] = []

    deinit { if let file { fclose(file) } }

    /// Lines are kept apart by a NUL byte, which no line has: a reason may hold a "\n".
    func append(_ line: String) {
        guard let file else { return inMemory.append(line) }
        var line = line
        line.withUTF8 { _ = fwrite($0.baseAddress, 1, $0.count, file) }
        fputc(0, file)
    }

    func forEach(_ body: (String) -> Void) {
        inMemory.forEach(body)
        guard let file else { return }
        rewind(file)
        var buffer: UnsafeMutablePointer<CChar>?
        var capacity = 0
        defer { free(buffer) }
        while true {
            let length = getdelim(&buffer, &capacity, 0, file)
            guard length > 0, let buffer else { break }
            body(String(decoding: UnsafeRawBufferPointer(start: buffer, count: length - 1), as: UTF8.self))
        }
    }
}
