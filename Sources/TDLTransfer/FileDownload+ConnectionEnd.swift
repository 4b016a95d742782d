import CCurl
import Foundation
import TDLCore

/// What happens when a connection ends: the next segment, a redirect followed, a retry after
/// a backoff, a source given up, a restart from zero or the download's failure.
extension FileDownload {
    func connectionDone(_ connection: Connection, result: CURLcode) {
        let i = connection.segmentIndex
        if let error = writePending(connection) {
            // Even a connection that reached its segment's end failed if its last bytes did.
            connection.stopReason = .writeFailed(error)
            segments[i].link = nil
            if stopped { return }
            return connectionFailed(connection, result: result)
        }
        segments[i].link = nil
        if stopped { return }
        if case .settlesFirstAnswer? = connection.stopReason {
            connection.stopReason = nil
            let started = connectionStarted(connection)
            if stopped { return }  // by the manager, while it heard the answer
            return started ? fillConnections() : connectionFailed(connection, result: result)
        }
        if connection.isUnfollowedRedirect && result == CURLE_OK { return followRedirect(connection) }
        if !resolved && !connection.headersChecked && result == CURLE_OK {
            // An empty body never reached the write callback: check the answer now.
            if !connection.checkResponse(inCallback: false) { return connectionFailed(connection, result: result) }
        }
        let ok = result == CURLE_OK || connection.stopReason.map { if case .reachedSegmentEnd = $0 { return true }; return false } == true
        if ok {
            if segments[i].end == nil {
                // Unknown size (chunked): the end of the answer is the end of the file.
                segments.endHere(i)
                if size == nil { size = segments[i].end }
            }
            if segments[i].isComplete {
                return advance()
            }
            // The server ended the answer early without an error: resume the rest.
            return retrySegment(i, reason: .noNetwork("the server closed the connection early"))
        }
        connectionFailed(connection, result: result)
    }

    /// Follows a redirect libcurl left to tdl (the user's headers are set): the next request
    /// carries them only if it stays on their host (see `Connection.configure`).
    func followRedirect(_ connection: Connection) {
        let i = connection.segmentIndex
        guard connection.hops < 20 else { return failNow(.tooManyRedirects) }
        guard var target = connection.redirectURL else { return failNow(.badURL("a redirect without a usable Location")) }
        // Credentials in the URL stay with their host, as libcurl keeps them when it follows.
        let from = connection.requestURL
        if RequestHeader.origin(of: target) == RequestHeader.origin(of: from), let user = URLComponents(string: from)?.percentEncodedUser,
           var components = URLComponents(string: target), components.percentEncodedUser == nil {
            components.percentEncodedUser = user
            components.percentEncodedPassword = URLComponents(string: from)?.percentEncodedPassword
            target = components.string ?? target
        }
        if !connect(segment: i, source: connection.source, url: target, hops: connection.hops + 1) {
            retrySegment(i, reason: .unknown("cannot start a connection"))
        }
    }

    func connectionFailed(_ connection: Connection, result: CURLcode) {
        let i = connection.segmentIndex
        // With another source in use, a source that fails is given up, never retried into the
        // file: its segment goes on from the others at once.
        if sources.hasOther(than: connection.source), let cause = sourceFailure(connection, result: result) {
            dropSource(connection.source, cause)
            return fillConnections()
        }
        switch connection.stopReason {
        case .rangeIgnored?:
            rangesUnsupported = connection.status == 200
            return restartFromZero(because: "the server ignored the range or the file changed")
        case .fileChanged(let why)?:
            return restartFromZero(because: "the file changed on the server (\(why))")
        case .brokenAnswer(let why)?:
            return failNow(.unknown(why))
        case .rangeNotSatisfiable?:
            if let size, connection.requestStart >= size, segments.allComplete { return advance() }
            return restartFromZero(because: "the server no longer has those bytes (416)")
        case .httpError(let code, let retryAfter)?:
            let reason = FailReason.httpStatus(code)
            if reason.isTransient {
                retries.retryAfter = retryAfter
                return retrySegment(i, reason: reason)
            }
            return failNow(reason)
        case .writeFailed(let error)?:
            return failNow(error.reason)
        case .failed(let reason)?:
            return failNow(reason)
        case .otherFile(let why)?:
            return failNow(.unknown("no mirror left that serves this file: the last one has \(why)"))
        case .stopped?:
            return
        case .readsTooLargeForLimit?:
            return fillConnections()
        default:
            break
        }
        let failure = connection.failure(result)
        if failure.isRetryable { retrySegment(i, reason: failure.reason) } else { failNow(failure.reason) }
    }

    /// Why this connection's failure is its source's (nil: the download's own, as a full disk).
    func sourceFailure(_ connection: Connection, result: CURLcode) -> MirrorDrop.Cause? {
        switch connection.stopReason {
        case .otherFile(let why)?, .fileChanged(let why)?, .brokenAnswer(let why)?: return .otherFile(why)
        case .rangeIgnored?: return .otherFile(mismatch(of: connection) ?? "it ignored the range")
        case .rangeNotSatisfiable?: return .failed("it does not have those bytes (416)")
        case .httpError(let code, _)?: return .failed(FailReason.httpStatus(code).message)
        case .writeFailed?, .failed?, .stopped?, .reachedSegmentEnd?, .readsTooLargeForLimit?, .settlesFirstAnswer?: return nil
        case nil: return .failed(connection.failure(result).reason.message)
        }
    }

    /// Transient failure: try the segment again after a backoff with jitter, up to the retry
    /// count (see `RetryBudget` for when progress starts the count over).
    func retrySegment(_ i: Int, reason: FailReason) {
        guard let attempt = retries.countFailure(received: written, stalled: reason == .timeout, size: size) else {
            return failNow(reason)
        }
        if rangesUnsupported && segments[i].written > 0 {
            // Resuming is impossible on this server: the next try fetches the whole file.
            retries.forgetRestarts()
            resetToZero()
            retryLater(0, at: engine.now + engine.settings.retryBaseSeconds)
            return
        }
        let delay = retries.delay(attempt: attempt, jitter: Double.random(in: 0.8...1.2))
        engine.report(.retrying(url: url, reason: reason, attempt: attempt, limit: job.maxRetries))
        retryLater(i, at: engine.now + delay)
    }

    private func retryLater(_ i: Int, at time: Double) {
        segments[i].retryAt = time
        engine.scheduleTimer(at: time)
    }

    /// Never append to bytes of another version: throw them away and fetch the file again,
    /// at most `maxRetries + 1` times per run.
    func restartFromZero(because why: String) {
        guard retries.countRestart() else {
            return failNow(.unknown("\(why); gave up after \(retries.restartsFromZero - 1) restarts"))
        }
        engine.report(.note(url: url, text: "\(why): restarted from zero", retries: retries.restartsFromZero))
        resetToZero()
        fillConnections()
    }
}
