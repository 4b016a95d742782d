import Dispatch

/// Work split over a few threads, each part's result handed back in order. A part sees only
/// what its closure captures, which must be Sendable (an immutable snapshot, never the
/// manager), and each result crosses back under one lock.
public enum ParallelParts {
    /// Pieces long work is cut into: each thread takes the next piece when done with one, so a
    /// thread that shares its core with another process does less of the work, rather than the
    /// other waiting for its half.
    public static let pieceCount = 16

    /// `body(0) ..< body(parts)`, run at once on up to `parts` threads.
    public static func map<T: Sendable>(_ parts: Int, _ body: @Sendable (Int) -> T) -> [T] {
        guard parts > 1 else { return parts == 1 ? [body(0)] : [] }
        // Guards the parts' results: each part writes its own slot once.
        let results = Locked<[T?]>(Array(repeating: nil, count: parts))
        DispatchQueue.concurrentPerform(iterations: parts) { part in
            let value = body(part)
            results.withLock { $0[part] = value }
        }
        return results.withLock { $0.map { $0! } }
    }
}
