import ArgumentParser
import Foundation
import TDLCore
import TDLSession

/// `tdl queue add|list|set|rm`: the session's named queues, each with its own downloads at
/// once, rate cap and hours. Acts on the tdl that runs the session, or on the saved session.
struct QueueCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "queue",
        abstract: "Named queues: downloads at once, a rate cap and hours of their own.",
        discussion: """
            A download goes in a queue with --queue NAME (tdl get, tdl add) or queue=NAME in an \
            input file; one in no queue is in the default queue. Outside its hours a queue \
            starts nothing, and its running downloads wait (keeping their bytes) for its next \
            opening. The session's own limits (-j, --limit-rate) still cap every queue.
            """,
        subcommands: [Add.self, List.self, Set.self, Remove.self]
    )

    /// What `add` and `set` may give.
    struct Fields: ParsableArguments {
        @Option(help: ArgumentHelp("Downloads of this queue at once (0: only the session's limit).", valueName: "n"))
        var max: Int?

        @Option(help: ArgumentHelp("Rate cap for the queue's downloads together, e.g. 500K (0: none).", valueName: "rate"))
        var limit: String?

        @Option(help: ArgumentHelp("Hours the queue runs, local time, e.g. 22:00-06:00 (repeatable).", valueName: "HH:MM-HH:MM"))
        var window: [String] = []

        @Option(help: ArgumentHelp("Days its windows open on, e.g. mon-fri or sat,sun (alone: those whole days).", valueName: "days"))
        var days: String?

        @Flag(help: "Run at any time (drops the windows).")
        var anyTime = false

        func validate() throws {
            if let max, !(0...SessionSettings.largestDownloadCount).contains(max) {
                throw ValidationError("--max must be between 0 and \(SessionSettings.largestDownloadCount)")
            }
            if let limit { do { _ = try RateText.parse(limit) } catch { throw ValidationError("--limit: \(error)") } }
            if anyTime && (!window.isEmpty || days != nil) { throw ValidationError("--any-time drops the windows: give it alone") }
            _ = try hours()
        }

        /// The hours given, or nil when none were.
        func hours() throws -> OpenHours? {
            if anyTime { return .always }
            let weekdays: Weekdays
            do { weekdays = try days.map(Weekdays.parse) ?? .all } catch { throw ValidationError("--days: \(error)") }
            if window.isEmpty { return days == nil ? nil : OpenHours([TimeWindow(start: 0, end: 1440, days: weekdays)]) }
            do {
                return OpenHours(try window.map { try TimeWindow.parse($0, days: weekdays) })
            } catch {
                throw ValidationError("--window: \(error)")
            }
        }

        func edit(_ name: String, creating: Bool) throws -> QueueEdit {
            QueueEdit(name: name, creating: creating, maxActive: max, rateLimit: try limit.map(RateText.parse), hours: try hours())
        }
    }

    static func send(_ change: QueueChange, _ global: GlobalOptions) -> Never {
        var request = ControlRequest(command: .queue, items: [])
        request.queueChange = change
        do {
            SessionRoute.finish(try SessionRoute.run(request, options: global))
        } catch {
            fail(with: error)
        }
    }

    static func checkName(_ name: String) throws {
        if let problem = QueueDefinition.problem(withName: name) { throw ValidationError(problem) }
    }

    struct Add: ParsableCommand {
        static let configuration = CommandConfiguration(commandName: "add", abstract: "Make a queue.")
        @OptionGroup var global: GlobalOptions
        @Argument(help: "The queue's name (letters, digits, '.', '_', '-').") var name: String
        @OptionGroup var fields: Fields
        func validate() throws { try QueueCommand.checkName(name) }
        func run() throws { QueueCommand.send(.edit(try fields.edit(name, creating: true)), global) }
    }

    struct Set: ParsableCommand {
        static let configuration = CommandConfiguration(commandName: "set", abstract: "Change a queue (what is not given stays).")
        @OptionGroup var global: GlobalOptions
        @Argument(help: "The queue's name.") var name: String
        @OptionGroup var fields: Fields
        func validate() throws { try QueueCommand.checkName(name) }
        func run() throws { QueueCommand.send(.edit(try fields.edit(name, creating: false)), global) }
    }

    struct List: ParsableCommand {
        static let configuration = CommandConfiguration(commandName: "list", abstract: "Each queue with its limits and hours.")
        @OptionGroup var global: GlobalOptions
        func run() throws { QueueCommand.send(.list, global) }
    }

    struct Remove: ParsableCommand {
        static let configuration = CommandConfiguration(commandName: "rm", abstract: "Remove a queue; its downloads go to the default queue.")
        @OptionGroup var global: GlobalOptions
        @Argument(help: "The queue's name.") var name: String
        func run() throws { QueueCommand.send(.remove(name), global) }
    }
}
