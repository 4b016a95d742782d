import ArgumentParser
import Foundation
import TDLSession
import TDLStore

/// `tdl session list|destroy`: the independent lists kept in one home (SDE's managers).
struct SessionCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "session",
        abstract: "List the sessions of this home, or destroy one that is not in use.",
        subcommands: [List.self, Destroy.self]
    )

    struct HomeOption: ParsableArguments {
        @Option(help: ArgumentHelp("Folder that holds the session database (env TDL_HOME).", valueName: "dir"))
        var home: String?
    }

    static func databasePath(_ home: String) -> String { (home as NSString).appendingPathComponent("session.sqlite") }

    struct List: ParsableCommand {
        static let configuration = CommandConfiguration(commandName: "list", abstract: "Each session with its number of tasks, and whether a tdl runs it.",
                                                        discussion: ExitStatus.readHelp)

        @OptionGroup var options: HomeOption

        func run() throws {
            let home = Paths.home(options.home)
            let path = SessionCommand.databasePath(home)
            guard FileManager.default.fileExists(atPath: path) else { return }
            do {
                for (name, count) in try SQLiteSessionStore.sessions(path: path) {
                    // Asking the socket, not the lock: taking the lock, even briefly, could turn
                    // away a tdl that is starting on that session.
                    let inUse = ControlClient.isListening(home: home, session: name) ? "\tin use" : ""
                    print("\(ScreenSafe.clean(name))\t\(count) task\(count == 1 ? "" : "s")\(inUse)")
                }
            } catch {
                fail(with: error)
            }
        }
    }

    struct Destroy: ParsableCommand {
        static let configuration = CommandConfiguration(
            commandName: "destroy",
            abstract: "Forget a session's list, trash and settings. Downloaded files are never deleted.",
            discussion: "Refused while a tdl runs the session. \(ExitStatus.destroyHelp)")

        @OptionGroup var options: HomeOption

        @Argument(help: "The session's name.")
        var name: String

        func validate() throws { try GlobalOptions.checkSessionName(name) }

        func run() throws {
            let home = Paths.home(options.home)
            let path = SessionCommand.databasePath(home)
            do {
                guard FileManager.default.fileExists(atPath: path),
                      try SQLiteSessionStore.sessions(path: path).contains(where: { $0.name == name }) else {
                    throw CLIError.badArgument("no session named \"\(name)\" in \(home)")
                }
                let lock = try Session.lock(home: home, session: name)
                try SQLiteSessionStore.destroySession(name, path: path)
                unlink(ControlSocket.path(home: home, session: name))
                unlink(lock.path)
                print("destroyed the session \"\(ScreenSafe.clean(name))\" (downloaded files were kept)")
            } catch {
                fail(with: error)
            }
        }
    }
}
