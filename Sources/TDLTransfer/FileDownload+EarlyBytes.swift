import CCurl
import TDLCore

/// The body bytes that arrive while a first answer waits to be settled (its name committed
/// before its part file is made). They are kept by the connection, counted nowhere, up to one
/// gather buffer: a small file comes whole in the meantime and its transfer ends. Pausing
/// the transfer instead would have libcurl copy them aside and hand them over again on
/// resuming: two more copies of every small file, and a turn. Settled, they become the
/// connection's gathered bytes at the segment's start; refused, they are dropped with it.
extension FileDownload {
    /// In the write callback, while `connection` awaits settling: keeps the bytes, or pauses
    /// the transfer when a gather buffer would not hold them (curl keeps the rest) or a rate
    /// limit applies (held bytes would pass it before its allowance is asked).
    func holdEarly(_ connection: Connection, _ pointer: UnsafeRawPointer, _ count: Int) -> Int {
        guard connection.rateLimit == nil, connection.early.count + count <= Self.gatherSize else { return tdl_writefunc_pause() }
        if connection.early.capacity < Self.gatherSize { connection.early = engine.gatherBuffers.take(capacity: Self.gatherSize) }
        connection.early.append(contentsOf: UnsafeRawBufferPointer(start: pointer, count: count))
        return count
    }

    /// The answer was settled and the part file made: the early bytes count as taken at the
    /// segment's start, as if they had come now, and wait for the worker with what follows.
    func takeEarly(_ connection: Connection) -> FileError? {
        guard !connection.early.isEmpty else { return nil }
        var bytes = connection.early
        connection.early = []
        let i = connection.segmentIndex
        let offset = segments[i].start + segments[i].written
        let n = segments.take(bytes.count, into: i)
        if n < bytes.count {
            bytes.removeLast(bytes.count - n)
            connection.stopReason = .reachedSegmentEnd
        }
        guard n > 0 else { return nil }
        connection.taken += Int64(n)
        if connection.rateLimit != nil { connection.allowance -= Double(n) }
        if connection.pending.isEmpty {
            connection.pending = bytes
            connection.pendingOffset = offset
        } else {
            connection.pending.append(contentsOf: bytes)
        }
        return connection.pending.count >= Self.gatherSize ? writePending(connection) : nil
    }

    /// The answer was refused or the connection dropped: its early bytes go, never written.
    func dropEarly(_ connection: Connection) {
        guard connection.early.capacity > 0 else { return }
        engine.gatherBuffers.give(connection.early)
        connection.early = []
    }
}
