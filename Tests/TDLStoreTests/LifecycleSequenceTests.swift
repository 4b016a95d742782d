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
