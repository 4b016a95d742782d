import Foundation

/// A count shared by the loop and the worker.
final class ByteCounter: @unchecked Sendable {
    private var total = 0
    private let lock = NSLock()

    var value: Int {
        lock.lock()
        defer { lock.unlock() }
        return total
    }

    /// Adds `delta` (negative to subtract).
    func add(_ delta: Int) {
        lock.lock()
        defer { lock.unlock() }
        total += delta
    }
}
