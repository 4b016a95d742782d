import Foundation
import TDLCore
#if canImport(Glibc)
import Glibc
#endif

/// Work handed to the event loop from other threads: a locked queue, and a pipe the loop
/// watches (`watched`) so that a posted job wakes it at once. Only the loop runs the jobs
/// (`runJobs`), so they may use the manager; the threads that post never touch it. A loop
/// busy with transfers does not look at the pipe until their turn ends: `wake` (the engine's
/// `wakeUp`) ends that turn early.
public final class LoopInbox: @unchecked Sendable {
    private let lock = NSLock()
    private var jobs: [() -> Void] = []
    private var signalled = false
    private let readFD: Int32
    private let writeFD: Int32
    private var closed = false
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
    public func post(_ job: @escaping () -> Void) {
        lock.lock()
        jobs.append(job)
        let first = !signalled
        if first {
            signalled = true
            var byte: UInt8 = 1
            _ = write(writeFD, &byte, 1)
        }
        lock.unlock()
        if first { wake() }
    }

    /// From an async context: runs `work` on the loop and returns its result.
    func ask<T>(_ work: @escaping () -> T) async -> T {
        await withCheckedContinuation { (continuation: CheckedContinuation<UncheckedBox<T>, Never>) in
            post { continuation.resume(returning: UncheckedBox(work())) }
        }.value
    }

    /// On the loop: runs what was posted so far; returns how many jobs ran.
    @discardableResult
    public func runJobs() -> Int {
        lock.lock()
        let taken = jobs
        jobs = []
        if signalled {
            var buffer = [UInt8](repeating: 0, count: 64)
            while read(readFD, &buffer, buffer.count) > 0 {}
            signalled = false
        }
        lock.unlock()
        for job in taken { job() }
        return taken.count
    }
}

/// Carries a value that is made on the loop and only read after it is handed over.
struct UncheckedBox<T>: @unchecked Sendable {
    let value: T
    init(_ value: T) { self.value = value }
}

public struct RPCServerError: Error, CustomStringConvertible {
    public let description: String
    public init(_ description: String) { self.description = description }
}
