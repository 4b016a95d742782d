import Foundation
import TDLCore
#if canImport(Glibc)
import Glibc
#endif

/// Work handed to the event loop from other threads: a locked queue, and a pipe the loop
/// watches (`watched`) so that a posted job wakes it at once. Only the loop runs the jobs
/// (`runJobs`), so they may use the manager; the threads that post never touch it. A loop
/// busy with transfers does not look at the pipe until their turn ends: `wake` (the engine's
/// `waker`) ends that turn early.
///
/// The jobs are `@Sendable`: what they use of the loop's objects travels in a `LoopBound`.
public final class LoopInbox: Sendable {
    private struct State {
        var jobs: [@Sendable () -> Void] = []
        /// A byte is in the pipe.
        var signalled = false
    }

    /// Guards the queue and the pipe's byte: posting and taking are each one locked step.
    private let state = Locked(State())
    private let readFD: Int32
    private let writeFD: Int32
    private let wake: @Sendable () -> Void

    public init(wake: @escaping @Sendable () -> Void = {}) throws {
        self.wake = wake
        var fds: [Int32] = [0, 0]
        guard pipe(&fds) == 0 else { throw RPCServerError("cannot create a pipe: \(String(cString: strerror(errno)))") }
        for fd in fds {
            _ = fcntl(fd, F_SETFD, FD_CLOEXEC)
            _ = fcntl(fd, F_SETFL, fcntl(fd, F_GETFL) | O_NONBLOCK)
        }
        readFD = fds[0]
        writeFD = fds[1]
    }

    deinit {
        close(readFD)
        close(writeFD)
    }

    /// What the loop waits on besides its own descriptors.
    public var watched: WatchedFD { .reading(readFD) }

    /// From any thread: `job` runs on the loop's next turn.
    public func post(_ job: @escaping @Sendable () -> Void) {
        let writeFD = self.writeFD
        let first = state.withLock { s in
            s.jobs.append(job)
            guard !s.signalled else { return false }
            s.signalled = true
            var byte: UInt8 = 1
            _ = write(writeFD, &byte, 1)
            return true
        }
        if first { wake() }
    }

    /// From an async context: runs `work` on the loop and returns its result.
    func ask<T: Sendable>(_ work: @escaping @Sendable () -> T) async -> T {
        await withCheckedContinuation { (continuation: CheckedContinuation<T, Never>) in
            post { continuation.resume(returning: work()) }
        }
    }

    /// On the loop: runs what was posted so far; returns how many jobs ran.
    @discardableResult
    public func runJobs() -> Int {
        let readFD = self.readFD
        let taken = state.withLock { s in
            defer { s.jobs = [] }
            if s.signalled {
                var buffer = [UInt8](repeating: 0, count: 64)
                while read(readFD, &buffer, buffer.count) > 0 {}
                s.signalled = false
            }
            return s.jobs
        }
        for job in taken { job() }
        return taken.count
    }
}

public struct RPCServerError: Error, CustomStringConvertible {
    public let description: String
    public init(_ description: String) { self.description = description }
}
