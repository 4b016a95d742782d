import TDLCore

/// The one place that decides when the session is written, beside the manager's own batching
/// of progress (within a tenth of a second, `DownloadManager.tick`). What a turn of the loop
/// changed (a key's action, a request another tdl or a JSON-RPC call made) is written at the
/// end of that turn, once; an answer that must follow its commit (`added` lines, exit 5 for
/// a failed save) asks for a `durablePoint()` first. A running tdl's loop owns one
/// (`SessionLoop.saver`); a command that changes the saved session with no loop running
/// (`tdl add`, `pause`, … with no tdl, `add -i` in parts) owns its own.
public final class SessionSaver {
    public let manager: DownloadManager
    /// Something was changed since the last write: the end of the turn writes it.
    private var changedSinceWrite = false

    public init(_ manager: DownloadManager) {
        self.manager = manager
    }

    /// Says that something was changed: the end of this turn writes it.
    public func changed() {
        changedSinceWrite = true
    }

    /// Writes, now, everything changed so far. Nil when the session holds it; otherwise why
    /// not (the changes wait for the next try, and a command says so and exits 5).
    @discardableResult
    public func durablePoint() -> String? {
        changedSinceWrite = false
        manager.flush()
        return manager.lastError
    }

    /// The end of a turn: writes what it changed, if anything.
    func endOfTurn() {
        if changedSinceWrite { durablePoint() }
    }
}
