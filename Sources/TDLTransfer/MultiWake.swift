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

    init(multi: UnsafeMutableRawPointer) {
        self.multi = Locked(UInt(bitPattern: multi))
    }

    func wake() {
        requested.store(true, ordering: .relaxed)
        multi.withLock { if let multi = UnsafeMutableRawPointer(bitPattern: $0) { curl_multi_wakeup(multi) } }
    }

    /// Whether a wake came since the last `clear`.
    var isRequested: Bool { requested.load(ordering: .relaxed) }
    func clear() { requested.store(false, ordering: .relaxed) }

    /// Called by the engine before `curl_multi_cleanup`.
    func detach() { multi.withLock { $0 = 0 } }
}
