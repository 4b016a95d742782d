import TDLCore

/// The connections' gather buffers (see `FileDownload.gatherSize`), handed back by the worker
/// once their bytes are written and taken again by the next connection. Each new buffer was a
/// fresh 256 KiB of heap, and the copy of the body into it paid a page fault every few pages:
/// a visible part of a small file's cost. Shared by the loop and the worker.
final class GatherBuffers: Sendable {
    /// Enough for every connection of 16 downloads and the writes queued behind them.
    static let kept = 32
    private let free = Locked<[[UInt8]]>([])

    /// An empty buffer of `capacity` bytes, one handed back if there is one. Loop thread.
    func take(capacity: Int) -> [UInt8] {
        var buffer = free.withLock { $0.popLast() } ?? []
        buffer.removeAll(keepingCapacity: true)
        buffer.reserveCapacity(capacity)
        return buffer
    }

    /// Keeps a written buffer for the next connection (the caller holds no other copy of it).
    func give(_ buffer: [UInt8]) {
        free.withLock { kept in
            if kept.count < Self.kept { kept.append(buffer) }
        }
    }
}
