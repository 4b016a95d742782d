#if canImport(Glibc)
import Glibc
#endif

/// A loop-only value (the `Aria2RPC` and the manager under it) carried through the server's
/// threads to the loop, which alone may open it: `value` checks the thread at every use and
/// stops the program on any other, so a job that escapes the loop fails at once instead of
/// racing. The thread that makes it is its loop (the server is made on the loop).
///
/// Unchecked, as NIO's `NIOLoopBound` is: sending is safe because nothing but the owning
/// thread can reach the value (the module's only unchecked type).
struct LoopBound<Value>: @unchecked Sendable {
    private let wrapped: Value
    private let loop: pthread_t

    init(_ value: Value) {
        wrapped = value
        loop = pthread_self()
    }

    /// The value, on its loop only.
    var value: Value {
        precondition(isOnLoop, "a loop-only value was used off its event loop")
        return wrapped
    }

    var isOnLoop: Bool { pthread_equal(pthread_self(), loop) != 0 }
}
