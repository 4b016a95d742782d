import TDLCore

/// A count shared by the loop and the worker (bytes handed to the worker and not yet written).
final class ByteCounter: Sendable {
    /// Guarded by its lock: the loop adds, the worker subtracts.
    private let total = Locked(0)

    var value: Int { total.withLock { $0 } }

    /// Adds `delta` (negative to subtract); the new total.
    @discardableResult
    func add(_ delta: Int) -> Int {
        total.withLock { total in
            total += delta
            return total
        }
    }
}
