import Foundation
import TDLCore
import TDLStore
import XCTest
#if canImport(Glibc)
import Glibc
#endif

// Random sequences of user actions against the real manager and the real store (SQLite on a
// temporary file), with a fake engine that writes real part files and renames them into place
// without replacing anything. After every step the invariants below are checked; a failure
// prints its seed and the shortest sequence (found by removing steps) that still shows it.
//
//     swift test --skip-build --filter LifecycleSequenceTests
//     TDL_LIFECYCLE_STEPS=100000 swift test --skip-build --filter LifecycleSequenceTests
//     TDL_LIFECYCLE_SEEDS=7,8,9          seeds to run (default 1…5, 2,000 steps each: ~3 s)
//     TDL_LIFECYCLE_ALL=1                 also check the known violations, and report each one
//     TDL_LIFECYCLE_REPLAY="add 0; turns 3; quit"   replays one sequence, step by step, verbosely
//     TDL_LIFECYCLE_REPLAY_SEED=4 TDL_LIFECYCLE_STEPS=9478   replays a seed's first steps verbosely
//     TDL_LIFECYCLE_SHRINK_SECONDS=600    how long the shrinker may try per failure (default 60)
//
// Lives in TDLStoreTests because TDLCoreTests cannot import TDLStore.

// MARK: - The rules

/// Each invariant the sequences check, by name.
enum LifecycleRule: String, CaseIterable, Comparable {
    case finishedFileInPlace, oneOwnerPerPath, noOrphanPart, noStrayFile, progressHasPart
    case limitRespected, freeSlotIsUsed, startOrderIsAddOrder, engineAgrees
    case limitDisplacedWait, trashKeepsState, addAgainRedownloads, addAgainLeavesTrash
    case cleanQuitNotInterrupted, cleanQuitResumes, noDownloadingAfterQuit
    case storeMatchesMemory, rerunReusesOwnPart, deletionsAreDurable, countsAgree
    /// Not checked by itself: while known, sequences never delete the part file of a running
    /// download (what follows shows up under the rules above).
    case deletedRunningPartIsSafe

    static func < (a: Self, b: Self) -> Bool { a.rawValue < b.rawValue }

    var summary: String {
        switch self {
        case .finishedFileInPlace: return "a finished task has its file at its path with its size"
        case .oneOwnerPerPath: return "no two tasks own the same target path"
        case .noOrphanPart: return "every .part file belongs to an unfinished task that recorded its name"
        case .noStrayFile: return "every other file is a finished task's (or one the user made)"
        case .progressHasPart: return "an unfinished task with durable bytes has a part file holding them"
        case .limitRespected: return "downloads in slots <= the limit"
        case .freeSlotIsUsed: return "no task waits while a slot is free"
        case .startOrderIsAddOrder: return "a task the scheduler starts is older than every task still waiting (a relaunch first goes on with what was downloading)"
        case .engineAgrees: return "the tasks the manager calls downloading are the engine's transfers"
        case .limitDisplacedWait: return "lowering the limit returns the excess to waiting, not paused"
        case .trashKeepsState: return "trash then restore keeps the state (active stays active)"
        case .addAgainRedownloads: return "adding a finished URL whose file is gone or differs downloads it again"
        case .addAgainLeavesTrash: return "adding a trashed URL brings it back from the trash"
        case .cleanQuitNotInterrupted: return "a clean quit is not reported as interrupted downloads"
        case .cleanQuitResumes: return "what was active at a clean quit is active after relaunch"
        case .noDownloadingAfterQuit: return "nothing is stored as downloading after a clean quit"
        case .storeMatchesMemory: return "a fresh store + manager load equals memory after a flush"
        case .rerunReusesOwnPart: return "a rerun reuses its own part file instead of a new name"
        case .deletionsAreDurable: return "after a crash no record comes back that needs files tdl already deleted (purge, restart)"
        case .countsAgree: return "the counts by state the header shows are those of the list's tasks (not the trash)"
        case .deletedRunningPartIsSafe: return "deleting a running download's part file behind tdl's back harms no other task"
        }
    }
}

final class LifecycleSequenceTests: XCTestCase {
    /// Rules the core does not follow yet: the suite skips exactly these. Remove an entry when
    /// its fix lands (run with TDL_LIFECYCLE_ALL=1 to see them all fail, each with a short sequence).
    /// None today.
    static let knownViolations: [LifecycleRule: String] = [:]

    /// Sequences that once broke a rule, each with what it showed; they run with every rule on.
    static let regressions: [(steps: String, showed: String)] = [
        // Seed 4 at step 9,477 of 20,000, shrunk by hand. #14 suggests movie.mkv without owning
        // it; restarting #5 kept its own movie.mkv.part as if #14 owned it, and the rerun, no
        // longer owning a part, left it behind and chose another name.
        ("addNamed 14 1; stop 14; addNamed 5 1; turns 1; pause 5; restart 5",
         "rerunReusesOwnPart, noOrphanPart: restart keeps its part under a name another task only suggests"),
        // Found by reading the code behind the one above: asking again for #14 with a new name
        // moved #5's movie.mkv.part to picked.dat.part, and #5's download then failed.
        ("addNamed 14 1; stop 14; addNamed 5 1; turns 1; addNamed 14 0",
         "noOrphanPart: a rename moves the part under a name the task only suggests"),
        // Seed 12 and seed 15 of 20,000 steps: a download whose bytes were all in (finishing)
        // was paused; the engine finished it anyway, and a restart meanwhile deleted the part
        // file from under the finish.
        ("add 11; turns 2; turns 3; turns 4; pause 11; restart 11; turns 1",
         "progressHasPart: a finishing download paused, then restarted under its finish"),
        // Seed 18: a download ends in the trash (its part file deleted behind tdl's back).
        ("add 3; turns 4; turns 3; trash 3; deleteRunningPart 41; turns 3; restore 3",
         "trashKeepsState: the rule counted a download that failed in the trash as the trash's doing"),
    ]

