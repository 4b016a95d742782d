import CCurl
import Foundation
import TDLCore
#if canImport(Glibc)
import Glibc
#endif

/// One file on its way down: its part file, its segments, the connections filling them,
/// retries and checkpoints. Lives on the event loop. The part file's writes, truncations and
/// syncs run on the engine's one serial worker, so each happens after those queued before it.
final class FileDownload {
    struct LiveSegment {
        var start: Int64
        var end: Int64?
        /// Bytes written (not yet necessarily durable).
        var written: Int64
        /// Bytes known to be durable (fdatasync'ed).
        var durable: Int64
        var connection: Connection?
        var retryAt: Double?

        var isComplete: Bool { end.map { start + written >= $0 } ?? false }
        var remaining: Int64 { end.map { $0 - start - written } ?? .max }
    }

    /// Where the file's bytes may come from: its URL, then its mirrors.
    struct Source {
        var url: String
        /// Why it is no longer used for this download (another size, failures…); nil while it is.
        var dropped: String?
        /// Answered once with this file's size and validators.
        var verified = false
    }

    unowned let engine: CurlEngine
    let job: TransferJob
    var url: String { job.url }
    var sources: [Source]
    /// Some connection could not start because its host had all the connections it may have.
    var waitsForHost = false
    let isHTTP: Bool
    var fileName: String
    var size: Int64?
    var etag: String?
    var lastModified: String?
    var mimeType: String?
    var finalURL: String?
    /// The size the manager last heard of: one learned at the end (no Content-Length) is
    /// reported before the finish, so a launch after a kill recognises the renamed file.
    var reportedSize: Int64?
    var part: PartFile?
    var segments: [LiveSegment] = []
    var resolved: Bool
    var retryBudget = RetryBudget()
    var failures: Int { retryBudget.failures }
    var checksumFailures = 0
    var checkpointInFlight = false
    /// Bumped when the part file is emptied: a checkpoint taken before must not report
    /// offsets of bytes that are gone.
    var generation = 0
    var durableTotal: Int64 = 0
    var finishing = false
    var stopped = false
    var bytesSinceWriteback: Int64 = 0
    var retryAfterSeconds: Double?
    /// The server answered a range request with the whole file: from now on only whole-file
    /// requests, and a broken transfer starts again from zero (counted, so it cannot loop).
    var rangesUnsupported = false
    var restartsFromZero = 0

    /// Segments are not split below this size (aria2's -k).
    static let minSegmentSize: Int64 = 1 << 20

    init(job: TransferJob, engine: CurlEngine) {
        self.job = job
        self.engine = engine
        let scheme = URLComponents(string: job.url)?.scheme?.lowercased() ?? ""
        isHTTP = scheme == "http" || scheme == "https"
        fileName = job.fileName
        sources = ([job.url] + (job.options.mirrors ?? [])).map { Source(url: $0) }
        size = job.size
        etag = job.etag
        lastModified = job.lastModified
        resolved = false
        segments = job.segments.map { LiveSegment(start: $0.start, end: $0.end, written: $0.done, durable: $0.done) }
    }

    var isSegmented: Bool { segments.count > 1 }
    var connections: [Connection] { segments.compactMap(\.connection) }
    var written: Int64 { segments.reduce(0) { $0 + $1.written } }

    /// The strong ETag, else Last-Modified: what `If-Range` sends so a changed file answers 200.
    var ifRangeValidator: String? {
        if let etag, !etag.hasPrefix("W/") { return etag }
        return lastModified
    }

    // MARK: - Starting

    func begin() {
        // Every source checks its headers; a session written before they did is checked here.
        if let problem = RequestText.problem(in: job.options, readingCookieFile: false) { return failNow(.badURL(problem)) }
        if segments.contains(where: { $0.written > 0 }) {
            let found: PartFile.Reopened
            do {
                found = try PartFile.reopen(directory: job.directory, fileName: fileName)
            } catch let error as FileError {
                return failNow(error.reason)
            } catch {
                return failNow(.unknown("\(error)"))
            }
            switch found {
            case .opened(let reopened):
                part = reopened
                clampToFile(reopened.size)
                resolved = size != nil
            case .missing:
                engine.report(.note(url: url, text: "the partial file was missing: starting from zero", retries: failures))
                resetToZero()
            case .foreign(let why):
                // Left as it is; the next part file takes a free name beside it.
                engine.report(.note(url: url, text: "\(why), not tdl's: starting from zero under another name", retries: failures))
                resetToZero()
            }
        } else {
            if job.partFileIsOurs, case .opened(let existing)? = try? PartFile.reopen(directory: job.directory, fileName: fileName) {
                part = existing
                truncatePart()
            }
            segments = [LiveSegment(start: 0, end: nil, written: 0, durable: 0)]
        }
        if segments.allSatisfy(\.isComplete), size != nil { return finish() }
        fillConnections()
    }

