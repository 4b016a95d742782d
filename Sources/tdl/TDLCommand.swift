import ArgumentParser
import Foundation
import TDLCore
import TDLSession
import TDLTransfer

/// Options every command takes: which session.
struct GlobalOptions: ParsableArguments {
    @Option(help: ArgumentHelp("Folder that holds the session database (env TDL_HOME; default $XDG_DATA_HOME/tdl or ~/.local/share/tdl).", valueName: "dir"))
    var home: String?

    @Option(help: "Name of the session: independent lists side by side.")
    var session: String = "default"

    /// The name becomes file names beside the database (lock, socket): no folders in it.
    func validate() throws { try Self.checkSessionName(session) }

    static func checkSessionName(_ name: String) throws {
        if name.isEmpty || name.utf8.contains(UInt8(ascii: "/")) || name.hasPrefix(".") || name.utf8.count > 64 {
            throw ValidationError("a session name has up to 64 bytes, no \"/\" and no leading \".\"")
        }
    }
}

/// The download folder, for the commands that add downloads.
struct FolderOption: ParsableArguments {
    @Option(name: [.short, .customLong("dir")], help: ArgumentHelp("Download folder (default $XDG_DOWNLOAD_DIR or ~/Downloads); remembered by the session.", valueName: "dir"))
    var dir: String?
}

@main
struct TDLCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "tdl",
        abstract: "A download manager that lives in the terminal.",
        discussion: """
            Without a subcommand tdl opens its full-screen list. Press ? there for every key.
            Quitting, a crash or kill -9 keep the list: unfinished downloads continue from the \
            bytes they have.

            \(ExitStatus.help)
            """,
        version: CommandLine.arguments.contains("--version")
            ? EngineSettings.version + "\n" + LinkedLibraries.description : EngineSettings.version,
        subcommands: [UICommand.self, GetCommand.self, ServeCommand.self, AddCommand.self, ListCommand.self, PauseCommand.self, ResumeCommand.self,
                      StopCommand.self, RestartCommand.self, RemoveCommand.self, SessionCommand.self, QueueCommand.self, ConfigCommand.self, DebugCommand.self,
                      ManPageCommand.self],
        defaultSubcommand: UICommand.self
    )

    /// As ArgumentParser's, with the exit statuses `tdl --help` promises: an option value tdl
    /// cannot use is bad input (2); an unknown option, command or missing argument is a usage
    /// error (64); an unknown command names the commands instead of printing the list's usage.
    static func main() {
        StandardStreams.ignoreBrokenPipes()
        if let invalid = ArgumentBytes.firstInvalid() {
            StandardStreams.error("tdl: \(invalid) is not valid UTF-8\n")
            Foundation.exit(ExitStatus.badInput)
        }
        let arguments = Array(CommandLine.arguments.dropFirst())
        // A quick `get` names a known command: it skips making every command's configuration
        // for the list of names (about 0.2 ms of a one-file `get`).
        let quick = QuickGet.command(arguments)
        if quick == nil { refuseUnknownCommand(arguments) }
        do {
            var command: any ParsableCommand
            if let quick { command = quick } else { command = try parseAsRoot(arguments) }
            try command.run()
        } catch {
            let message = fullMessage(for: error)
            guard exitCode(for: error) == .validationFailure, isBadValue(message) else { exit(withError: error) }
            StandardStreams.error(message + "\n")
            Foundation.exit(ExitStatus.badInput)
        }
    }

    /// An unknown command is named with the commands there are, not answered with the list's
    /// usage; `tdl help nosuch` is refused rather than answered with the list's help.
    static func refuseUnknownCommand(_ arguments: [String]) {
        let names = configuration.subcommands.map { $0.configuration.commandName ?? "" } + ["help"]
        if let first = arguments.first, !first.hasPrefix("-"), !names.contains(first) {
            let shown = ScreenSafe.clean(URLCheck.withoutPassword(first))
            let text = first.contains("://")
                ? "tdl: \(shown) is not a command: tdl get URL downloads it, tdl add URL queues it"
                : "tdl: unknown command \"\(shown)\"; the commands are \(names.dropLast().joined(separator: ", ")) (tdl help COMMAND explains one)"
            StandardStreams.error(text + "\n")
            Foundation.exit(ExitCode.validationFailure.rawValue)
        }
        // `tdl help nosuch` printed the list's help and exited 0, as if it had helped.
        if arguments.first == "help", arguments.count > 1, !arguments[1].hasPrefix("-"), !names.contains(arguments[1]) {
            let shown = ScreenSafe.clean(arguments[1])
            StandardStreams.error("tdl: no help for \"\(shown)\": it is not a command; the commands are \(names.dropLast().joined(separator: ", "))\n")
            Foundation.exit(ExitCode.validationFailure.rawValue)
        }
    }

    /// ArgumentParser words a usage error in these few ways; anything else it reports is a
    /// value that did not pass (a type it could not read, or a command's own check).
    static func isBadValue(_ message: String) -> Bool {
        let usageErrors = ["Unknown option", "Unexpected argument", "Missing expected argument", "Missing value"]
        let text = message.hasPrefix("Error: ") ? String(message.dropFirst(7)) : message
        return !usageErrors.contains { text.hasPrefix($0) }
    }
}