    func testRegressionSequences() {
        for (steps, showed) in Self.regressions {
            let actions = steps.split(separator: ";").compactMap { LifecycleAction(String($0)) }
            XCTAssertEqual(actions.count, steps.split(separator: ";").count, "cannot read \(steps)")
            if let failure = LifecycleRunner.run(actions, enabled: Set(LifecycleRule.allCases)) {
                XCTFail("\(steps) (once \(showed)): \(failure.rule.rawValue) at step \(failure.step): \(failure.message)")
            }
        }
    }

    func testRandomUserActionSequences() throws {
        let env = ProcessInfo.processInfo.environment
        if let replay = env["TDL_LIFECYCLE_REPLAY"] {
            let actions = try replay.split(separator: ";").map { text -> LifecycleAction in
                guard let action = LifecycleAction(String(text)) else { throw NSError(domain: "replay", code: 1, userInfo: [NSLocalizedDescriptionKey: "cannot read step \(text)"]) }
                return action
            }
            let failure = LifecycleRunner.run(actions, enabled: Set(LifecycleRule.allCases), verbose: true)
            if let failure { XCTFail("replay: \(failure.rule.rawValue) at step \(failure.step): \(failure.message)") }
            return
        }
        let steps = env["TDL_LIFECYCLE_STEPS"].flatMap(Int.init) ?? 2000
        if let seed = env["TDL_LIFECYCLE_REPLAY_SEED"].flatMap(UInt64.init) {
            let actions = LifecycleAction.sequence(seed: seed, count: steps, deletingRunningParts: true)
            let failure = LifecycleRunner.run(actions, enabled: Set(LifecycleRule.allCases), verbose: true)
            if let failure { XCTFail("seed \(seed): \(failure.rule.rawValue) at step \(failure.step): \(failure.message)") }
            return
        }
        let seeds = env["TDL_LIFECYCLE_SEEDS"].map { $0.split(separator: ",").compactMap { UInt64($0) } } ?? [1, 2, 3, 4, 5]
        let checkAll = env["TDL_LIFECYCLE_ALL"] == "1"
        var enabled = Set(LifecycleRule.allCases)
        if !checkAll { enabled.subtract(Self.knownViolations.keys) }
        var reports: [String] = []
        for seed in seeds {
            let actions = LifecycleAction.sequence(seed: seed, count: steps,
                                                   deletingRunningParts: enabled.contains(.deletedRunningPartIsSafe))
            // One rule per failure: once reported, the same seed runs on without it.
            while let failure = LifecycleRunner.run(actions, enabled: enabled) {
                let shortest = LifecycleRunner.shrink(actions, failure: failure,
                                                      seconds: env["TDL_LIFECYCLE_SHRINK_SECONDS"].flatMap(Double.init) ?? 60)
                let confirm = LifecycleRunner.run(shortest, enabled: [failure.rule])
                let known = Self.knownViolations[failure.rule].map { " (known: \($0))" } ?? ""
                var text = "seed \(seed): \(failure.rule.rawValue)\(known) — \(failure.rule.summary)\n"
                text += "  at step \(failure.step) of \(steps): \(failure.message)\n"
                text += "  shortest sequence (\(shortest.count) steps): \(shortest.map(\.description).joined(separator: "; "))\n"
                text += "  which shows: \(confirm?.message ?? failure.message)"
                print(text)
                reports.append(text)
                enabled.remove(failure.rule)
            }
        }
        if !reports.isEmpty {
            XCTFail("\(reports.count) lifecycle violation(s):\n" + reports.joined(separator: "\n"))
        }
    }
}

extension SeededRandom {
    /// 0..<n, as the sequences were first drawn (seeds keep naming the same sequences).
    mutating func below(_ n: Int) -> Int { Int(next() % UInt64(n)) }
}

// MARK: - Actions

/// One user action (or one passage of time). Actions name URLs by their place in the pool, so
/// a sequence still means something after steps were removed from it.
enum LifecycleAction: Equatable, CustomStringConvertible {
    case turns(Int)
    case add(Int)
    /// Add with a file name of the user's (variant 0 or 1).
    case addNamed(Int, Int)
    case pause(Int), resume(Int), stop(Int), restart(Int)
    case trash(Int), restore(Int), purge(Int)
    case limitUp, limitDown
    /// Deletes the n-th file of the download folder (sorted), behind tdl's back; never the part
    /// file of a running download.
    case deleteFile(Int)
    /// Deletes the part file of the n-th running download, behind tdl's back.
    case deleteRunningPart(Int)
    /// Appends a byte to the n-th finished file, behind tdl's back.
    case growFile(Int)
    /// The engine fails the URL's transfer at its next turn (a refused connection).
    case fail(Int)
    case quit, crash
    case checkStore

    static let pool = [
        "https://one.example/v/movie.mkv", "https://two.example/movie.mkv", "https://one.example/a/song.mp3",
        "https://one.example/doc.pdf", "https://three.example/x/doc.pdf", "https://one.example/a.iso",
        "https://two.example/b.iso", "https://one.example/c.zip", "https://four.example/movie.mkv",
        "https://one.example/notes.txt", "https://five.example/song.mp3", "https://one.example/b/a.iso",
        "https://two.example/notes.txt", "https://one.example/d/c.zip", "https://six.example/big.bin",
        "https://seven.example/big.bin",
    ]
    static let chosenNames = ["picked.dat", "movie.mkv"]

