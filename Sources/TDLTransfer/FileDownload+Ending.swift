import TDLCore

/// Checkpoints, and the ways a download ends: stopped, failed, or finished (verified,
/// fsync'ed and renamed into place by the `Finisher`).
extension FileDownload {
    /// fdatasync in the background, then report the offsets that are now durable. None of
    /// the twice-a-second ones while finishing: the finish syncs the whole file and reports it
    /// finished (a failed one reports its offsets itself): a sync of a file just before its
    /// batch's `syncfs` would cost an fdatasync and a commit for nothing.
    func checkpoint(final: Bool = false, then: (() -> Void)? = nil) {
        guard let part, checkpoints.mayStart(final: final), final || !finishing else { then?(); return }
        if let error = writeAllPending(), !stopped {
            then?()
            return failNow(error.reason)
        }
        let snapshot = segments.recorded()
        guard let ticket = checkpoints.start(total: snapshot.reduce(0) { $0 + $1.done }, final: final) else { then?(); return }
        engine.worker.run({ part.syncFailure() }) { [engine] syncError in
            let current = self.checkpoints.ended(ticket, synced: syncError == nil)
            if let syncError {
                // The kernel reports a failed writeback once: a later fsync would pass.
                if !self.stopped && !self.finishing && engine.downloads[self.url] === self {
                    self.failNow(syncError.reason)
                }
            } else if current, (engine.downloads[self.url] ?? self) === self {
                // (A stopped download's last report must not land on a newer download of the
                // URL, after a quick resume or restart: that one reports its own offsets, and
                // these may describe a part file since restarted or deleted.)
                self.checkpoints.recorded(ticket)
                self.segments.markDurable(snapshot)
                engine.report(.checkpoint(url: self.url, segments: snapshot))
            }
            then?()
        }
    }

    func stop() {
        stopped = true
        _ = writeAllPending()  // what fails to be written is taken back from `written`
        for connection in connections {
            connection.stopReason = .stopped
            engine.remove(connection)
        }
        segments.unlinkAll()
    }

    /// Ends the download with `reason`. The offsets it keeps are those written, once a sync
    /// says they are on disk; when the sync (or a queued write) failed, those of the last
    /// checkpoint, which were.
    func failNow(_ reason: FailReason) {
        stop()
        let written = segments.recorded()
        let durable = segments.recorded(durable: true)
        let finalize = { [engine, url] (segments: [Segment]) in
            engine.report(.failed(url: url, reason: reason, segments: segments))
            engine.forget(self)
        }
        if let part {
            engine.worker.run({ part.syncFailure() == nil }) { synced in finalize(synced ? written : durable) }
        } else {
            finalize(written)
        }
    }

    /// Verify size and checksum, fsync, rename into place, fsync the directory — off the loop.
    func finish() {
        guard let part, !finishing else {
            if part == nil { failNow(.unknown("nothing was received")) }
            return
        }
        if reportedSize != size {
            reportResolved()
            // A size the session does not know would not let the next run recognise the file.
            guard wasRecorded else { return failNow(.notRecorded) }
        }
        finishing = true
        engine.report(.finishing(url: url, started: true))
        engine.finisher.enqueue(part: part, expectedSize: size, checksum: job.options.checksum) { result in
            self.finished(result)
        }
    }

    func finished(_ result: Finisher.Result) {
        finishing = false
        switch result {
        case .done(let path, let bytes):
            engine.report(.finished(url: url, path: path, size: bytes))
            engine.forget(self)
        case .checksumMismatch(let expected, let actual):
            guard retries.countChecksumFailure(limit: job.options.checksumRetries) else {
                truncatePart()
                segments = SegmentTable()
                return failNow(.checksumMismatch(expected: expected, actual: actual))
            }
            engine.report(.note(url: url, text: "checksum mismatch: downloading again (\(retries.checksumFailures) of \(job.maxRetries))",
                                retries: retries.checksumFailures))
            engine.report(.finishing(url: url, started: false))
            resetToZero()
            fillConnections()
        case .sizeMismatch(let expected, let actual):
            engine.report(.finishing(url: url, started: false))
            // Counted with the other restarts: a server whose sizes never agree fails, never loops.
            restartFromZero(because: "size is \(actual), expected \(expected)")
        case .nameTaken:
            takeAnotherName()
        case .failed(let reason):
            failNow(reason)
        }
    }

    /// A file appeared under the recorded name while this one downloaded: the next free name
    /// is recorded, then taken, so a kill in between leaves nothing unknown.
    private func takeAnotherName() {
        guard let part, let name = PartFile.freeName(directory: job.directory, preferredName: fileName,
                                                     isTaken: isTakenByAnother) else {
            return failNow(FileError.nameTaken.reason)
        }
        let recorded = fileName
        fileName = name
        reportResolved()
        guard wasRecorded else {
            fileName = recorded
            return failNow(.notRecorded)
        }
        do {
            try part.rename(to: name)
        } catch {
            // The part file keeps its name: the session must name it again.
            fileName = recorded
            reportResolved()
            return failNow((error as? FileError)?.reason ?? .unknown("\(error)"))
        }
        finish()
    }
}
