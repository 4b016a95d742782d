import Foundation
import TDLCore
import TDLSession

/// Sends a request to the tdl that runs the session, or carries it out on the saved session
/// when none runs. Two processes never write one session: the saved session is changed only
/// under its lock.
enum SessionRoute {
    /// Taken (`consuming`): carried out here, the request is let go as soon as it is used (see
    /// `ControlActions.perform`).
    static func run(_ request: consuming ControlRequest, options: GlobalOptions) throws -> ControlReply {
        let home = Paths.home(options.home)
        // A tdl that is starting holds the lock a moment before it listens: ask again briefly.
        let deadline = Date().addingTimeInterval(3)
        while true {
            switch ControlClient.send(request, home: home, session: options.session) {
            case .answered(let reply):
                return reply
            case .failed(let why):
                throw CLIError.store(why)
            case .nobodyListens:
                let session: Session
                do {
                    // Not restoring: the next tdl that downloads is the one to say what a crash cut off.
                    session = try Session(options: options, downloading: false, locking: true, restoring: false,
                                          onlyTasks: tasksAlone(request))
                } catch CLIError.sessionInUse(let name) {
                    if Date() > deadline { throw CLIError.sessionInUse(name) }
                    usleep(100_000)
                    continue
                }
                if let notice = session.notice { warn(notice) }
                if request.command == .add { session.knowConfigQueues() }
                let reply = ControlActions.perform(consume request, on: SessionSaver(session.manager))
                // The reply is printed and the process ends: a million added tasks are not
                // freed one by one first.
                session.endWithoutFreeing()
                return reply
            }
        }
    }

    /// `TDL_WHOLE_SESSION=1`: every request loads the whole session (see `tasksAlone`).
    static var loadsWholeSession: Bool { EnvironmentVariable.value("TDL_WHOLE_SESSION") == "1" }

    /// The tasks a request changes when it can be carried out on their rows alone; nil when it
    /// needs the whole session: `--all` (every task in a state) and `status` without URLs (every
    /// active task) ask about all of them. `TDL_WHOLE_SESSION=1` loads the whole session for
    /// every request, to compare the two.
    static func tasksAlone(_ request: ControlRequest) -> [String]? {
        if loadsWholeSession { return nil }
        if request.command == .queue { return [] }  // the settings alone
        guard request.all != true, !request.items.isEmpty else { return nil }
        return request.items.map(\.url)
    }

    /// Prints a reply the way every command does and exits with its status.
    static func finish(_ reply: ControlReply) -> Never {
        var out = OutputBuffer()
        for line in reply.lines {
            out.append(line)
            out.append("\n")
            out.flushIfFull()
        }
        out.flush()
        for problem in reply.problems { warn(problem) }
        StandardStreams.flushOutput()
        exit(reply.status)
    }
}