    var description: String {
        switch self {
        case .turns(let n): return "turns \(n)"
        case .add(let i): return "add \(i)"
        case .addNamed(let i, let v): return "addNamed \(i) \(v)"
        case .pause(let i): return "pause \(i)"
        case .resume(let i): return "resume \(i)"
        case .stop(let i): return "stop \(i)"
        case .restart(let i): return "restart \(i)"
        case .trash(let i): return "trash \(i)"
        case .restore(let i): return "restore \(i)"
        case .purge(let i): return "purge \(i)"
        case .limitUp: return "limitUp"
        case .limitDown: return "limitDown"
        case .deleteFile(let n): return "deleteFile \(n)"
        case .deleteRunningPart(let n): return "deleteRunningPart \(n)"
        case .growFile(let n): return "growFile \(n)"
        case .fail(let i): return "fail \(i)"
        case .quit: return "quit"
        case .crash: return "crash"
        case .checkStore: return "checkStore"
        }
    }

    init?(_ text: String) {
        let words = text.split(separator: " ").map(String.init)
        guard let name = words.first else { return nil }
        let a = words.count > 1 ? Int(words[1]) : nil, b = words.count > 2 ? Int(words[2]) : nil
        switch (name, a, b) {
        case ("turns", let n?, _): self = .turns(n)
        case ("add", let i?, _): self = .add(i)
        case ("addNamed", let i?, let v?): self = .addNamed(i, v)
        case ("pause", let i?, _): self = .pause(i)
        case ("resume", let i?, _): self = .resume(i)
        case ("stop", let i?, _): self = .stop(i)
        case ("restart", let i?, _): self = .restart(i)
        case ("trash", let i?, _): self = .trash(i)
        case ("restore", let i?, _): self = .restore(i)
        case ("purge", let i?, _): self = .purge(i)
        case ("limitUp", _, _): self = .limitUp
        case ("limitDown", _, _): self = .limitDown
        case ("deleteFile", let n?, _): self = .deleteFile(n)
        case ("deleteRunningPart", let n?, _): self = .deleteRunningPart(n)
        case ("growFile", let n?, _): self = .growFile(n)
        case ("fail", let i?, _): self = .fail(i)
        case ("quit", _, _): self = .quit
        case ("crash", _, _): self = .crash
        case ("checkStore", _, _): self = .checkStore
        default: return nil
        }
    }

    /// The sequence a seed stands for; it does not depend on what happens while it runs.
    static func sequence(seed: UInt64, count: Int, deletingRunningParts: Bool) -> [LifecycleAction] {
        var rng = SeededRandom(seed: seed)
        let weighted: [(Int, (inout SeededRandom) -> LifecycleAction)] = [
            (30, { .turns(1 + $0.below(4)) }),
            (12, { .add($0.below(pool.count)) }),
            (3, { .addNamed($0.below(pool.count), $0.below(chosenNames.count)) }),
            (6, { .pause($0.below(pool.count)) }),
            (7, { .resume($0.below(pool.count)) }),
            (3, { .stop($0.below(pool.count)) }),
            (5, { .restart($0.below(pool.count)) }),
            (5, { .trash($0.below(pool.count)) }),
            (4, { .restore($0.below(pool.count)) }),
            (3, { .purge($0.below(pool.count)) }),
            (3, { _ in .limitUp }),
            (3, { _ in .limitDown }),
            (2, { .deleteFile($0.below(64)) }),
            (1, { .growFile($0.below(64)) }),
            (deletingRunningParts ? 1 : 0, { .deleteRunningPart($0.below(64)) }),
            (3, { .fail($0.below(pool.count)) }),
            (2, { _ in .quit }),
            (2, { _ in .crash }),
            (9, { _ in .checkStore }),
        ]
        let total = weighted.reduce(0) { $0 + $1.0 }
        return (0..<count).map { _ in
            var pick = rng.below(total)
            for (weight, make) in weighted {
                if pick < weight { return make(&rng) }
                pick -= weight
            }
            return .turns(1)
        }
    }
}

// MARK: - The fake engine

/// Downloads nothing from a network but writes real files the way FileDownload does: the name
/// is reported (and recorded by the manager) before the part file is created under it with
/// O_EXCL; bytes are written on `wait` turns and reported as durable; a complete file is
/// renamed into place one turn later without replacing anything.
final class FileWritingEngine: TransferEngine {
    final class Transfer {
        let job: TransferJob
        var fileName: String
        let size: Int64
        var written: Int64 = 0
        var fd: Int32 = -1
        var resolved = false
        var finishing = false
        init(job: TransferJob, size: Int64) {
            self.job = job
            fileName = job.fileName
            self.size = size
        }
        var segments: [Segment] {
            resolved ? [Segment(start: 0, end: size, done: written)] : [Segment(start: 0, end: nil, done: 0)]
        }
    }

    var onEvent: ((TransferEvent) -> Void)?
    var isNameTaken: ((_ url: String, _ path: String) -> Bool)?
    var isRecorded: ((_ url: String) -> Bool)?
    unowned let world: LifecycleWorld
    var transfers: [String: Transfer] = [:]
    var failNext: Set<String> = []
    /// URLs `start` was called for during the current step.
    var started: [String] = []

    init(world: LifecycleWorld) { self.world = world }

    static func partPath(_ directory: String, _ name: String) -> String { directory + "/" + name + ".part" }
    static func exists(_ path: String) -> Bool { access(path, F_OK) == 0 }

    func isFinishing(_ url: String) -> Bool { transfers[url]?.finishing == true }

