import TDLCore

/// Body bytes into the part file: gathered per connection, written in large pieces by the
/// loop or the worker, always before a checkpoint, the end of a connection or a stop.
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
                connection.pending.reserveCapacity(Self.gatherSize)
            }
            connection.pending.append(contentsOf: UnsafeRawBufferPointer(start: pointer, count: n))
            if connection.pending.count >= Self.gatherSize, let error = writePending(connection, inBackground: false) {
                connection.stopReason = .writeFailed(error)
                return 0
            }
        }
        if n < count { connection.stopReason = .reachedSegmentEnd }
        return n
    }

    /// Writes a connection's gathered bytes. The last bytes of a transfer (all of a small file)
    /// go to the worker, which writes them while the loop goes on with the network: for many
    /// small files the writes were a fifth of the loop's time. Syncs, truncations and the
    /// finish are queued behind them on the same serial worker, so they always see these
    /// bytes. A full buffer in the middle of a transfer is written by the loop itself
    /// (`inBackground` false): handing every 256 KiB of a large file to the other thread cost
    /// half as much CPU again, for no gain in time. When too much waits on the worker (a slow
    /// disk, a long fdatasync ahead) the loop writes too, so memory does not fill up.
    /// A failed write by the loop is taken back from `written`; one by the worker is kept by
    /// the part file, which then fails every later sync.
    func writePending(_ connection: Connection, inBackground: Bool = true) -> FileError? {
        guard let part, !connection.pending.isEmpty else { return nil }
        let count = connection.pending.count
        let offset = connection.pendingOffset
        bytesSinceWriteback += Int64(count)
        let startWriteback = bytesSinceWriteback >= 32 << 20
        if startWriteback { bytesSinceWriteback = 0 }
        let mustQueue = engine.truncationsQueued > 0
        if mustQueue || inBackground && engine.queuedWriteBytes.value + count <= CurlEngine.maxQueuedWriteBytes {
            engine.queuedWriteBytes.add(count)
            let bytes = connection.pending
            connection.pending = []
            let takenIn = checkpoints.generation
            engine.worker.run({ [queued = engine.queuedWriteBytes] in
                let error = part.writeQueued(bytes, at: offset)
                queued.add(-count)
                if startWriteback { part.startWriteback() }
                return error
            }, wakesLoop: { $0 != nil }, then: { error in
                if let error, takenIn == self.checkpoints.generation { self.queuedWriteFailed(error) }
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
