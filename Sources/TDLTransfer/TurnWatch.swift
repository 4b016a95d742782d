import CCurl
#if canImport(Glibc)
import Glibc
#endif

/// The caller's descriptors that were not ready when a turn began (the keyboard, another tdl,
/// a JSON-RPC client), looked at every two milliseconds while the turn's transfers take bytes.
/// One that becomes ready ends the turn, as a wake does: at full speed a turn spends its whole
/// 30 ms budget in `curl_multi_perform`, and a key pressed during it waited for the rest of it
/// and then for the whole next turn (the poll that saw it) before it was read, 60 ms in all.
struct TurnWatch {
    static let interval = 0.002
    private var fds: [pollfd] = []
    private var nextLook = Double.infinity
    /// What became ready during the turn.
    private(set) var ready: [Int32] = []

    /// Starts watching those of `waitFDs` that the turn's poll did not find ready; returns
    /// until when the turn's transfers take bytes. `budget` from `now`, or only `interval`
    /// when the poll found one ready: that one (a key) is served after the transfers, and
    /// waited the whole budget for them (the presses that took 50–60 ms to show). Not
    /// nothing, so transfers still go on while a descriptor stays ready turn after turn.
    mutating func begin(_ waitFDs: [curl_waitfd], at now: Double, budget: Double) -> Double {
        fds = waitFDs.filter { $0.revents == 0 }.map {
            pollfd(fd: $0.fd, events: Int16($0.events & Int16(CURL_WAIT_POLLOUT) != 0 ? POLLOUT : POLLIN), revents: 0)
        }
        ready = []
        nextLook = fds.isEmpty ? .infinity : now + Self.interval
        return now + (fds.count < waitFDs.count ? min(budget, Self.interval) : budget)
    }

    /// Whether a watched descriptor became ready: asked on every body callback, it polls at
    /// most every `interval`.
    mutating func sawReady(at now: Double) -> Bool {
        guard nextLook.isFinite else { return false }  // between turns, or nothing to watch
        if !ready.isEmpty { return true }
        guard now >= nextLook else { return false }
        nextLook = now + Self.interval
        guard poll(&fds, nfds_t(fds.count), 0) > 0 else { return false }
        ready = fds.filter { $0.revents != 0 }.map(\.fd)
        return !ready.isEmpty
    }

    /// Stops watching; `ready` keeps what the turn saw, for its caller.
    mutating func end() {
        fds = []
        nextLook = .infinity
    }
}