    func start(_ job: TransferJob) {
        guard transfers[job.url] == nil else { return }
        started.append(job.url)
        let t = Transfer(job: job, size: LifecycleWorld.size(of: job.url))
        transfers[job.url] = t
        let part = Self.partPath(job.directory, job.fileName)
        let durable = job.segments.reduce(0) { $0 + $1.done }
        if durable > 0 {
            // As FileDownload.begin: the database is trusted, clamped to what the file holds.
            let fd = open(part, O_RDWR | O_CLOEXEC)
            if fd >= 0 {
                var info = stat()
                fstat(fd, &info)
                t.fd = fd
                t.written = min(durable, Int64(info.st_size))
                t.resolved = true
            } else {
                onEvent?(.note(url: job.url, text: "the partial file was missing: starting from zero", retries: 0))
                onEvent?(.checkpoint(url: job.url, segments: []))
            }
        } else if job.partFileIsOurs {
            let fd = open(part, O_RDWR | O_CLOEXEC)
            if fd >= 0 {
                ftruncate(fd, 0)
                t.fd = fd
            }
        }
        if t.fd < 0, Self.exists(part), world.partCreator[part] == job.url {
            world.note(.rerunReusesOwnPart, "\(world.label(job.url)) starts without its own \(world.rel(part)) (segments \(job.segments.map(\.done)), partFileIsOurs \(job.partFileIsOurs))")
        }
        if t.resolved && t.written >= t.size { beginFinish(t) }
    }

    func stop(url: String) {
        guard let t = transfers[url], !t.finishing else { return }
        transfers[url] = nil
        if t.fd >= 0 {
            close(t.fd)
            onEvent?(.checkpoint(url: url, segments: t.segments))
        }
    }

    func liveProgress() -> [String: Int64] { transfers.mapValues(\.written) }
    func setGlobalRateLimit(_ bytesPerSecond: Int64?) {}
    func setRateLimit(url: String, _ bytesPerSecond: Int64?) {}
    func wakeUp() {}

    func wait(timeoutMs: Int, watching fds: [WatchedFD]) -> Set<Int32> {
        for url in transfers.keys.sorted() {
            guard let t = transfers[url] else { continue }
            if t.finishing {
                completeFinish(t)
            } else if failNext.remove(url) != nil {
                fail(t)
            } else if !t.resolved {
                resolve(t)
            } else {
                write(t)
            }
        }
        return []
    }

    func shutdown() {
        for url in transfers.keys.sorted() where transfers[url]?.finishing == false { stop(url: url) }
        for url in transfers.keys.sorted() { if let t = transfers[url] { completeFinish(t) } }
    }

    /// kill -9: nothing more is reported; the files stay as they are.
    func crash() {
        onEvent = nil
        for t in transfers.values where t.fd >= 0 { close(t.fd) }
        transfers = [:]
    }

    private func report(_ event: TransferEvent) { onEvent?(event) }

    private func resolved(_ t: Transfer) {
        report(.resolved(url: t.job.url, fileName: t.fileName, size: t.size, mimeType: nil, etag: "\"e\"",
                         lastModified: nil, finalURL: t.job.url))
    }

    private func resolve(_ t: Transfer) {
        let dir = t.job.directory
        if t.fd < 0 {
            // PartFile.create: the first name under which neither the file nor its part exists,
            // recorded before the part file is made.
            for n in 0..<1000 {
                let name = n == 0 ? t.job.fileName : FileNameSanitizer.numbered(t.job.fileName, n)
                let part = Self.partPath(dir, name)
                if Self.exists(dir + "/" + name) || Self.exists(part) || isNameTaken?(t.job.url, dir + "/" + name) == true { continue }
                t.fileName = name
                resolved(t)
                guard transfers[t.job.url] === t else { return }
                let fd = open(part, O_RDWR | O_CREAT | O_EXCL | O_CLOEXEC, 0o644)
                if fd >= 0 {
                    t.fd = fd
                    world.partCreator[part] = t.job.url
                    world.engineCreatedPart(t.job.url)
                    break
                }
            }
        } else {
            resolved(t)
        }
        t.resolved = true
    }

    private func write(_ t: Transfer) {
        let chunk = Int(min(2048, t.size - t.written))
        if chunk > 0 {
            let bytes = [UInt8](repeating: UInt8(truncatingIfNeeded: t.size), count: chunk)
            _ = bytes.withUnsafeBytes { pwrite(t.fd, $0.baseAddress, chunk, off_t(t.written)) }
            t.written += Int64(chunk)
        }
        report(.checkpoint(url: t.job.url, segments: t.segments))
        if t.written >= t.size, transfers[t.job.url] === t { beginFinish(t) }
    }

    private func beginFinish(_ t: Transfer) {
        t.finishing = true
        report(.finishing(url: t.job.url, started: true))
    }

    private func fail(_ t: Transfer) {
        transfers[t.job.url] = nil
        if t.fd >= 0 { close(t.fd) }
        report(.failed(url: t.job.url, reason: .noNetwork("connection refused"), segments: t.segments))
    }

    /// Renames name.part to name, never replacing: a taken name gets the next free one,
    /// recorded first (Finisher's `.nameTaken`).
    private func completeFinish(_ t: Transfer) {
        let dir = t.job.directory
        while true {
            let part = Self.partPath(dir, t.fileName), target = dir + "/" + t.fileName
            if link(part, target) == 0 {
                unlink(part)
                world.partCreator[part] = nil
                break
            }
            guard errno == EEXIST else {
                t.finishing = false
                fail(t)
                return
            }
            var n = 1
            var name = FileNameSanitizer.numbered(t.fileName, n)
            while Self.exists(dir + "/" + name) || Self.exists(Self.partPath(dir, name)) || isNameTaken?(t.job.url, dir + "/" + name) == true {
                n += 1
                name = FileNameSanitizer.numbered(t.fileName, n)
            }
            t.fileName = name
            resolved(t)
            let newPart = Self.partPath(dir, name)
            guard link(part, newPart) == 0 else { t.finishing = false; fail(t); return }
            unlink(part)
            world.partCreator[newPart] = world.partCreator.removeValue(forKey: part)
        }
        close(t.fd)
        transfers[t.job.url] = nil
        report(.finished(url: t.job.url, path: dir + "/" + t.fileName, size: t.size))
    }
}

