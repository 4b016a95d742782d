import ArgumentParser
import Foundation
import TDLCore
import TDLSession

/// `tdl pause|resume|stop|restart|rm URL…`: act on the running tdl, or on the saved session
/// when none runs.
protocol TaskCommand: ParsableCommand {
    static var command: ControlRequest.Command { get }
    var global: GlobalOptions { get }
    var urls: [String] { get }
}

extension TaskCommand {
    func run() throws {
        do {
            SessionRoute.finish(try SessionRoute.run(ControlRequest(command: Self.command, urls: urls), options: global))
        } catch {
            fail(with: error)
        }
    }

    static func describe(_ name: String, _ abstract: String) -> CommandConfiguration {
        CommandConfiguration(commandName: name, abstract: abstract, discussion: """
            Acts on the tdl that runs the session, or on the saved session when none runs. \
            \(ExitStatus.help)
            """)
    }
}

struct PauseCommand: TaskCommand {
    static let configuration = describe("pause", "Pause downloads (they keep their bytes).")
    static let command = ControlRequest.Command.pause
    @OptionGroup var global: GlobalOptions
    @Argument(help: "URLs of downloads in the session.") var urls: [String]
}

struct ResumeCommand: TaskCommand {
    static let configuration = describe("resume", "Resume paused, stopped or failed downloads.")
    static let command = ControlRequest.Command.resume
    @OptionGroup var global: GlobalOptions
    @Argument(help: "URLs of downloads in the session.") var urls: [String]
}

struct StopCommand: TaskCommand {
    static let configuration = describe("stop", "Stop downloads (they keep their bytes; resume continues).")
    static let command = ControlRequest.Command.stop
    @OptionGroup var global: GlobalOptions
    @Argument(help: "URLs of downloads in the session.") var urls: [String]
}

struct RestartCommand: TaskCommand {
    static let configuration = describe("restart", "Download again from zero (the partial or finished file is deleted).")
    static let command = ControlRequest.Command.restart
    @OptionGroup var global: GlobalOptions
    @Argument(help: "URLs of downloads in the session.") var urls: [String]
}

struct RemoveCommand: TaskCommand {
    static let configuration = describe("rm", "Move downloads to the trash (finished files stay on disk).")
    static let command = ControlRequest.Command.remove
    @OptionGroup var global: GlobalOptions
    @Argument(help: "URLs of downloads in the session.") var urls: [String]
}
