import TDLCore

/// Body bytes into the part file: gathered per connection, written in large pieces by the
/// worker, always before a checkpoint, the end of a connection or a stop.
extension FileDownload {
    /// Body bytes are gathered per connection and written in pieces of this size: curl hands
    /// them over a few KiB at a time, and one pwrite each was most of a small file's cost.
    static let gatherSize = 256 * 1024

    /// Takes body bytes for segment `i` (in the write callback). `written` counts them at
    /// once; they reach the part file when the connection's gather buffer fills, and always
    /// before a checkpoint, the end of the connection or a stop.
    func write(_ pointer: UnsafeRawPointer, _ count: Int, segmentIndex i: Int, connection: Connection) -> Int {
        guard part != nil else { return 0 }
        let offset = segments[i].start + segments[i].written
        let n = segments.take(count, into: i)
        if n > 0 {
            if connection.pending.isEmpty {
                connection.pendingOffset = offset
                if connection.pending.capacity < Self.gatherSize { connection.pending = engine.gatherBuffers.take(capacity: Self.gatherSize) }
            }
            connection.pending.append(contentsOf: UnsafeRawBufferPointer(start: pointer, count: n))
            if connection.pending.count >= Self.gatherSize, let error = writePending(connection) {
                connection.stopReason = .writeFailed(error)
                return 0
            }
        }
        if n < count { connection.stopReason = .reachedSegmentEnd }
        return n
    }

    /// Hands a connection's gathered bytes to the worker, which writes them while the loop
    /// goes on with the network, keys and the screen: a `pwrite` on the loop could wait
    /// 30–200 ms for the kernel's writeback. Syncs, truncations and the finish are queued
    /// behind them on the same serial worker, so they always see these bytes, and a
    /// checkpoint counts only bytes written and synced. Transfers pause while too much waits
    /// (`CurlEngine+WriteBacklog`); past `writeQueueCap` (a transfer that cannot pause) the
    /// loop writes itself, so memory stays bounded.
    /// A failed write by the loop is taken back from `written`; one by the worker is kept by
    /// the part file, which then fails every later sync.
    func writePending(_ connection: Connection) -> FileError? {
        guard let part, !connection.pending.isEmpty else { return nil }
        let count = connection.pending.count
        let offset = connection.pendingOffset
        bytesSinceWriteback += Int64(count)
        let startWriteback = bytesSinceWriteback >= 32 << 20
        if startWriteback { bytesSinceWriteback = 0 }
        if engine.truncationsQueued > 0 || engine.queuedWriteBytes.value + count <= engine.writeQueueCap {
            engine.queuedWriteBytes.add(count)
            // Boxed, so that the worker holds the only copy once it took it and can hand the
            // buffer back for reuse.
            let box = Locked(connection.pending)
            connection.pending = []
            let takenIn = checkpoints.generation
            let lowWater = engine.writeBacklogLowWater
            engine.worker.run({ [queued = engine.queuedWriteBytes, buffers = engine.gatherBuffers] () -> QueuedWrite in
                let bytes = box.withLock { boxed in
                    let bytes = boxed
                    boxed = []
                    return bytes
                }
                let error = part.writeQueued(bytes, at: offset)
                buffers.give(bytes)
                let left = queued.add(-count)
                if startWriteback { part.startWriteback() }
                // Down to the low water: transfers paused for writes may go on.
                return QueuedWrite(error: error, drained: left <= lowWater && left + count > lowWater)
            }, wakesLoop: { $0.error != nil || $0.drained }, then: { done in
                if let error = done.error, takenIn == self.checkpoints.generation { self.queuedWriteFailed(error) }
            })
            return nil
        }
        defer { connection.pending.removeAll(keepingCapacity: true) }
        do {
            try connection.pending.withUnsafeBytes { try part.write($0.baseAddress!, count: count, at: offset) }
        } catch {
            segments.takeBack(count, from: connection.segmentIndex)
            return error as? FileError ?? .other("\(error)")
        }
        if startWriteback { engine.worker.run { part.startWriteback() } }
        return nil
    }

    /// The worker could not write bytes this download had taken: it fails, keeping what was
    /// made durable. During a finish the finisher reports the failure itself.
    func queuedWriteFailed(_ error: FileError) {
        guard !stopped, !finishing, engine.downloads[url] === self else { return }
        failNow(error.reason)
    }

    /// Empties the part file after the writes already queued; the writes that follow are
    /// queued behind it (see `CurlEngine.truncationsQueued`).
    func truncatePart() {
        guard let part else { return }
        engine.truncationsQueued += 1
        engine.worker.run({ _ = try? part.truncate() }, then: { [engine] in engine.truncationsQueued -= 1 })
    }

    /// Every connection's gathered bytes to the file; the first failure, if any.
    func writeAllPending() -> FileError? {
        var firstError: FileError?
        for connection in connections {
            if let error = writePending(connection), firstError == nil { firstError = error }
        }
        return firstError
    }
}

/// What a queued write tells the loop: its failure, and whether it brought the queue down to
/// the low water (see `CurlEngine+WriteBacklog`).
struct QueuedWrite: Sendable {
    let error: FileError?
    let drained: Bool
}
