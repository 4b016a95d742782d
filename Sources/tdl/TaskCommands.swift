import ArgumentParser
import Foundation
import TDLCore
import TDLSession

/// `tdl pause|resume|stop|restart|rm URL…`: act on the running tdl, or on the saved session
/// when none runs.
protocol TaskCommand: ParsableCommand {
    var global: GlobalOptions { get }
    var request: ControlRequest { get }
}

extension TaskCommand {
    func run() throws {
        do {
            SessionRoute.finish(try SessionRoute.run(request, options: global))
        } catch {
            fail(with: error)
        }
    }

    static func describe(_ name: String, _ abstract: String) -> CommandConfiguration {
        CommandConfiguration(commandName: name, abstract: abstract, discussion: """
            Acts on the tdl that runs the session, or on the saved session when none runs. \
            \(ExitStatus.taskHelp)
            """)
    }
}

/// URLs, or `--all` of them (pause and resume).
struct URLsOrAll: ParsableArguments {
    @Argument(help: "URLs of downloads in the session.") var urls: [String] = []
    @Flag(help: "Every download in the list this command can change.") var all = false

    func validate() throws {
        if urls.isEmpty && !all { throw ValidationError("Missing expected argument: the URLs of downloads, or --all") }
        if !urls.isEmpty && all { throw ValidationError("give URLs or --all, not both") }
    }
}

struct PauseCommand: TaskCommand {
    static let configuration = describe("pause", "Pause downloads (they keep their bytes).")
    @OptionGroup var global: GlobalOptions
    @OptionGroup var target: URLsOrAll
    var request: ControlRequest { ControlRequest(command: .pause, urls: target.urls, all: target.all) }
}

struct ResumeCommand: TaskCommand {
    static let configuration = describe("resume", "Resume paused, stopped or failed downloads.")
    @OptionGroup var global: GlobalOptions
    @OptionGroup var target: URLsOrAll
    var request: ControlRequest { ControlRequest(command: .resume, urls: target.urls, all: target.all) }
}

struct StopCommand: TaskCommand {
    static let configuration = describe("stop", "Stop downloads (they keep their bytes; resume continues).")
    @OptionGroup var global: GlobalOptions
    @Argument(help: "URLs of downloads in the session.") var urls: [String]
    var request: ControlRequest { ControlRequest(command: .stop, urls: urls) }
}

struct RestartCommand: TaskCommand {
    static let configuration = describe("restart", "Download again from zero (the partial or finished file is deleted).")
    @OptionGroup var global: GlobalOptions
    @Argument(help: "URLs of downloads in the session.") var urls: [String]
    var request: ControlRequest { ControlRequest(command: .restart, urls: urls) }
}

struct RemoveCommand: TaskCommand {
    static let configuration = describe("rm", """
        Move downloads to the trash; with --purge forget them for good (from the list or the \
        trash). Finished files stay on disk either way; partial files go with --purge.
        """)
    @OptionGroup var global: GlobalOptions
    @Argument(help: "URLs of downloads in the session.") var urls: [String]
    @Flag(help: "Forget them for good, and delete their partial files.") var purge = false
    var request: ControlRequest { ControlRequest(command: purge ? .purge : .remove, urls: urls) }
}
