import CCurl
import Dispatch
import Foundation
import TDLCore
#if canImport(Glibc)
import Glibc
#endif

/// The file worker's own thread: runs jobs one at a time, in the order they came, at a lower
/// priority than the loop. On two cores the worker's writes of two full-speed downloads kept
/// the loop waiting for a core 30–40% of the time, and a key waited with it; niced, the
/// worker still gets every core the loop leaves idle. A thread of its own, not a dispatch
/// queue: a queue's jobs run on shared pool threads, which would keep the lower priority.
final class WorkerThread: Sendable {
    /// How much nicer than the loop the worker runs (at most 19).
    static let niceness: Int32 = 10
    private struct Jobs {
        var waiting: [@Sendable () -> Void] = []
        var stopping = false
    }
    /// Appended by the loop, taken by the thread.
    private let jobs = Locked(Jobs())
    /// Signalled once per job added (and at the stop): the thread sleeps on it when idle.
    private let added = DispatchSemaphore(value: 0)

    init(name: String) {
        let thread = Thread { [jobs, added] in Self.serve(jobs, added) }
        thread.name = name
        thread.start()
    }

    /// Runs `job` on the thread after everything added before it.
    func async(_ job: @escaping @Sendable () -> Void) {
        jobs.withLock { $0.waiting.append(job) }
        added.signal()
    }

    /// Returns once everything added so far has run.
    func sync() {
        let done = DispatchSemaphore(value: 0)
        async { done.signal() }
        done.wait()
    }

    /// The thread ends once the jobs added so far have run.
    func stop() {
        jobs.withLock { $0.stopping = true }
        added.signal()
    }

    private static func serve(_ jobs: Locked<Jobs>, _ added: DispatchSemaphore) {
        // Linux gives each thread its own nice value (a raise back would need privileges).
        let tid = id_t(tdl_gettid())
        errno = 0
        let own = getpriority(__priority_which_t(PRIO_PROCESS.rawValue), tid)
        if errno == 0 { _ = setpriority(__priority_which_t(PRIO_PROCESS.rawValue), tid, min(19, own + niceness)) }
        while true {
            let (batch, stopping) = jobs.withLock { state in
                defer { state.waiting = [] }
                return (state.waiting, state.stopping)
            }
            for job in batch { job() }
            if batch.isEmpty {
                if stopping { return }
                added.wait()
            }
        }
    }
}