    /// After a crash the database is trusted, but a part file shorter than recorded (truncated
    /// by someone) can only be trusted up to its length.
    func clampToFile(_ fileSize: Int64) {
        for i in segments.indices {
            let available = max(0, fileSize - segments[i].start)
            if segments[i].written > available {
                segments[i].written = available
                segments[i].durable = min(segments[i].durable, available)
            }
        }
    }

    func resetToZero() {
        generation += 1
        for connection in connections { engine.remove(connection) }
        segments = [LiveSegment(start: 0, end: nil, written: 0, durable: 0)]
        truncatePart()
        // The recorded offsets describe bytes that are gone: none are durable now.
        durableTotal = 0
        engine.report(.checkpoint(url: url, segments: []))
        etag = nil
        lastModified = nil
        size = nil
        resolved = false
    }

    /// Starts a connection for every segment that needs one, up to the connection count and
    /// the per-host limit (a connection its host has no room for waits for one to end).
    func fillConnections() {
        guard !stopped, !finishing else { return }
        waitsForHost = false
        let now = engine.now
        for i in segments.indices where segments[i].connection == nil && !segments[i].isComplete {
            if connections.count >= max(1, job.connections) { break }
            if let retryAt = segments[i].retryAt, retryAt > now { continue }
            guard let source = nextSource() else {
                waitsForHost = true
                break
            }
            segments[i].retryAt = nil
            guard let connection = Connection(download: self, segmentIndex: i, source: source, settings: engine.settings) else { continue }
            segments[i].connection = connection
            engine.add(connection)
        }
        if connections.count < job.connections && resolved && isHTTP && size != nil {
            splitLargestSegment()
        }
    }

    /// The source the next connection uses: of those still in use whose host has room, the one
    /// with the fewest connections (the URL itself first on a tie); nil when no host has room.
    /// Until the first answer says what the file is, only the first source still in use.
    func nextSource() -> Int? {
        let alive = sources.indices.filter { sources[$0].dropped == nil }
        let candidates = resolved ? alive : Array(alive.prefix(1))
        var counts = [Int](repeating: 0, count: sources.count)
        for connection in connections { counts[connection.source] += 1 }
        return candidates.filter { engine.hostHasRoom(RequestHeader.origin(of: sources[$0].url) ?? sources[$0].url) }
            .min { counts[$0] < counts[$1] }
    }

    // MARK: - Mirrors

    /// Whether a source other than `source` is still in use: then `source` can be given up.
    func hasOtherSource(than source: Int) -> Bool {
        sources.indices.contains { $0 != source && sources[$0].dropped == nil }
    }

    /// Gives a source up for the rest of this download, with a note naming it; its other
    /// connections end and their segments go on from the other sources (after the current
    /// curl callback, where handles cannot be removed).
    func dropSource(_ source: Int, because why: String) {
        guard sources[source].dropped == nil else { return }
        sources[source].dropped = why
        engine.report(.note(url: url, text: "mirror \(URLCheck.withoutPassword(sources[source].url)) dropped: \(why)", retries: failures))
        engine.post { [self] in
            guard !stopped, !finishing else { return }
            for connection in connections where connection.source == source {
                if let error = writePending(connection) { return failNow(error.reason) }
                connection.stopReason = .stopped
                engine.remove(connection)
                segments[connection.segmentIndex].connection = nil
            }
            fillConnections()
        }
    }

    /// The best rate per connection any source has shown, when it was last looked at, and
    /// since when each source has been slow.
    var bestRate: Double = 0
    var lastLook: Double = 0
    var slowSince: [Int: Double] = [:]