// MARK: - The world: folder, session file, manager, and what the test did behind tdl's back

struct LifecycleFailure {
    let step: Int
    let rule: LifecycleRule
    let message: String
}

final class LifecycleWorld {
    let root: String
    let folder: String
    let dbPath: String
    var now = Date(timeIntervalSince1970: 1_750_000_000)
    var store: SQLiteSessionStore?
    var engine: FileWritingEngine!
    var manager: DownloadManager!
    var events: [ManagerEvent] = []
    /// Which URL created each part file (kept across relaunches: it is about the files).
    var partCreator: [String: String] = [:]
    /// Files the test deleted or changed, by the task that owned them; checks about them wait
    /// until the task has moved on.
    var tampered: [String: (path: String, isPart: Bool)] = [:]
    /// Files that are the user's now (a changed file its task no longer claims).
    var foreign: Set<String> = []
    var stateAtTrash: [String: TaskState] = [:]
    var found: [(LifecycleRule, String)] = []
    /// About the step just performed: what the engine was asked to start, the one URL the user
    /// resumed by hand (it may start ahead of the queue), the tasks before, the last load's result.
    var stepStarted: [String] = []
    var stepExplicitResume: String?
    /// On a relaunch: the tasks that were downloading before it, which go on first.
    var ranBeforeRelaunch: Set<String> = []
    /// Downloads that ran before the step and run after it (stopped to take new options).
    var stepContinued: Set<String> = []
    var stepBefore: [String: DownloadTask] = [:]
    var lastLaunchResult = 0

    init() {
        root = (NSTemporaryDirectory() as NSString).appendingPathComponent("tdl-lifecycle-\(UUID().uuidString)")
        folder = root + "/dl"
        dbPath = root + "/session.sqlite"
        try? FileManager.default.createDirectory(atPath: folder, withIntermediateDirectories: true)
    }

    deinit {
        engine?.crash()
        try? FileManager.default.removeItem(atPath: root)
    }

    static func size(of url: String) -> Int64 {
        let i = LifecycleAction.pool.firstIndex(of: url) ?? 0
        return Int64(2048 * (2 + (i * 7) % 9) + 37 * i)
    }

    func label(_ url: String) -> String {
        (LifecycleAction.pool.firstIndex(of: url).map { "#\($0) " } ?? "") + url.replacingOccurrences(of: "https://", with: "")
    }
    func rel(_ path: String) -> String { path.hasPrefix(folder + "/") ? String(path.dropFirst(folder.count + 1)) : path }

    func note(_ rule: LifecycleRule, _ message: String) { found.append((rule, message)) }

    /// A new part file: whatever the test deleted of the task before is behind it.
    func engineCreatedPart(_ url: String) {
        if tampered[url]?.isPart == true { tampered[url] = nil }
    }

    @discardableResult
    func launch() throws -> Int {
        let store = try SQLiteSessionStore(path: dbPath, session: "default", soleWriter: true)
        self.store = store
        engine = FileWritingEngine(world: self)
        manager = DownloadManager(identifier: "default", defaultDirectory: folder, engine: engine, store: store)
        manager.clock = { [unowned self] in self.now }
        events = []
        manager.observe { [unowned self] in self.events.append($0) }
        return try manager.load()
    }

    func crash() {
        engine.crash()
        manager = nil
        engine = nil
        store = nil
    }

    var tasks: [DownloadTask] { manager.allTasksSet.sorted().compactMap { manager.task($0) } }

    /// The tasks the session file says are downloading (read as stored, not as a launch restores them).
    func storedDownloading() -> [String] {
        guard let store = try? SQLiteSessionStore(path: dbPath, session: "default"),
              let snapshot = try? store.load() else { return [] }
        return snapshot.tasks.values.filter { $0.state == .downloading }.map(\.url)
    }

    func fileSize(_ path: String) -> Int64? {
        var info = stat()
        return stat(path, &info) == 0 ? Int64(info.st_size) : nil
    }

    var files: [String] {
        ((try? FileManager.default.contentsOfDirectory(atPath: folder)) ?? []).sorted().map { folder + "/" + $0 }
    }

    /// Reads the session back through a fresh store and manager; nil when it cannot be read.
    func readBack() -> DownloadManager? {
        guard let fresh = try? SQLiteSessionStore(path: dbPath, session: "default") else { return nil }
        let reader = DownloadManager(identifier: "default", defaultDirectory: folder, store: fresh)
        guard (try? reader.load(restoring: false)) != nil else { return nil }
        return reader
    }

