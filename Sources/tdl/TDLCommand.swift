import ArgumentParser
import Foundation
import TDLCore
import TDLSession
import TDLTransfer

/// Options every command takes.
struct GlobalOptions: ParsableArguments {
    @Option(help: ArgumentHelp("Folder that holds the session database (env TDL_HOME; default $XDG_DATA_HOME/tdl or ~/.local/share/tdl).", valueName: "dir"))
    var home: String?

    @Option(help: "Name of the session: independent lists side by side.")
    var session: String = "default"

    @Option(name: [.short, .customLong("dir")], help: ArgumentHelp("Download folder (default $XDG_DOWNLOAD_DIR or ~/Downloads); remembered by the session.", valueName: "dir"))
    var dir: String?

    /// The name becomes file names beside the database (lock, socket): no folders in it.
    func validate() throws { try Self.checkSessionName(session) }

    static func checkSessionName(_ name: String) throws {
        if name.isEmpty || name.utf8.contains(UInt8(ascii: "/")) || name.hasPrefix(".") || name.utf8.count > 64 {
            throw ValidationError("a session name has up to 64 bytes, no \"/\" and no leading \".\"")
        }
    }
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
        version: EngineSettings.version,
        subcommands: [UICommand.self, GetCommand.self, ServeCommand.self, AddCommand.self, ListCommand.self, PauseCommand.self, ResumeCommand.self,
                      StopCommand.self, RestartCommand.self, RemoveCommand.self, SessionCommand.self, DebugCommand.self,
                      ManPageCommand.self],
        defaultSubcommand: UICommand.self
    )
}