    /// Twice a second: a source whose connections carry less than a fifth of the best rate
    /// per connection seen from any source, for 5 s (`slowMirrorSeconds`), is dropped while
    /// another is in use; its segments go on from the others. Only connections that were
    /// already there at the last look count, so a new one is not slow for its first bytes.
    func compareSources(now: Double) {
        guard sources.count > 1, resolved, !stopped, !finishing else { return }
        let elapsed = now - lastLook
        lastLook = now
        var bytes = [Int64](repeating: 0, count: sources.count)
        var counted = [Int](repeating: 0, count: sources.count)
        for connection in connections {
            if let before = connection.takenAtLastLook {
                bytes[connection.source] += connection.taken - before
                counted[connection.source] += 1
            }
            connection.takenAtLastLook = connection.taken
        }
        // A rate limit slows every source alike: nothing to compare then.
        guard elapsed > 0 && elapsed < 5, engine.globalRateLimit == nil, engine.rateLimits[url] == nil else { return }
        let rates = sources.indices.map { s -> Double? in
            guard sources[s].dropped == nil, counted[s] > 0 else { return nil }
            return Double(bytes[s]) / elapsed / Double(counted[s])
        }
        let measured = rates.compactMap { $0 }
        // Sources measured side by side are compared with each other; one left alone at the
        // tail, with the best any source showed before.
        bestRate = measured.count > 1 ? measured.max()! : max(bestRate, measured.max() ?? 0)
        for s in sources.indices {
            guard let rate = rates[s], rate < bestRate / 5 else {
                slowSince[s] = nil
                continue
            }
            let since = slowSince[s] ?? now
            slowSince[s] = since
            if now - since >= engine.settings.slowMirrorSeconds && hasOtherSource(than: s) {
                dropSource(s, because: "slow (\(ByteFormat.rate(Int64(rate))) per connection, another gave \(ByteFormat.rate(Int64(bestRate))))")
            }
        }
    }

    /// When a connection is free, the largest remaining segment is cut in two so the tail of
    /// the file does not crawl on one connection.
    func splitLargestSegment() {
        guard let i = segments.indices.filter({ segments[$0].connection != nil })
            .max(by: { segments[$0].remaining < segments[$1].remaining }),
            let end = segments[i].end, segments[i].remaining >= 2 * Self.minSegmentSize else { return }
        guard let source = nextSource() else {
            waitsForHost = true
            return
        }
        let middle = segments[i].start + segments[i].written + segments[i].remaining / 2
        segments[i].end = middle
        segments.append(LiveSegment(start: middle, end: end, written: 0, durable: 0))
        let index = segments.count - 1
        guard let connection = Connection(download: self, segmentIndex: index, source: source, settings: engine.settings) else { return }
        segments[index].connection = connection
        engine.add(connection)
    }

    // MARK: - The first answer