    func compareWithStore() {
        manager.flush()
        guard let reader = readBack() else { return note(.storeMatchesMemory, "the session could not be read back") }
        let mine = manager.allTasksSet, theirs = reader.allTasksSet
        if mine != theirs {
            return note(.storeMatchesMemory, "tasks differ: only in memory \(mine.subtracting(theirs).map(label)), only in the store \(theirs.subtracting(mine).map(label))")
        }
        for url in mine.sorted() {
            let a = manager.task(url)!, b = reader.task(url)!
            var diffs: [String] = []
            func cmp<T: Equatable>(_ name: String, _ x: T, _ y: T) { if x != y { diffs.append("\(name) \(x) vs \(y)") } }
            // A reader that does not run the session sees nothing downloading: it waits.
            cmp("state", a.state == .downloading ? .waiting : a.state, b.state)
            if abs(a.addTime.timeIntervalSince(b.addTime)) > 1e-5 { diffs.append("addTime \(a.addTime.timeIntervalSince1970) vs \(b.addTime.timeIntervalSince1970)") }
            cmp("inTrash", a.deletedAt != nil, b.deletedAt != nil)
            cmp("fileName", a.fileName, b.fileName)
            cmp("directory", a.directory, b.directory)
            cmp("size", a.size, b.size)
            cmp("received", a.received, b.received)
            cmp("segments", a.segments, b.segments)
            cmp("finalURL", a.finalURL, b.finalURL)
            cmp("completedPath", a.completedPath, b.completedPath)
            cmp("options", a.options, b.options)
            if !diffs.isEmpty { note(.storeMatchesMemory, "\(label(url)): memory vs store: " + diffs.joined(separator: ", ")) }
        }
        if manager.toDeleteList != reader.toDeleteList {
            note(.storeMatchesMemory, "trash order \(manager.toDeleteList.map(label)) vs \(reader.toDeleteList.map(label))")
        }
        if manager.maxDownloadCount != reader.maxDownloadCount {
            note(.storeMatchesMemory, "limit \(manager.maxDownloadCount) vs \(reader.maxDownloadCount)")
        }
        if manager.downloadList != reader.downloadList {
            note(.storeMatchesMemory, "list order \(manager.downloadList.map { $0.map(label) }) vs \(reader.downloadList.map { $0.map(label) })")
        }
    }
}

// MARK: - Running and shrinking

enum LifecycleRunner {
    /// Runs the actions in a fresh world; the first violation of an enabled rule, if any.
    static func run(_ actions: [LifecycleAction], enabled: Set<LifecycleRule>, verbose: Bool = false) -> LifecycleFailure? {
        let world = LifecycleWorld()
        do { try world.launch() } catch { return LifecycleFailure(step: -1, rule: .storeMatchesMemory, message: "launch: \(error)") }
        var firstFailure: LifecycleFailure?
        for (index, action) in actions.enumerated() {
            world.found = []
            perform(action, in: world)
            check(world)
            if verbose {
                print("step \(index): \(action) →", world.tasks.map { "\(world.label($0.url)) \($0.state.rawValue)\($0.deletedAt != nil ? " (trash)" : "") \($0.received)/\($0.size.map(String.init) ?? "?") \($0.fileName)" }.joined(separator: " | "))
                print("   files:", world.files.map(world.rel).joined(separator: ", "))
                for (rule, message) in world.found { print("   ✗ \(rule.rawValue): \(message)") }
            }
            if firstFailure == nil, let (rule, message) = world.found.first(where: { enabled.contains($0.0) }) {
                firstFailure = LifecycleFailure(step: index, rule: rule, message: message)
                // A replay shows every step; a search stops at the first failure.
                if !verbose { return firstFailure }
            }
        }
        return firstFailure
    }

    /// The shortest sequence found that still breaks the same rule: cut after the failing
    /// step, then remove chunks of steps, halving the chunk while nothing can go.
    static func shrink(_ actions: [LifecycleAction], failure: LifecycleFailure, seconds: Double = 60) -> [LifecycleAction] {
        var current = Array(actions.prefix(failure.step + 1))
        let deadline = Date().addingTimeInterval(seconds)
        var chunk = max(1, current.count / 2)
        while chunk >= 1 && Date() < deadline {
            var start = 0
            var removed = false
            while start < current.count && Date() < deadline {
                var candidate = current
                candidate.removeSubrange(start ..< min(start + chunk, current.count))
                if let again = run(candidate, enabled: [failure.rule]), again.rule == failure.rule {
                    current = Array(candidate.prefix(again.step + 1))
                    removed = true
                } else {
                    start += chunk
                }
            }
            if !removed { chunk /= 2 }
        }
        return current
    }

