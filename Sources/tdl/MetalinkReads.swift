import Dispatch
import TDLCore

/// The screen's typed Metalink documents, read away from the loop: a fetch from a slow
/// server may take its whole timeout, and the list answers keys meanwhile. Each read runs on
/// a queue of its own (never the file worker, whose writes must not wait behind a fetch);
/// its result waits behind a lock until the loop takes it (`deliver`, every turn), woken at
/// once by the engine's waker.
final class MetalinkReads {
    private let input: MetalinkInput
    private let queue = DispatchQueue(label: "tdl.metalink-reads")
    private let wake: @Sendable () -> Void
    /// Results in, not yet taken by the loop.
    private let arrived = Locked<[(ticket: Int, expanded: MetalinkInput.Expanded)]>([])
    /// Loop only: what to do with each read's result.
    private var waiting: [Int: (MetalinkInput.Expanded) -> Void] = [:]
    private var nextTicket = 0

    init(input: MetalinkInput, wake: @escaping @Sendable () -> Void) {
        self.input = input
        self.wake = wake
    }

    /// On the loop: reads the documents among `requests`; `then` runs on the loop with the result.
    func read(_ requests: [DownloadRequest], then: @escaping (MetalinkInput.Expanded) -> Void) {
        nextTicket += 1
        let ticket = nextTicket
        waiting[ticket] = then
        queue.async { [input, arrived, wake] in
            let expanded = input.expand(requests)
            arrived.withLock { $0.append((ticket, expanded)) }
            wake()
        }
    }

    /// On the loop, each turn: hands every read that is over to what waits for it.
    func deliver() {
        guard !waiting.isEmpty else { return }
        let over = arrived.withLock { list in
            defer { list = [] }
            return list
        }
        for (ticket, expanded) in over { waiting.removeValue(forKey: ticket)?(expanded) }
    }
}
