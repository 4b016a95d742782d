import CCurl
import Foundation
import TDLCore

/// One file on its way down: it starts connections for its segments from its sources and
/// reacts to what they report. The parts each have their own type: the byte ranges
/// (`SegmentTable`), the sources (`MirrorSelector`), retries (`RetryPolicy`) and
/// checkpoints (`CheckpointTracker`); this class ties them to the engine. Lives on the event
/// loop, outside libcurl's callbacks but for `write` and the checks of an answer. The part
/// file's writes, truncations and syncs run on the engine's one serial worker, so each
/// happens after those queued before it.
final class FileDownload {
    unowned let engine: CurlEngine
    let job: TransferJob
    var url: String { job.url }
    var sources: MirrorSelector
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
    /// The free name `recordNameAhead` found for the part file in this step: settling tries
    /// it first (see `PartFile.create`).
    var nameChosenAhead: String?
    var segments: SegmentTable<Connection>
    var resolved = false
    var retries: RetryPolicy
    var checkpoints = CheckpointTracker()
    var finishing = false
    var stopped = false
    var bytesSinceWriteback: Int64 = 0
    /// The server answered a range request with the whole file: from now on only whole-file
    /// requests, and a broken transfer starts again from zero (counted, so it cannot loop).
    var rangesUnsupported = false
    /// A 206 came, or the first answer said `Accept-Ranges: bytes`. Until then a server is not
    /// trusted with ranges (`python3 -m http.server` answers 200 to every one, and says none).
    var rangesOffered = false
    /// Whether a connection may be ended or added for tdl's own reasons (a split, smaller
    /// reads): only when its rest can be asked for by range. Else that costs every byte so far.
    var reconnectsCheaply: Bool { !isHTTP || (rangesOffered && !rangesUnsupported) }
    /// When the speeds of the sources were last compared.
    var lastLook: Double = 0

    init(job: TransferJob, engine: CurlEngine) {
        self.job = job
        self.engine = engine
        let scheme = URLComponents(string: job.url)?.scheme?.lowercased() ?? ""
        isHTTP = scheme == "http" || scheme == "https"
        fileName = job.fileName
        sources = MirrorSelector(url: job.url, mirrors: job.options.mirrors ?? [])
        size = job.size
        etag = job.etag
        lastModified = job.lastModified
        segments = SegmentTable(recorded: job.segments)
        retries = RetryPolicy(maxRetries: job.maxRetries, baseSeconds: engine.settings.retryBaseSeconds)
    }

    var failures: Int { retries.failures }
    var isSegmented: Bool { segments.isSegmented }
    var connections: [Connection] { segments.links }
    var written: Int64 { segments.written }

    /// The strong ETag, else Last-Modified: what `If-Range` sends so a changed file answers 200.
    var ifRangeValidator: String? {
        if let etag, !etag.hasPrefix("W/") { return etag }
        return lastModified
    }

    // MARK: - Starting

    func begin() {
        // Every source checks its headers; a session written before they did is checked here.
        if let problem = RequestText.problem(in: job.options, readingCookieFile: false) { return failNow(.badURL(problem)) }
        if segments.anyWritten {
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
                segments.clamp(toFileSize: reopened.size)
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
            segments = SegmentTable()
        }
        if segments.allComplete, size != nil { return finish() }
        fillConnections()
    }

    /// Throws the bytes away: the part file is emptied and the file fetched again from zero.
    func resetToZero() {
        checkpoints.fileEmptied()
        for connection in connections { engine.remove(connection) }
        segments = SegmentTable()
        truncatePart()
        // The recorded offsets describe bytes that are gone: none are durable now.
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
        for i in segments.indices where segments[i].link == nil && !segments[i].isComplete {
            if connections.count >= max(1, job.connections) { break }
            if let retryAt = segments[i].retryAt, retryAt > now { continue }
            guard let source = nextSource() else {
                waitsForHost = true
                break
            }
            segments[i].retryAt = nil
            connect(segment: i, source: source)
        }
        if connections.count < job.connections && resolved && isHTTP && size != nil && reconnectsCheaply {
            splitLargestSegment()
        }
    }

    /// Starts a connection for segment `i` from `source` (or where a redirect pointed).
    @discardableResult
    func connect(segment i: Int, source: Int, url: String? = nil, hops: Int = 0) -> Bool {
        guard let connection = Connection(download: self, segmentIndex: i, source: source, url: url, hops: hops,
                                          settings: engine.settings) else { return false }
        segments[i].link = connection
        engine.add(connection)
        return true
    }

    /// The source the next connection uses (see `MirrorSelector.next`).
    func nextSource() -> Int? {
        var counts = [Int](repeating: 0, count: sources.count)
        for connection in connections { counts[connection.source] += 1 }
        return sources.next(resolved: resolved, connectionsPerSource: counts, hostHasRoom: engine.hostHasRoom)
    }

    /// When a connection is free, the largest remaining segment is cut in two so the tail of
    /// the file does not crawl on one connection.
    func splitLargestSegment() {
        guard let i = segments.largestSplittable() else { return }
        guard let source = nextSource() else {
            waitsForHost = true
            return
        }
        connect(segment: segments.split(i), source: source)
    }

    /// Next step after a segment completed: more connections, or the finish.
    func advance() {
        if segments.allComplete && connections.isEmpty {
            return finish()
        }
        fillConnections()
    }

    // MARK: - Mirrors

    /// Gives a source up for the rest of this download, with a note naming it; its other
    /// connections end and their segments go on from the other sources (at the loop's next
    /// step: this may run where handles cannot be removed).
    func dropSource(_ source: Int, _ cause: MirrorDrop.Cause) {
        guard let drop = sources.drop(source, cause) else { return }
        reportDrop(drop, of: source)
    }

    private func reportDrop(_ drop: MirrorDrop, of source: Int) {
        engine.report(.note(url: url, text: drop.note, retries: failures))
        engine.worker.later { [self] in
            guard !stopped, !finishing else { return }
            for connection in connections where connection.source == source {
                if let error = writePending(connection) { return failNow(error.reason) }
                connection.stopReason = .stopped
                engine.remove(connection)
                segments[connection.segmentIndex].link = nil
            }
            fillConnections()
        }
    }

    /// Twice a second: a source whose connections carry less than a fifth of the best rate
    /// per connection seen from any source, for `slowMirrorSeconds`, is dropped while another
    /// is in use; its segments go on from the others. Only connections that were already
    /// there at the last look count, so a new one is not slow for its first bytes.
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
        let dropped = sources.dropSlow(bytes: bytes, counted: counted, elapsed: elapsed, now: now,
                                       slowSeconds: engine.settings.slowMirrorSeconds)
        for (source, drop) in dropped { reportDrop(drop, of: source) }
    }
}
