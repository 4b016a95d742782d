import CCurl
import Synchronization
import TDLCore

/// The engine's wake-up, which other threads hold (`CurlEngine.waker`): a flag the running
/// turn reads to end early, and `curl_multi_wakeup`, the one libcurl call allowed from any
/// thread. The engine detaches the handle before cleaning the multi up, so a wake that comes
/// later does nothing instead of touching freed memory.
final class MultiWake: Sendable {
    private let requested = Atomic<Bool>(false)
    /// The multi handle's address (0 once detached), guarded by its lock: a wake and the
    /// engine's `detach` never overlap.
    private let multi: Locked<UInt>

    /// Until the engine makes its multi handle (at its first transfer or turn) a wake only
    /// sets the flag, which that turn reads.
    init() {
        multi = Locked(0)
    }

    /// Called by the engine once it has made its multi handle.
    func attach(_ handle: UnsafeMutableRawPointer) {
        multi.withLock { $0 = UInt(bitPattern: handle) }
    }

    func wake() {
        requested.store(true, ordering: .relaxed)
        wakeLoop()
    }

    /// Ends the loop's poll without ending its turn's transfers early (the worker's results).
    func wakeLoop() {
        multi.withLock { if let multi = UnsafeMutableRawPointer(bitPattern: $0) { curl_multi_wakeup(multi) } }
    }

    /// Whether a wake came since the last `clear`.
    var isRequested: Bool { requested.load(ordering: .relaxed) }
    func clear() { requested.store(false, ordering: .relaxed) }

    /// Called by the engine before `curl_multi_cleanup`.
    func detach() { multi.withLock { $0 = 0 } }
}
