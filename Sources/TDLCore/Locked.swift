import Foundation

/// A value other threads share, behind a lock: the project's one lock type. Everything it
/// guards is read and written inside `withLock`.
///
/// A `pthread_mutex_t`, not `Synchronization.Mutex`: on Linux the latter waits on a futex in
/// code ThreadSanitizer does not instrument, so `make tsan` took two holders of one Mutex for
/// a race, while it sees every `pthread_mutex_lock`. The mutex lives on the heap because a
/// pthread mutex must never move, and a class, unlike a `~Copyable` Mutex, is shared by the
/// closures that capture it.
public final class Locked<Value> {
    private let mutex: UnsafeMutablePointer<pthread_mutex_t>
    private var value: Value

    public init(_ value: Value) {
        self.value = value
        mutex = .allocate(capacity: 1)
        mutex.initialize(to: pthread_mutex_t())
        precondition(pthread_mutex_init(mutex, nil) == 0, "cannot make a mutex")
    }

    deinit {
        pthread_mutex_destroy(mutex)
        mutex.deallocate()
    }

    /// Runs `body` with the value, no other thread holding it meanwhile. Not reentrant.
    public func withLock<Result, Failure: Error>(_ body: (inout Value) throws(Failure) -> Result) throws(Failure) -> Result {
        pthread_mutex_lock(mutex)
        defer { pthread_mutex_unlock(mutex) }
        return try body(&value)
    }
}

/// `value` is only touched between `pthread_mutex_lock` and `pthread_mutex_unlock`.
extension Locked: @unchecked Sendable where Value: Sendable {}
