import CCurl
import Foundation
import TDLCore

/// The first answer of a download decides its name, size and validators, and the session
/// records them before the part file is made. That takes the manager, so it never happens in
/// a libcurl callback: the connection pauses there and the engine settles its answer at the
/// loop's next step (`settleFirstAnswer`), then lets it go on. (A file:// transfer cannot
/// pause: it ends, its answer is settled when it is done, and it starts again.)
extension FileDownload {
    /// A connection's answer checked out (`Connection.checkResponse`). Inside a callback an
    /// answer that needs the manager waits: true, with the connection marked to pause.
    /// False stops the transfer.
    func answerArrived(_ connection: Connection, inCallback: Bool) -> Bool {
        if inCallback && !resolved {
            guard connection.canPause else {
                connection.stopReason = .settlesFirstAnswer
                return false
            }
            connection.awaitsSettling = true
            engine.settleLater(connection)
            return true
        }
        return connectionStarted(connection)
    }

    /// The loop's next step after a connection paused on its first answer: settles it, then
    /// lets the transfer go on, or ends it as curl would have (its stop reason says why).
    func settleFirstAnswer(_ connection: Connection) {
        guard connection.awaitsSettling else { return }
        connection.awaitsSettling = false
        // A name chosen ahead holds for this step only: a later answer chooses its own.
        defer { nameChosenAhead = nil }
        let started = isLinked(connection) && connectionStarted(connection)
        // The manager may have stopped the download meanwhile (a session it cannot save).
        guard isLinked(connection) else { return dropEarly(connection) }
        if started, let error = takeEarly(connection) {
            connection.stopReason = .writeFailed(error)
            engine.remove(connection)
            return connectionDone(connection, result: CURLE_WRITE_ERROR)
        }
        if !started { dropEarly(connection) }
        if let ended = connection.endedWhileSettling {
            // The transfer ended while its answer waited (a small file came whole): it ends now.
            connection.endedWhileSettling = nil
            connectionDone(connection, result: started ? ended : CURLE_WRITE_ERROR)
            engine.connectionEnded()
        } else if started {
            engine.continueTransfer(connection)
        } else {
            engine.remove(connection)
            connectionDone(connection, result: CURLE_WRITE_ERROR)
        }
    }

    /// The connection still fills its segment (it was not removed by a stop or a reset).
    private func isLinked(_ connection: Connection) -> Bool {
        !stopped && connection.segmentIndex < segments.count && segments[connection.segmentIndex].link === connection
    }

    /// Called once per connection when its answer checked out. The first one decides the
    /// name, size and validators. False stops the transfer. Never in a libcurl callback when
    /// the download is not resolved yet (it reports to the manager).
    func connectionStarted(_ connection: Connection) -> Bool {
        if !answerIsThisVersion(connection) { return false }
        if resolved {
            // A mirror's first answer must be this very file before a byte of it is written.
            // (A download without mirrors keeps its checks of old: If-Range, Content-Range.)
            guard sources.count > 1, !sources[connection.source].verified else { return true }
            if let why = mismatch(of: connection) {
                connection.stopReason = .otherFile(why)
                return false
            }
            sources.markVerified(connection.source)
            return true
        }
        guard takeAnswer(connection) else { return false }
        let headers = connection.headers
        let status = connection.status
        if part == nil {
            do {
                // The session records the name before the part file exists (the manager commits
                // a `.resolved` before it returns): after a kill at any moment the next run
                // knows the part file, and the file renamed from it, as this task's own.
                let chosenAhead = nameChosenAhead
                nameChosenAhead = nil
                part = try PartFile.create(directory: job.directory, preferredName: nameFromAnswer(connection),
                                           chosenAhead: chosenAhead, isTaken: isTakenByAnother) { chosen in
                    fileName = chosen
                    reportResolved()
                    guard wasRecorded else { throw FileError.other(FailReason.notRecorded.message) }
                }
            } catch let error as FileError {
                connection.stopReason = .failed(error.reason)
                return false
            } catch {
                connection.stopReason = .failed(.unknown("\(error)"))
                return false
            }
        } else {
            reportResolved()
        }
        if !wasRecorded {
            connection.stopReason = .failed(.notRecorded)
            return false
        }
        if let size, !engine.freeSpace.claim(size - written, in: job.directory) {
            // Reed's full-disk check: say so before writing, not halfway. The part file stays,
            // recorded as this task's, for the run after space was made.
            connection.stopReason = .failed(.diskFull)
            return false
        }
        resolved = true
        let acceptsRanges = Connection.header(headers["accept-ranges"], lists: "bytes") || status == 206
        if acceptsRanges { rangesOffered = true }
        if let size {
            segments[0].end = size
            if isHTTP && acceptsRanges && !rangesUnsupported && job.connections > 1 && segments.count == 1 && connection.requestStart == 0,
               segments.plan(size: size, connections: job.connections) {
                engine.worker.later { self.fillConnections() }
            }
        }
        return true
    }

