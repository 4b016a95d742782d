import ArgumentParser
import Foundation
import TDLCore

struct DebugCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "debug",
        abstract: "Tools for measuring tdl.",
        shouldDisplay: false,
        subcommands: [Populate.self]
    )

    struct Populate: ParsableCommand {
        static let configuration = CommandConfiguration(abstract: "Fill the session with N made-up finished tasks (random add times and sizes).")

        @OptionGroup var global: GlobalOptions

        @Argument var count: Int

        func run() throws {
            do {
                let session = try Session(options: global, downloading: false)
                let start = Date()
                session.manager.reproduceData(count: count)
                session.manager.flush()
                print("added \(count) tasks in \(Int(Date().timeIntervalSince(start) * 1000)) ms")
            } catch {
                exit(with: error)
            }
        }
    }
}