    /// Called once per connection when its answer checked out. The first one decides the
    /// name, size and validators. False stops the transfer.
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
            sources[connection.source].verified = true
            return true
        }
        sources[connection.source].verified = true
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
        mimeType = headers["content-type"]
        finalURL = connection.effectiveURL ?? url
        if part == nil {
            var name = job.fileName
            if !job.nameIsFixed {
                if let header = headers["content-disposition"], let raw = ContentDisposition.fileName(from: header),
                   let clean = FileNameSanitizer.sanitize(raw) {
                    name = clean
                } else if let effective = connection.effectiveURL {
                    name = URLCheck.suggestedFileName(for: effective)
                }
            }
            do {
                // The session records the name before the part file exists (the manager commits
                // a `.resolved` before it returns): after a kill at any moment the next run
                // knows the part file, and the file renamed from it, as this task's own.
                part = try PartFile.create(directory: job.directory, preferredName: name, isTaken: isTakenByAnother) { chosen in
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
        if let size, let free = Self.freeSpace(job.directory), free < size - written {
            // Reed's full-disk check: say so before writing, not halfway. The part file stays,
            // recorded as this task's, for the run after space was made.
            connection.stopReason = .failed(.diskFull)
            return false
        }
        resolved = true
        if let size {
            segments[0].end = size
            let acceptsRanges = Connection.header(headers["accept-ranges"], lists: "bytes") || status == 206
            if isHTTP && acceptsRanges && !rangesUnsupported && job.connections > 1 && segments.count == 1 && connection.requestStart == 0 {
                planSegments(size)
            }
        }
        return true
    }

    /// Another task owns this path (its file may be missing from disk).
    func isTakenByAnother(_ path: String) -> Bool {
        engine.isNameTaken?(url, path) ?? false
    }

    /// The session committed the last `reportResolved`: no file appears under an unrecorded name.
    var wasRecorded: Bool { engine.isRecorded?(url) ?? true }

    /// Tells the manager the name, size and validators; it records them before this returns.
    func reportResolved() {
        reportedSize = size
        engine.report(.resolved(url: url, fileName: fileName, size: size, mimeType: mimeType,
                                etag: etag, lastModified: lastModified, finalURL: finalURL))
    }

    /// Splits a fresh file into up to N segments of at least the minimum size; the first
    /// connection keeps reading the first one.
    func planSegments(_ size: Int64) {
        let count = Int(min(Int64(job.connections), max(1, size / Self.minSegmentSize)))
        guard count > 1 else { return }
        let step = size / Int64(count)
        segments[0].end = step
        for k in 1..<count {
            let start = Int64(k) * step
            segments.append(LiveSegment(start: start, end: k == count - 1 ? size : start + step, written: 0, durable: 0))
        }
        // We are inside a curl callback, where handles cannot be added: do it right after.
        engine.post { self.fillConnections() }
    }

    static func freeSpace(_ directory: String) -> Int64? {
        var info = statvfs()
        guard statvfs(directory, &info) == 0 else { return nil }
        return Int64(info.f_bavail) * Int64(info.f_frsize)
    }

    // MARK: - Writing

    /// Body bytes are gathered per connection and written in pieces of this size: curl hands
    /// them over a few KiB at a time, and one pwrite each was most of a small file's cost.
    static let gatherSize = 256 * 1024

    /// Takes body bytes for segment `i`. `written` counts them at once; they reach the part
    /// file when the connection's gather buffer fills, and always before a checkpoint, the end
    /// of the connection or a stop.
    func write(_ pointer: UnsafeRawPointer, _ count: Int, segmentIndex i: Int, connection: Connection) -> Int {
        guard part != nil else { return 0 }
        let n = Int(min(Int64(count), segments[i].remaining))
        if n > 0 {
            if connection.pending.isEmpty {
                connection.pendingOffset = segments[i].start + segments[i].written
                connection.pending.reserveCapacity(Self.gatherSize)
            }
            connection.pending.append(contentsOf: UnsafeRawBufferPointer(start: pointer, count: n))
            segments[i].written += Int64(n)
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
            let takenIn = generation
            engine.worker.async { [engine] in
                let error = part.writeQueued(bytes, at: offset)
                engine.queuedWriteBytes.add(-count)
                if let error { engine.post { if takenIn == self.generation { self.queuedWriteFailed(error) } } }
                if startWriteback { part.startWriteback() }
            }
            return nil
        }
        defer { connection.pending.removeAll(keepingCapacity: true) }
        do {
            try connection.pending.withUnsafeBytes { try part.write($0.baseAddress!, count: count, at: offset) }
        } catch {
            segments[connection.segmentIndex].written -= Int64(count)
            return error as? FileError ?? .other("\(error)")
        }
        if startWriteback { engine.worker.async { part.startWriteback() } }
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
        engine.worker.async { [engine] in
            try? part.truncate()
            engine.post { engine.truncationsQueued -= 1 }
        }
    }

    /// Every connection's gathered bytes to the file; the first failure, if any.
    func writeAllPending() -> FileError? {
        var firstError: FileError?
        for connection in connections {
            if let error = writePending(connection), firstError == nil { firstError = error }
        }
        return firstError
    }

    // MARK: - A connection ended

    func connectionDone(_ connection: Connection, result: CURLcode) {
        let i = connection.segmentIndex
        if let error = writePending(connection) {
            // Even a connection that reached its segment's end failed if its last bytes did.
            connection.stopReason = .writeFailed(error)
            segments[i].connection = nil
            if stopped { return }
            return connectionFailed(connection, result: result)
        }
        segments[i].connection = nil
        if stopped { return }
        if connection.isUnfollowedRedirect && result == CURLE_OK { return followRedirect(connection) }
        if !resolved && !connection.headersChecked && result == CURLE_OK {
            // An empty body never reached the write callback: check the answer now.
            if !connection.checkResponse() { return connectionFailed(connection, result: result) }
        }
        let ok = result == CURLE_OK || connection.stopReason.map { if case .reachedSegmentEnd = $0 { return true }; return false } == true
        if ok {
            if segments[i].end == nil {
                // Unknown size (chunked): the end of the answer is the end of the file.
                segments[i].end = segments[i].start + segments[i].written
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
        guard let next = Connection(download: self, segmentIndex: i, source: connection.source, url: target,
                                    hops: connection.hops + 1, settings: engine.settings) else {
            return retrySegment(i, reason: .unknown("cannot start a connection"))
        }
        segments[i].connection = next
        engine.add(next)
    }

    func connectionFailed(_ connection: Connection, result: CURLcode) {
        let i = connection.segmentIndex
        // With another source in use, a source that fails is given up, never retried into the
        // file: its segment goes on from the others at once.
        if hasOtherSource(than: connection.source), let why = sourceFailure(connection, result: result) {
            dropSource(connection.source, because: why)
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
            if let size, connection.requestStart >= size, segments.allSatisfy(\.isComplete) { return advance() }
            return restartFromZero(because: "the server no longer has those bytes (416)")
        case .httpError(let code, let retryAfter)?:
            let reason = FailReason.httpStatus(code)
            if reason.isTransient {
                retryAfterSeconds = retryAfter
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
        let reason = Self.reason(for: result, connection: connection)
        if reason.isTransient { retrySegment(i, reason: reason) } else { failNow(reason) }
    }

    /// Why this connection's failure is its source's (nil: the download's own, as a full disk).
    func sourceFailure(_ connection: Connection, result: CURLcode) -> String? {
        switch connection.stopReason {
        case .otherFile(let why)?, .fileChanged(let why)?, .brokenAnswer(let why)?: return why
        case .rangeIgnored?: return mismatch(of: connection) ?? "it ignored the range"
        case .rangeNotSatisfiable?: return "it does not have those bytes (416)"
        case .httpError(let code, _)?: return FailReason.httpStatus(code).message
        case .writeFailed?, .failed?, .stopped?, .reachedSegmentEnd?, .readsTooLargeForLimit?: return nil
        case nil: return Self.reason(for: result, connection: connection).message
        }
    }

    static func reason(for code: CURLcode, connection: Connection) -> FailReason {
        let text = String(cString: curl_easy_strerror(code))
        switch code {
        case CURLE_OPERATION_TIMEDOUT: return .timeout
        case CURLE_COULDNT_CONNECT, CURLE_COULDNT_RESOLVE_HOST, CURLE_COULDNT_RESOLVE_PROXY, CURLE_PARTIAL_FILE,
             CURLE_RECV_ERROR, CURLE_SEND_ERROR, CURLE_GOT_NOTHING, CURLE_HTTP2, CURLE_HTTP2_STREAM:
            return .noNetwork(text.lowercased())
        case CURLE_TOO_MANY_REDIRECTS: return .tooManyRedirects
        case CURLE_URL_MALFORMAT, CURLE_UNSUPPORTED_PROTOCOL: return .badURL(text)
        case CURLE_PEER_FAILED_VERIFICATION, CURLE_SSL_CONNECT_ERROR, CURLE_SSL_CERTPROBLEM, CURLE_SSL_CACERT_BADFILE:
            return .tls(connection.errorText ?? text)
        case CURLE_REMOTE_FILE_NOT_FOUND, CURLE_FILE_COULDNT_READ_FILE: return .httpStatus(404)
        case CURLE_LOGIN_DENIED: return .httpStatus(401)
        case CURLE_HTTP_RETURNED_ERROR: return .httpStatus(connection.responseCode)
        default: return .unknown(text)
        }
    }

    /// Transient failure: try the segment again after a backoff with jitter, up to the retry
    /// count (see `RetryBudget` for when progress starts the count over).
    func retrySegment(_ i: Int, reason: FailReason) {
        let failures = retryBudget.count(received: written, stalled: reason == .timeout, size: size)
        if failures > job.maxRetries { return failNow(reason) }
        if rangesUnsupported && segments[i].written > 0 {
            // Resuming is impossible on this server: the next try fetches the whole file.
            restartsFromZero = 0
            resetToZero()
            segments[0].retryAt = engine.now + engine.settings.retryBaseSeconds
            engine.scheduleTimer(at: segments[0].retryAt!)
            return
        }
        let backoff = retryAfterSeconds ?? min(30, engine.settings.retryBaseSeconds * pow(2, Double(failures - 1)))
        retryAfterSeconds = nil
        segments[i].retryAt = engine.now + backoff * Double.random(in: 0.8...1.2)
        engine.report(.retrying(url: url, reason: reason, attempt: failures, limit: job.maxRetries))
        engine.scheduleTimer(at: segments[i].retryAt!)
    }

    /// Never append to bytes of another version: throw them away and fetch the file again,
    /// at most `maxRetries + 1` times per run.
    func restartFromZero(because why: String) {
        restartsFromZero += 1
        if restartsFromZero > job.maxRetries + 1 {
            return failNow(.unknown("\(why); gave up after \(restartsFromZero - 1) restarts"))
        }
        engine.report(.note(url: url, text: "\(why): restarted from zero", retries: restartsFromZero))
        resetToZero()
        fillConnections()
    }

    /// Next step after a segment completed: more connections, or the finish.
    func advance() {
        if segments.allSatisfy(\.isComplete) && connections.isEmpty {
            return finish()
        }
        fillConnections()
    }

    // MARK: - Checkpoints

    /// fdatasync in the background, then report the offsets that are now durable.
    func checkpoint(final: Bool = false, then: (() -> Void)? = nil) {
        guard let part, !checkpointInFlight || final else { then?(); return }
        if let error = writeAllPending(), !stopped {
            then?()
            return failNow(error.reason)
        }
        let snapshot = segments.map { Segment(start: $0.start, end: $0.end, done: $0.written) }
        let total = snapshot.reduce(0) { $0 + $1.done }
        guard total != durableTotal || final else { then?(); return }
        checkpointInFlight = true
        let takenIn = generation
        engine.worker.async { [engine = self.engine] in
            let syncError: FileError?
            do { try part.syncData(); syncError = nil } catch { syncError = error as? FileError ?? .other("\(error)") }
            engine.post {
                self.checkpointInFlight = false
                if let syncError {
                    // The kernel reports a failed writeback once: a later fsync would pass.
                    if !self.stopped && !self.finishing && engine.downloads[self.url] === self {
                        self.failNow(syncError.reason)
                    }
                } else if takenIn == self.generation, (engine.downloads[self.url] ?? self) === self {
                    // (A stopped download's last report must not land on a newer download of the
                    // URL, after a quick resume or restart: that one reports its own offsets, and
                    // these may describe a part file since restarted or deleted.)
                    self.durableTotal = total
                    for (k, segment) in snapshot.enumerated() where k < self.segments.count {
                        self.segments[k].durable = segment.done
                    }
                    engine.report(.checkpoint(url: self.url, segments: snapshot))
                }
                then?()
            }
        }
    }

    // MARK: - Ending

    func stop() {
        stopped = true
        _ = writeAllPending()  // what fails to be written is taken back from `written`
        for connection in connections {
            connection.stopReason = .stopped
            engine.remove(connection)
        }
        for i in segments.indices { segments[i].connection = nil }
    }

    /// Ends the download with `reason`. The offsets it keeps are those written, once a sync
    /// says they are on disk; when the sync (or a queued write) failed, those of the last
    /// checkpoint, which were.
    func failNow(_ reason: FailReason) {
        stop()
        let written = segments.map { Segment(start: $0.start, end: $0.end, done: $0.written) }
        let durable = segments.map { Segment(start: $0.start, end: $0.end, done: $0.durable) }
        let finalize = { [engine, url] (segments: [Segment]) in
            engine.report(.failed(url: url, reason: reason, segments: segments))
            engine.forget(self)
        }
        if let part {
            engine.worker.async { [engine = self.engine] in
                let synced = (try? part.syncData()) != nil
                engine.post { finalize(synced ? written : durable) }
            }
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
            checksumFailures += 1
            if checksumFailures > job.maxRetries {
                truncatePart()
                segments = [LiveSegment(start: 0, end: nil, written: 0, durable: 0)]
                return failNow(.checksumMismatch(expected: expected, actual: actual))
            }
            engine.report(.note(url: url, text: "checksum mismatch: downloading again (\(checksumFailures) of \(job.maxRetries))", retries: checksumFailures))
            engine.report(.finishing(url: url, started: false))
            resetToZero()
            fillConnections()
        case .sizeMismatch(let expected, let actual):
            engine.report(.finishing(url: url, started: false))
            // Counted with the other restarts: a server whose sizes never agree fails, never loops.
            restartFromZero(because: "size is \(actual), expected \(expected)")
        case .nameTaken:
            // A file appeared under the recorded name while this one downloaded: the next free
            // name is recorded, then taken, so a kill in between leaves nothing unknown.
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
        case .failed(let reason):
            failNow(reason)
        }
    }
}
