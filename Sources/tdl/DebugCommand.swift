import ArgumentParser
import Foundation
import TDLCore
import TDLBenchmarks
import TDLSession
import TDLStore
import TDLTerminal

struct DebugCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "debug",
        abstract: "Tools for measuring tdl.",
        shouldDisplay: false,
        subcommands: [Populate.self, BenchList.self, BenchSession.self, KeysMarkdown.self, QuickGetCheck.self]
    )

    /// The README's key table, made from the keys themselves (a test compares the two).
    struct KeysMarkdown: ParsableCommand {
        static let configuration = CommandConfiguration(commandName: "keys-markdown", abstract: "Print the README's table of keys.")

        func run() throws {
            print(Action.markdownTable)
        }
    }

    struct Populate: ParsableCommand {
        static let configuration = CommandConfiguration(commandName: "populate", abstract: "Fill the session with N made-up finished tasks (random add times and sizes).")

        @OptionGroup var global: GlobalOptions

        @Argument var count: Int

        func run() throws {
            do {
                let session = try Session(options: global, downloading: false, locking: true)
                let start = Date()
                session.manager.reproduceData(count: count)
                if let saveError = SessionSaver(session.manager).durablePoint() { throw CLIError.store(saveError) }
                print("added \(count) tasks in \(Int(Date().timeIntervalSince(start) * 1000)) ms")
            } catch {
                fail(with: error)
            }
        }
    }

    struct BenchList: ParsableCommand {
        static let configuration = CommandConfiguration(
            commandName: "bench-list",
            abstract: "Time sorting, adding and lookups on a made-up list in memory (use a release build).")

        @Option(help: "Tasks in the list.") var tasks = 100_000
        @Option(help: "Runs of each step; the fastest counts.") var repetitions = 3

        func run() throws {
            let results = ListBenchmark.run(taskCount: tasks, repetitions: repetitions)
            try DebugCommand.report(results)
        }
    }

    struct BenchSession: ParsableCommand {
        static let configuration = CommandConfiguration(
            commandName: "bench-session",
            abstract: "Time opening, restoring and checkpointing a made-up session in a temporary SQLite file (use a release build).")

        @Option(help: "Tasks in the session.") var tasks = 100_000
        @Option(help: "Downloads in one checkpoint.") var active = 100
        @Option(help: "Runs of each step; the fastest counts.") var repetitions = 3

        func run() throws {
            let folder = NSTemporaryDirectory() + "tdl-bench-session-\(getpid())"
            try FileManager.default.createDirectory(atPath: folder, withIntermediateDirectories: true)
            defer { try? FileManager.default.removeItem(atPath: folder) }
            let results = try SessionBenchmark.run(folder: folder, taskCount: tasks, activeCount: active, repetitions: repetitions)
            try DebugCommand.report(results)
        }
    }

    /// Prints the table; a step over its budget makes the exit status 1.
    static func report(_ results: [ListBenchmark.Result]) throws {
        print(ListBenchmark.table(results))
        if results.contains(where: { !$0.withinLimit }) { throw ExitCode(1) }
    }
}
