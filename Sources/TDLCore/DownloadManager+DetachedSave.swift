import Foundation

/// A save written by another thread while the manager's own goes on: `tdl add -i` commits a
/// part of a long file while it adds the next (the two took about half of the time each).
extension DownloadManager {
    /// Takes everything changed so far, as `flush` would, for a `DetachedSave` to write; nil
    /// when nothing changed. Until `finish(_:)` this thread must use neither the manager's
    /// store nor another manager's on the same file (the save is one transaction on it).
    public func takeSave() -> DetachedSave? {
        guard let store, let changes = saves.take(tasks: tasks.byURL, list: list, at: clock()) else { return nil }
        return DetachedSave(store: store, changes: changes)
    }

    /// Waits for `save` (begun if it was not) and settles it as `flush` settles its own
    /// commit: nil when the session holds it, otherwise why not, the changes given back.
    @discardableResult
    public func finish(_ save: DetachedSave?) -> String? {
        guard let save else { return lastError }
        if let error = save.wait() {
            saves.giveBack(save.changes)
            saveFailed(error)
        } else {
            lastError = nil
        }
        return lastError
    }
}

/// One commit of a manager's changes, on a thread of its own.
public final class DetachedSave: @unchecked Sendable {
    // `store` and `changes` are handed over: the manager's thread touches neither (nor the
    // store's file) from `begin` until `wait` returns, and the writer only in between. The
    // outcome crosses under `outcome`'s lock.
    fileprivate let store: SessionStore
    fileprivate let changes: SessionChanges
    private let outcome = Locked<Outcome>(.notBegun)
    private let done = DispatchSemaphore(value: 0)

    private enum Outcome {
        case notBegun, running, committed
        case failed(String)
    }

    fileprivate init(store: SessionStore, changes: SessionChanges) {
        self.store = store
        self.changes = changes
    }

    /// Starts the commit on a new thread (once).
    public func begin() {
        let first = outcome.withLock { state -> Bool in
            guard case .notBegun = state else { return false }
            state = .running
            return true
        }
        guard first else { return }
        let thread = Thread { [self] in
            let result: Outcome
            do {
                try store.commit(changes)
                result = .committed
            } catch {
                result = .failed("\(error)")
            }
            outcome.withLock { $0 = result }
            done.signal()
        }
        thread.name = "tdl session writer"
        thread.start()
    }

    /// Begins the commit if it was not, and waits for it: nil once committed, else the error.
    fileprivate func wait() -> String? {
        begin()
        done.wait()
        done.signal()  // a second wait returns at once
        return outcome.withLock { state -> String? in
            if case .failed(let error) = state { return error }
            return nil
        }
    }
}
