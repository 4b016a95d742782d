import TDLCore

/// A count shared by the loop and the worker (bytes handed to the worker and not yet written).
final class ByteCounter: Sendable {
    /// Guarded by its lock: the loop adds, the worker subtracts.
    private let total = Locked(0)

    var value: Int { total.withLock { $0 } }

    /// Adds `delta` (negative to subtract).
    func add(_ delta: Int) {
        total.withLock { $0 += delta }
    }
}
