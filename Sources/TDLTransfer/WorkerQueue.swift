import CCurl
import Dispatch
import TDLCore

/// The one serial background thread for slow file-system work (writes, fdatasync, the
/// finish), and the way its results come back to the loop. Only Sendable values cross: the
/// worker runs a `@Sendable` job and hands back its result; what the loop does with it stays
/// on the loop, kept here under a ticket until the result is in. Anything queued runs after
/// what was queued before it, so a sync or a finish sees the writes handed over earlier.
final class WorkerQueue {
    private let queue = DispatchQueue(label: "tdl.worker")
    private let inbox: Inbox
    /// Loop only: what to do with each ticket's result.
    private var continuations: [Int: (any Sendable) -> Void] = [:]
    private var nextTicket = 0

    init(wake: MultiWake) {
        inbox = Inbox(wake: wake)
    }

    /// Starts the thread before the first job needs it (dispatch starts it at the first job),
    /// so the first file's bytes do not wait for it; the engine starts it while its first
    /// requests wait for their answers, not on the way to sending them.
    func startThread() {
        queue.async {}
    }

    /// Runs `job` on the worker; nothing comes back.
    func run(_ job: @escaping @Sendable () -> Void) {
        queue.async(execute: job)
    }

    /// Runs `job` on the worker, then `then` with its result on the loop (in `runCompleted`).
    /// `wakesLoop` says whether the result is worth waking the loop for at once.
    func run<R: Sendable>(_ job: @escaping @Sendable () -> R, wakesLoop: @escaping @Sendable (R) -> Bool = { _ in true },
                          then: @escaping (R) -> Void) {
        let ticket = expect { then($0 as! R) }
        queue.async { [inbox] in
            let result = job()
            inbox.deliver(ticket, result, wake: wakesLoop(result))
        }
    }

    /// Loop → loop: runs `work` at the loop's next safe step, in order with the worker's
    /// results (inside a libcurl callback handles may not be added or removed).
    func later(_ work: @escaping () -> Void) {
        let ticket = expect { _ in work() }
        inbox.deliver(ticket, (), wake: true)
    }

    /// Waits until everything queued on the worker so far is done.
    func drain() {
        queue.sync {}
    }

    /// Loop: runs what came back, in the order it came; true when there was anything.
    @discardableResult
    func runCompleted() -> Bool {
        var ranAny = false
        while true {
            let done = inbox.take()
            if done.isEmpty { return ranAny }
            ranAny = true
            for (ticket, result) in done {
                continuations.removeValue(forKey: ticket)?(result)
            }
        }
    }

    private func expect(_ continuation: @escaping (any Sendable) -> Void) -> Int {
        nextTicket += 1
        continuations[nextTicket] = continuation
        return nextTicket
    }
}

/// Results handed back to the loop, and its wake-up.
private final class Inbox: Sendable {
    /// Guarded by its lock: appended by the worker (and the loop), taken by the loop.
    private let done = Locked<[(ticket: Int, result: any Sendable)]>([])
    /// The loop's wake-up (`curl_multi_wakeup`, the one libcurl call allowed from any thread).
    private let wake: MultiWake

    init(wake: MultiWake) {
        self.wake = wake
    }

    func deliver(_ ticket: Int, _ result: any Sendable, wake: Bool) {
        done.withLock { $0.append((ticket, result)) }
        if wake { self.wake.wakeLoop() }
    }

    func take() -> [(ticket: Int, result: any Sendable)] {
        done.withLock { list in
            defer { list.removeAll() }
            return list
        }
    }
}
