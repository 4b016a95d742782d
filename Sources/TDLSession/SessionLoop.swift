import Foundation
import Synchronization
import TDLCore
#if canImport(Glibc)
import Glibc
#endif

/// The signal that asked the loop to end (0: none): stored by the handler, loaded by the
/// loop. An atomic, because a handler may take no lock.
private let receivedSignal = Atomic<Int32>(0)

/// The one loop of a running tdl: `tdl get`, a `tdl get` handing its URLs to the tdl that
/// runs the session, and the full-screen list (which takes its turns one at a time). Each
/// turn waits on the transfers, the control socket and its connections at once; carries out
/// the requests of other tdl commands; then hands the turn to its owner. SIGINT, SIGTERM and
/// SIGHUP end the loop at the end of the turn instead of the process, so its owner can save
/// and say what happened; this is the only place tdl handles them. What a turn changed is
/// written at its end (`saver`), before the next wait.
public final class SessionLoop {
    /// What the turns drive: nil for a loop that only waits (the hand-over).
    public let manager: DownloadManager?
    public let control: ControlServer?
    /// Writes what each turn changed at its end; asked for a durable point by what must
    /// answer after its commit. Nil for a loop without a manager.
    public let saver: SessionSaver?
    /// How long a turn waits when nothing happens.
    public var timeoutMs: Int
    /// What a request from another tdl does: by default it is carried out on the manager.
    public var handle: (ControlRequest) -> ControlReply

    /// What one turn brought.
    public struct Turn {
        /// The descriptors that are ready.
        public var ready: Set<Int32>
        /// One line per request that changed something ("added 2 downloads from another tdl").
        public var notes: [String]
    }

    /// Installs the handlers: from now on SIGINT, SIGTERM and SIGHUP end the loop, not the process.
    public init(manager: DownloadManager?, control: ControlServer? = nil, timeoutMs: Int = 200) {
        self.manager = manager
        self.control = control
        self.timeoutMs = timeoutMs
        let saver = manager.map(SessionSaver.init)
        self.saver = saver
        handle = { request in
            guard let saver else { return ControlReply(problems: ["this tdl does not run the session"], status: ExitStatus.session) }
            return ControlActions.perform(request, on: saver)
        }
        receivedSignal.store(0, ordering: .relaxed)
        let handler: @convention(c) (Int32) -> Void = { signal in receivedSignal.store(signal, ordering: .relaxed) }
        for sig in [SIGINT, SIGTERM, SIGHUP] { signal(sig, handler) }
    }

    /// The signal that ended the loop, if one did.
    public var interruption: Int32? {
        let signal = receivedSignal.load(ordering: .relaxed)
        return signal == 0 ? nil : signal
    }

    /// Turns while `keepGoing` says so and no signal came, calling `body` after each turn;
    /// `watching` names more descriptors to wait on, asked anew each turn.
    public func run(while keepGoing: () -> Bool, watching: () -> [WatchedFD] = { [] },
                    _ body: (Turn) throws -> Void) rethrows {
        while interruption == nil && keepGoing() {
            let turn = self.turn(watching: watching())
            try body(turn)
        }
        saver?.endOfTurn()
    }

    /// One turn: waits up to `timeoutMs` (the loop's own unless given: the full-screen list
    /// wakes sooner while it has a frame to draw) for the transfers, the control socket or
    /// `extra`, then serves the control socket's ready connections (and drops those past
    /// their deadline).
    public func turn(watching extra: [WatchedFD] = [], timeoutMs: Int? = nil) -> Turn {
        // The turn before ends here: what its owner changed after the last wait is written.
        saver?.endOfTurn()
        let fds = (control?.watched ?? []) + extra
        let timeoutMs = timeoutMs ?? self.timeoutMs
        let ready: Set<Int32>
        if let manager, manager.engine != nil {
            ready = manager.runOnce(timeoutMs: timeoutMs, watching: fds)
        } else {
            ready = Self.wait(fds, timeoutMs: timeoutMs)
            manager?.tick()
        }
        return Turn(ready: ready, notes: control?.serve(ready: ready, handle) ?? [])
    }

    /// poll(2) on the descriptors: what a turn without an engine waits on. A signal ends the wait.
    static func wait(_ watched: [WatchedFD], timeoutMs: Int) -> Set<Int32> {
        var fds = watched.map { pollfd(fd: $0.fd, events: Int16($0.readiness == .readable ? POLLIN : POLLOUT), revents: 0) }
        guard poll(&fds, nfds_t(fds.count), Int32(timeoutMs)) > 0 else { return [] }
        return Set(fds.filter { $0.revents != 0 }.map(\.fd))
    }
}
