import Foundation

/// A count shared by the loop and the worker.
final class ByteCounter: @unchecked Sendable {
    private var value = 0
    private let lock = NSLock()

    /// Adds `delta` (negative to subtract) and returns the new count.
    @discardableResult
    func add(_ delta: Int) -> Int {
        lock.lock()
        defer { lock.unlock() }
        value += delta
        return value
    }
}