    /// The first answer's size, validators, type and final URL. False (with the stop reason
    /// set) when it is another file than the Metalink describes.
    private func takeAnswer(_ connection: Connection) -> Bool {
        sources.markVerified(connection.source)
        let headers = connection.headers
        let status = connection.status
        if isHTTP {
            if status == 206, let range = headers["content-range"] {
                size = ContentRange(range)?.total
            } else if !Connection.header(headers["transfer-encoding"], lists: "chunked") {
                size = Connection.byteCount(headers["content-length"]) ?? connection.contentLength
            } else {
                size = nil
            }
            etag = headers["etag"]
            lastModified = headers["last-modified"]
        } else {
            size = connection.contentLength
        }
        if let expected = job.options.expectedSize, let size, size != expected {
            // Another file than the one the Metalink describes: nothing of it is written, and
            // the next mirror, if any, is asked.
            connection.stopReason = .otherFile("another size (\(size) bytes; the Metalink says \(expected))")
            return false
        }
        mimeType = headers["content-type"]
        finalURL = connection.effectiveURL ?? url
        return true
    }

    /// Before a turn's first answers are settled one by one: the name a new part file will
    /// take, reported without a commit, so the first of them to be created commits every name
    /// of the turn at once (one commit a turn instead of one a file). Settling chooses the
    /// same name again (nothing changed in between) and finds it recorded; had anything
    /// changed, it records the new name itself before the file is made.
    func recordNameAhead(_ connection: Connection) {
        guard connection.awaitsSettling, !resolved, part == nil, isLinked(connection),
              answerIsThisVersion(connection), takeAnswer(connection),
              let name = PartFile.freeName(directory: job.directory, preferredName: nameFromAnswer(connection), from: 0,
                                           isTaken: isTakenByAnother) else { return }
        fileName = name
        nameChosenAhead = name
        reportResolved(commitNow: false)
    }

    /// The name the first answer gives the file: Content-Disposition, else the URL it came
    /// from (unless the user fixed one).
    private func nameFromAnswer(_ connection: Connection) -> String {
        guard !job.nameIsFixed else { return job.fileName }
        if let header = connection.headers["content-disposition"], let raw = ContentDisposition.fileName(from: header),
           let clean = FileNameSanitizer.sanitize(raw) {
            return clean
        }
        if let effective = connection.effectiveURL { return URLCheck.suggestedFileName(for: effective) }
        return job.fileName
    }

    /// Another task owns this path (its file may be missing from disk).
    func isTakenByAnother(_ path: String) -> Bool {
        engine.isNameTaken?(url, path) ?? false
    }

    /// The session committed the last `reportResolved`: no file appears under an unrecorded name.
    var wasRecorded: Bool { engine.isRecorded?(url) ?? true }

    /// Tells the manager the name, size and validators, with every report before it; it
    /// records them before this returns (so `wasRecorded` can be asked right after), unless
    /// `commitNow` is false: then the next report that commits records them too.
    func reportResolved(commitNow: Bool = true) {
        reportedSize = size
        engine.report(.resolved(url: url, fileName: fileName, size: size, mimeType: mimeType,
                                etag: etag, lastModified: lastModified, finalURL: finalURL, commitNow: commitNow))
        engine.deliverReports(evenWhileDelivering: true)
    }
}