    static func perform(_ action: LifecycleAction, in world: LifecycleWorld) {
        let manager = world.manager!
        world.engine.started = []
        let before = Dictionary(uniqueKeysWithValues: world.tasks.map { ($0.url, $0) })
        var explicitlyResumed: String?
        func listed(_ url: String) -> Bool { manager.task(url).map { $0.deletedAt == nil } ?? false }
        func trashed(_ url: String) -> Bool { manager.task(url)?.deletedAt != nil }
        let pool = LifecycleAction.pool
        switch action {
        case .turns(let n):
            for _ in 0..<n {
                world.now += 0.04
                _ = manager.runOnce(timeoutMs: 0)
            }
        case .add(let i), .addNamed(let i, _):
            let url = pool[i]
            var name: String?
            if case .addNamed(_, let v) = action { name = LifecycleAction.chosenNames[v] }
            let pre = manager.task(url)
            manager.add([url], options: DownloadOptions(fileName: name))
            guard let pre, let post = manager.task(url) else { break }
            // Judged at the file's path after the add: a name given with it moves the file there.
            if pre.state == .finished, world.fileSize(post.filePath) != post.size, !post.state.isActive {
                world.note(.addAgainRedownloads, "\(world.label(url)) finished, its file \(world.rel(pre.filePath)) is \(world.fileSize(pre.filePath).map { "\($0) bytes, not \(pre.size ?? -1)" } ?? "gone"); after add it is \(post.state.rawValue)")
            }
            if pre.deletedAt != nil, post.deletedAt != nil {
                world.note(.addAgainLeavesTrash, "\(world.label(url)) (\(pre.state.rawValue)) is still in the trash after add")
            }
        case .pause(let i):
            if listed(pool[i]) { manager.pauseTasks([pool[i]]) }
        case .resume(let i):
            if listed(pool[i]) {
                explicitlyResumed = pool[i]
                manager.resumeTasks([pool[i]], queueIfFull: true)
            }
        case .stop(let i):
            if listed(pool[i]) { manager.stopTasks([pool[i]]) }
        case .restart(let i):
            if listed(pool[i]) {
                if !(manager.task(pool[i])?.state.isActive ?? true) { world.tampered[pool[i]] = nil }
                manager.restartTasks([pool[i]])
            }
        case .trash(let i):
            if listed(pool[i]) {
                world.stateAtTrash[pool[i]] = manager.task(pool[i])?.state
                manager.deleteTasks([pool[i]])
            }
        case .restore(let i):
            let url = pool[i]
            guard trashed(url) else { break }
            manager.restoreToDeleteTasks([url])
            if let was = world.stateAtTrash[url], let now = manager.task(url)?.state {
                // A download may end while in the trash: finished, or failed when its part file
                // was deleted behind tdl's back.
                let ok = was.isActive ? (now.isActive || now == .finished || now == .failed && world.tampered[url] != nil) : now == was
                if !ok { world.note(.trashKeepsState, "\(world.label(url)) was \(was.rawValue) when trashed, is \(now.rawValue) after restore") }
            }
        case .purge(let i):
            if trashed(pool[i]) {
                world.tampered[pool[i]] = nil
                // A finished file stays on every purge path: the user's from now on.
                if let task = manager.task(pool[i]), task.state == .finished { world.foreign.insert(task.filePath) }
                manager.cleanupToDeleteTasks([pool[i]])
            }
        case .limitUp:
            manager.maxDownloadCount = min(6, manager.maxDownloadCount + 1)
        case .limitDown:
            manager.maxDownloadCount = max(1, manager.maxDownloadCount - 1)
            for (url, task) in before where task.state == .downloading && task.deletedAt == nil {
                guard let now = manager.task(url)?.state, now != .downloading, now != .finished, now != .failed else { continue }
                if now != .waiting {
                    world.note(.limitDisplacedWait, "lowering the limit to \(manager.maxDownloadCount) left \(world.label(url)) \(now.rawValue)")
                }
            }
        case .deleteFile(let n):
            let open = Set(world.engine.transfers.values.filter { $0.fd >= 0 }.map { FileWritingEngine.partPath($0.job.directory, $0.fileName) })
            let files = world.files.filter { !open.contains($0) }
            guard !files.isEmpty else { break }
            let path = files[n % files.count]
            unlink(path)
            world.foreign.remove(path)
            if let owner = ownerOfFile(path, world) { world.tampered[owner] = (path, path.hasSuffix(".part")) }
        case .deleteRunningPart(let n):
            let open = world.engine.transfers.values.filter { $0.fd >= 0 }.map { FileWritingEngine.partPath($0.job.directory, $0.fileName) }.sorted()
            guard !open.isEmpty else { break }
            let path = open[n % open.count]
            unlink(path)
            if let owner = ownerOfFile(path, world) { world.tampered[owner] = (path, true) }
        case .growFile(let n):
            let finished = world.tasks.filter { $0.state == .finished && world.fileSize($0.filePath) != nil }
            guard !finished.isEmpty else { break }
            let task = finished[n % finished.count]
            if let handle = FileHandle(forWritingAtPath: task.filePath) {
                handle.seekToEndOfFile()
                handle.write(Data([0x2A]))
                handle.closeFile()
            }
            world.tampered[task.url] = (task.filePath, false)
        case .fail(let i):
            world.engine.failNext.insert(pool[i])
        case .quit:
            manager.shutdown()
            // Active after the transfers stopped (a finish that failed meanwhile is not the relaunch's doing).
            let active = Set(world.tasks.filter { $0.state.isActive && world.tampered[$0.url] == nil }.map(\.url))
            if let reader = world.readBack() {
                let downloading = reader.allTasksSet.sorted().filter { reader.task($0)?.state == .downloading }
                if !downloading.isEmpty {
                    world.note(.noDownloadingAfterQuit, "after a clean quit the store says downloading for \(downloading.map(world.label))")
                }
            }
            world.crash()  // the process ends; shutdown already ran
            relaunch(world)
            let interrupted = world.lastLaunchResult
            if interrupted != 0 {
                world.note(.cleanQuitNotInterrupted, "relaunch after a clean quit reported \(interrupted) interrupted download(s)")
            }
            for url in active.sorted() {
                guard let state = world.manager.task(url)?.state, !state.isActive, state != .finished else { continue }
                world.note(.cleanQuitResumes, "\(world.label(url)) was active at the quit, is \(state.rawValue) after relaunch")
            }
        case .crash:
            world.crash()
            world.ranBeforeRelaunch = Set(world.storedDownloading())
            relaunch(world)
            // What the crash brought back that needs files already deleted.
            for task in world.tasks where world.tampered[task.url] == nil {
                let was = before[task.url]
                if task.state == .finished, world.fileSize(task.filePath) == nil, was.map({ $0.state != .finished }) ?? true {
                    world.note(.deletionsAreDurable, "\(world.label(task.url)) is finished again after the crash (it was \(was.map { $0.state.rawValue } ?? "deleted for good")) but \(world.rel(task.filePath)) is gone")
                    world.tampered[task.url] = (task.filePath, false)
                } else if task.state != .finished, task.received > 0, world.fileSize(task.partPath) == nil, (was?.received ?? 0) == 0 {
                    world.note(.deletionsAreDurable, "\(world.label(task.url)) has \(task.received) durable bytes again after the crash (it had \(was.map { "\($0.received)" } ?? "no record")) but \(world.rel(task.partPath)) is gone")
                    world.tampered[task.url] = (task.partPath, true)
                }
            }
        case .checkStore:
            world.compareWithStore()
        }
        world.now += 0.01
        world.stepStarted = world.engine.started
        world.stepExplicitResume = explicitlyResumed
        world.stepContinued = Set(before.values.filter { $0.state == .downloading && world.manager?.task($0.url)?.state == .downloading }.map(\.url))
        if case .quit = action {
            world.ranBeforeRelaunch = Set(before.values.filter { $0.state == .downloading }.map(\.url))
        } else if case .crash = action {
            // After a kill, what the store last said was downloading goes on first.
        } else {
            world.ranBeforeRelaunch = []
        }
        world.stepBefore = before
        if case .quit = action { world.compareWithStore() }
        if case .crash = action { world.compareWithStore() }
    }

