import ArgumentParser
import Foundation
import TDLSession
import TDLTransfer

/// Errors that end a command with one clear line and a documented exit status.
enum CLIError: Error, CustomStringConvertible {
    case badDirectory(String, String)
    case sessionInUse(String)
    case store(String)
    case badArgument(String)

    var description: String {
        switch self {
        case let .badDirectory(path, why): return "cannot use the folder \(path): \(why)"
        case let .sessionInUse(session): return "the session \"\(session)\" is in use by another tdl; quit it or use --session"
        case let .store(text): return text
        case let .badArgument(text): return text
        }
    }

    /// Documented in `tdl --help`.
    var exitCode: Int32 {
        switch self {
        case .badDirectory: return ExitStatus.badDirectory
        case .badArgument: return ExitStatus.badInput
        case .sessionInUse: return ExitStatus.sessionInUse
        case .store: return ExitStatus.session
        }
    }
}

/// What each command's help says of its exit status; each says only what it can return.
extension ExitStatus {
    static let help = """
        Exit status: 0 all requested files finished; 1 a download failed; 2 bad input (a URL, \
        an option value or an input-file line; the rest still runs); 3 the session is in use by \
        another tdl; 4 the download folder cannot be used; 5 the session database cannot be \
        used; 64 unknown option or missing argument; 130 interrupted.
        """

    static let addHelp = """
        Exit status: 0 every URL added or already there; 2 bad input (a URL, an option value \
        or an input-file line; the rest is added); 5 the session database cannot be used; 64 \
        unknown option or missing argument.
        """

    static let taskHelp = """
        Exit status: 0 every download changed; 1 one was left as it was (the line says why); \
        2 a URL not in the session; 5 the session database cannot be used; 64 unknown option \
        or missing argument.
        """

    static let destroyHelp = """
        Exit status: 0 forgotten; 3 a tdl runs the session; 5 the session database cannot be \
        used; 64 unknown option or missing argument.
        """

    static let readHelp = """
        Exit status: 0 printed; 5 the session database cannot be used; 64 unknown option or \
        missing argument.
        """
}

/// Prints the error and exits with its status.
func fail(with error: Error) -> Never {
    let message = (error as? CLIError)?.description ?? "\(error)"
    StandardStreams.error("tdl: " + message + "\n")
    exit((error as? CLIError)?.exitCode ?? ExitStatus.session)
}