    static func relaunch(_ world: LifecycleWorld) {
        do {
            world.lastLaunchResult = try world.launch()
        } catch {
            world.note(.storeMatchesMemory, "relaunch failed: \(error)")
            world.lastLaunchResult = 0
        }
    }

    static func ownerOfFile(_ path: String, _ world: LifecycleWorld) -> String? {
        let tasks = world.tasks
        if path.hasSuffix(".part") {
            return tasks.first { $0.state != .finished && $0.finalURL != nil && $0.partPath == path }?.url
        }
        return tasks.first { $0.state == .finished && $0.filePath == path }?.url
    }

    /// The invariants that hold after every step.
    static func check(_ world: LifecycleWorld) {
        let manager = world.manager!, engine = world.engine!
        let tasks = world.tasks
        let byURL = Dictionary(uniqueKeysWithValues: tasks.map { ($0.url, $0) })
        // What the test did behind tdl's back stops mattering once the task moved on.
        for (url, mark) in world.tampered {
            guard let task = byURL[url] else { world.tampered[url] = nil; continue }
            if !mark.isPart && task.state != .finished {
                world.tampered[url] = nil
                if LifecycleWorld.exists(mark.path) { world.foreign.insert(mark.path) }
            }
        }
        world.foreign = world.foreign.filter(LifecycleWorld.exists)

        // Files.
        var owners: [String: [String]] = [:]
        for task in tasks {
            if task.state == .finished {
                if world.tampered[task.url] == nil {
                    let size = world.fileSize(task.filePath)
                    if size != task.size {
                        world.note(.finishedFileInPlace, "\(world.label(task.url)) is finished but \(world.rel(task.filePath)) is \(size.map { "\($0) bytes, not \(task.size ?? -1)" } ?? "missing")")
                    }
                    owners[task.filePath, default: []].append(task.url)
                }
            } else if task.finalURL != nil {
                owners[task.directory + "/" + task.fileName, default: []].append(task.url)
            }
            if task.state != .finished, task.received > 0, world.tampered[task.url] == nil {
                let size = world.fileSize(task.partPath) ?? -1
                if size < task.received {
                    world.note(.progressHasPart, "\(world.label(task.url)) (\(task.state.rawValue)) has \(task.received) durable bytes but \(world.rel(task.partPath)) \(size < 0 ? "is missing" : "holds \(size)")")
                }
            }
        }
        for (path, urls) in owners.sorted(by: { $0.key < $1.key }) where urls.count > 1 {
            world.note(.oneOwnerPerPath, "\(world.rel(path)) is claimed by \(urls.map { "\(world.label($0)) (\(byURL[$0]!.state.rawValue))" }.joined(separator: " and "))")
        }
        for path in world.files {
            if path.hasSuffix(".part") {
                let owned = tasks.contains { $0.state != .finished && $0.finalURL != nil && $0.partPath == path }
                if !owned {
                    let creator = world.partCreator[path].map { ", made by \(world.label($0)) (\(byURL[$0].map { "\($0.state.rawValue), now named \($0.fileName)" } ?? "gone"))" } ?? ""
                    world.note(.noOrphanPart, "\(world.rel(path)) belongs to no unfinished task\(creator)")
                }
            } else if !world.foreign.contains(path) && !tasks.contains(where: { $0.state == .finished && $0.filePath == path }) {
                world.note(.noStrayFile, "\(world.rel(path)) belongs to no finished task")
            }
        }

        var counted: [TaskState: Int] = [:]
        for task in tasks where task.deletedAt == nil { counted[task.state, default: 0] += 1 }
        if manager.counts != counted {
            world.note(.countsAgree, "the header counts \(manager.counts) but the list holds \(counted)")
        }

        // The scheduler.
        let limit = manager.maxDownloadCount
        let inSlots = tasks.filter { $0.state == .downloading && !engine.isFinishing($0.url) }
        let waiting = tasks.filter { $0.state == .waiting && $0.deletedAt == nil }
        if limit > 0 && inSlots.count > limit {
            world.note(.limitRespected, "\(inSlots.count) downloading with the limit at \(limit): \(inSlots.map { world.label($0.url) })")
        }
        if (limit <= 0 || inSlots.count < limit), let first = waiting.first {
            world.note(.freeSlotIsUsed, "\(world.label(first.url)) waits while \(inSlots.count) of \(limit) slots are taken")
        }
        for url in world.stepStarted where url != world.stepExplicitResume && !world.ranBeforeRelaunch.contains(url)
            && !world.stepContinued.contains(url) {
            guard let s = byURL[url] else { continue }
            if let older = waiting.first(where: { ($0.addTime, $0.url) < (s.addTime, s.url) }) {
                world.note(.startOrderIsAddOrder, "\(world.label(url)) started while the older \(world.label(older.url)) still waits")
            }
        }
        let downloading = Set(tasks.filter { $0.state == .downloading }.map(\.url))
        let running = Set(engine.transfers.keys)
        let runningNotFinishing = Set(engine.transfers.filter { !$0.value.finishing }.map(\.key))
        if !downloading.isSubset(of: running) || !runningNotFinishing.isSubset(of: downloading) {
            world.note(.engineAgrees, "downloading \(downloading.sorted().map(world.label)), engine transfers \(running.sorted().map(world.label))")
        }
    }
}

extension LifecycleWorld {
    static func exists(_ path: String) -> Bool { access(path, F_OK) == 0 }
}
