import CCurl
import Foundation
import TDLCore

/// One libcurl easy handle fetching one segment of one file. It checks the answer itself
/// (status, Content-Range) before a byte is written: CURLOPT_RANGE is not checked by curl.
final class Connection {
    let handle: UnsafeMutableRawPointer
    unowned let download: FileDownload
    /// Index into `download.segments`.
    let segmentIndex: Int
    /// The first byte this request asked for.
    let requestStart: Int64
    let asksForRange: Bool
    /// The URL this request goes to: the download's, a mirror's, or where a redirect pointed.
    let requestURL: String
    /// Which of the download's sources (0: its URL, then its mirrors) this request serves.
    let source: Int
    /// Redirects followed by tdl itself to reach `requestURL`.
    let hops: Int
    /// "scheme://host:port" of `requestURL`: what the per-host connection limit counts.
    let origin: String
    /// libcurl follows redirects itself, unless the user's headers must stay on their host.
    let followsRedirects: Bool
    /// Counted in the engine's connections per host until released.
    var holdsHostSlot = false
    var headerList: UnsafeMutablePointer<curl_slist>?
    let errorBuffer = UnsafeMutablePointer<CChar>.allocate(capacity: Int(CURL_ERROR_SIZE))

    // What the current response said (reset on every status line, so redirects don't mix).
    var status = 0
    var headers: [String: String] = [:]
    var headersChecked = false
    /// Paused on its first answer until the loop's next step settles it with the manager
    /// (see `FileDownload.settleFirstAnswer`).
    var awaitsSettling = false
    /// Body bytes that came before the first answer was settled, not yet counted anywhere
    /// (see `FileDownload.holdEarly`), and curl's result when the transfer ended meanwhile.
    var early: [UInt8] = []
    var endedWhileSettling: CURLcode?
    /// Why this connection stopped on purpose, decided by a callback.
    var stopReason: StopReason?

    enum StopReason {
        case reachedSegmentEnd
        case rangeIgnored
        case rangeNotSatisfiable
        case httpError(Int, retryAfter: Double?)
        case writeFailed(FileError)
        /// A check inside a callback failed; the download fails once curl has let go.
        case failed(FailReason)
        /// A mirror's answer is another file (size, validator).
        case otherFile(String)
        /// A range answer of another version than the partial's (validators, total).
        case fileChanged(String)
        /// An answer no file can be written from (a broken Content-Range or total).
        case brokenAnswer(String)
        /// A new limit is so low that this connection's reads overshoot it: it makes way for
        /// one with smaller reads at the same offset.
        case readsTooLargeForLimit
        /// A first answer that cannot wait paused (file://): it ends, is settled once curl has
        /// let go, and the segment starts again (see `FileDownload.answerArrived`).
        case settlesFirstAnswer
        case stopped
    }

    /// libcurl cannot pause a file:// transfer ("Write callback asked for PAUSE when not
    /// supported"): its write callback must take every byte or stop it.
    let canPause: Bool

    /// A 3xx answer with a Location, left for tdl to follow.
    var isUnfollowedRedirect: Bool {
        !followsRedirects && [301, 302, 303, 307, 308].contains(status) && headers["location"] != nil
    }

    /// Where the last answer's Location points (absolute), when it had one.
    var redirectURL: String? {
        var pointer: UnsafeMutablePointer<CChar>?
        guard tdl_getinfo_string(handle, CURLINFO_REDIRECT_URL, &pointer) == CURLE_OK, let pointer else { return nil }
        return String(cString: pointer)
    }

    init?(download: FileDownload, segmentIndex: Int, source: Int = 0, url: String? = nil, hops: Int = 0, settings: EngineSettings) {
        guard let handle = curl_easy_init() else { return nil }
        self.handle = handle
        self.download = download
        self.segmentIndex = segmentIndex
        self.source = source
        requestURL = url ?? download.sources[source].url
        self.hops = hops
        origin = RequestHeader.origin(of: requestURL) ?? requestURL
        canPause = !requestURL.lowercased().hasPrefix("file:")
        followsRedirects = !download.job.options.hasOriginBoundHeaders
        let segment = download.segments[segmentIndex]
        requestStart = segment.start + segment.written
        asksForRange = requestStart > 0 || segment.end != nil && download.isSegmented
        configure(settings)
    }

    deinit {
        curl_easy_cleanup(handle)
        curl_slist_free_all(headerList)
        errorBuffer.deallocate()
    }

    var isHTTP: Bool { download.isHTTP }

    private func configure(_ settings: EngineSettings) {
        let me = Unmanaged.passUnretained(self).toOpaque()
        tdl_setopt_string(handle, CURLOPT_URL, requestURL)
        tdl_setopt_pointer(handle, CURLOPT_PRIVATE, me)
        tdl_setopt_data_callback(handle, CURLOPT_WRITEFUNCTION, connectionWriteCallback)
        tdl_setopt_pointer(handle, CURLOPT_WRITEDATA, me)
        tdl_setopt_data_callback(handle, CURLOPT_HEADERFUNCTION, connectionHeaderCallback)
        tdl_setopt_pointer(handle, CURLOPT_HEADERDATA, me)
        tdl_setopt_long(handle, CURLOPT_FOLLOWLOCATION, followsRedirects ? 1 : 0)
        tdl_setopt_long(handle, CURLOPT_MAXREDIRS, 20)
        // curl's default, said out loud: credentials never follow a redirect to another host or port.
        tdl_setopt_long(handle, CURLOPT_UNRESTRICTED_AUTH, 0)
        tdl_setopt_long(handle, CURLOPT_NOSIGNAL, 1)
        tdl_setopt_long(handle, CURLOPT_CONNECTTIMEOUT, settings.connectTimeout)
        // A transfer below the lowest speed for the stall time is reconnected and resumed.
        let lowSpeed = LowSpeedRule(lowestSpeed: settings.lowestSpeed, stallSeconds: settings.stallSeconds)
        tdl_setopt_long(handle, CURLOPT_LOW_SPEED_LIMIT, lowSpeed.bytesPerSecond)
        tdl_setopt_long(handle, CURLOPT_LOW_SPEED_TIME, lowSpeed.seconds)
        tdl_set_auth_methods(handle)
        if download.engine.netrc.fileExists(now: download.engine.now) {
            tdl_setopt_long(handle, CURLOPT_NETRC, Int(CURL_NETRC_OPTIONAL.rawValue))
        }
        let options = download.job.options
        tdl_setopt_string(handle, CURLOPT_USERAGENT, options.userAgent ?? "tdl/\(EngineSettings.version)")
        // The user's headers and Referer go only to the host (and port) they were given for:
        // the download's own URL, or the mirror this request serves.
        if RequestHeader.origin(of: download.sources[source].url) == origin {
            for header in options.headers ?? [] { headerList = curl_slist_append(headerList, header) }
            if let referer = options.referer { tdl_setopt_string(handle, CURLOPT_REFERER, referer) }
        }
        // curl's cookie engine sends a cookies.txt's cookies only to their domains, on every
        // host a redirect leads to.
        if let cookieFile = options.cookieFile { tdl_setopt_string(handle, CURLOPT_COOKIEFILE, cookieFile) }
        if let saveCookies = options.saveCookies { tdl_setopt_string(handle, CURLOPT_COOKIEJAR, saveCookies) }
        // The file is the bytes the server sent, as `curl -o` saves them: a .tar.gz labelled
        // `Content-Encoding: gzip` (Apache's AddEncoding) decoded would be another file, cut
        // at a Content-Length that counts the encoded bytes. No encoding is asked for either:
        // a decoded body could not be resumed by byte ranges of the encoded one.
        tdl_setopt_long(handle, CURLOPT_HTTP_CONTENT_DECODING, 0)
        if settings.insecure {
            tdl_setopt_long(handle, CURLOPT_SSL_VERIFYPEER, 0)
            tdl_setopt_long(handle, CURLOPT_SSL_VERIFYHOST, 0)
        }
        if let caBundle = settings.caBundle { tdl_setopt_string(handle, CURLOPT_CAINFO, caBundle) }
        // curl's own words for a failure ("SSL certificate problem: self-signed certificate")
        // say more than its error code's text.
        errorBuffer[0] = 0
        tdl_setopt_pointer(handle, CURLOPT_ERRORBUFFER, errorBuffer)
        if isHTTP {
            tdl_setopt_string(handle, CURLOPT_DEFAULT_PROTOCOL, "https")
        }
        let segment = download.segments[segmentIndex]
        if asksForRange {
            if isHTTP {
                let end = segment.end.map { String($0 - 1) } ?? ""
                tdl_setopt_string(handle, CURLOPT_RANGE, "\(requestStart)-\(end)")
                // A changed file must answer 200, never the bytes of another version.
                if let validator = download.ifRangeValidator {
                    headerList = curl_slist_append(headerList, "If-Range: \(validator)")
                }
            } else {
                tdl_setopt_off(handle, CURLOPT_RESUME_FROM_LARGE, curl_off_t(requestStart))
            }
        }
        if let headerList { tdl_setopt_slist(handle, CURLOPT_HTTPHEADER, headerList) }
    }

    // MARK: - Rate limit
    //
    // curl's own limit (CURLOPT_MAX_RECV_SPEED) is checked only between batches of reads and
    // overshoots badly on fast links. A token bucket in the write callback is exact: when the
    // budget is spent the callback pauses the transfer, and the loop resumes it as tokens return.

    // A read of the network is taken whole, so its size is the limit's grain: 512 KiB under
    // 2 KB/s was minutes of the limit at once and then nothing. Under a limit a read is about
    // half a second of the connection's share (curl reads at least 1 KiB).
    static let fullReadSize = 512 * 1024
    static let smallestReadSize = 1024
    private(set) var readSize = Connection.fullReadSize
    /// Set once the transfer may have started: its read size no longer changes.
    private var readSizeFixed = false
    /// The limit fell far below what this connection's reads bring at once.
    private(set) var makesWayForSmallerReads = false

    static func readSize(forShare share: Int64?) -> Int {
        guard let share else { return fullReadSize }
        return Int(min(max(share / 2, Int64(smallestReadSize)), Int64(fullReadSize)))
    }

    /// Fixes the read size for the share the connection has now. Before its transfer starts.
    func fixReadSize() {
        readSize = Self.readSize(forShare: rateLimit)
        readSizeFixed = true
        tdl_setopt_long(handle, CURLOPT_BUFFERSIZE, readSize)
    }

    /// Body bytes taken but not yet written, and where they go (see `FileDownload.write`).
    var pending: [UInt8] = []
    var pendingOffset: Int64 = 0
    /// Body bytes this connection took (for comparing the speeds of mirrors).
    var taken: Int64 = 0
    /// `taken` when the download last compared its sources; nil before.
    var takenAtLastLook: Int64?
    /// Bytes per second, nil for none.
    var rateLimit: Int64?
    /// Bytes this connection may still take now.
    var allowance: Double = 0
    var isPaused = false
    /// Paused because the loop's turn spent its time (see `CurlEngine.performDeadline`).
    var isPausedForTurn = false
    /// Paused because the worker is behind with the writes (see `CurlEngine+WriteBacklog`).
    var isPausedForWrites = false

    func setRateLimit(_ bytesPerSecond: Int64?) {
        if rateLimit == nil, let bytesPerSecond { allowance = Double(bytesPerSecond) / 10 }
        rateLimit = bytesPerSecond
        // Never on a server without ranges: the new connection would start the file over.
        if readSizeFixed && Self.readSize(forShare: bytesPerSecond) * 4 < readSize && download.reconnectsCheaply {
            // It ends at its next read (see `receiveBody`), even if that read waits for tokens now.
            makesWayForSmallerReads = true
            resumeFromLimit()
        }
        // A lifted limit lets a paused transfer go at once: without limits the loop no longer
        // refills (and so unpauses) anything.
        if bytesPerSecond == nil { resumeFromLimit() }
    }

    /// Lets a transfer the limit paused take bytes again; one the loop's turn paused too goes
    /// on with the next turn (see `CurlEngine.resumeTurnPaused`).
    private func resumeFromLimit() {
        guard isPaused else { return }
        isPaused = false
        if !isPausedForTurn && !isPausedForWrites { download.engine.continueTransfer(self) }
    }

    /// Adds the tokens earned over `seconds`; unpauses when there are some. Loop thread.
    func refill(seconds: Double) {
        guard let rateLimit else { return }
        // At most a fifth of a second's worth is kept, so a pause never turns into a burst.
        allowance = min(allowance + Double(rateLimit) * seconds, Double(rateLimit) / 5)
        if allowance > 0 { resumeFromLimit() }
    }

    // MARK: - Callbacks

    func receiveHeader(_ line: String) {
        let trimmed = line.trimmingWhitespace()
        if trimmed.hasPrefix("HTTP/") {
            return receiveStatus(Int(trimmed.split(separator: " ").dropFirst().first ?? "") ?? 0)
        }
        if let colon = trimmed.firstIndex(of: ":") {
            let name = trimmed[..<colon].lowercased()
            headers[name] = String(trimmed[trimmed.index(after: colon)...].trimmingWhitespace())
        }
    }

    func receiveHeader(_ line: HeaderLine) {
        switch line {
        case .status(let code): receiveStatus(code)
        case .field(let name, let value): headers[name] = value
        case .other: break
        }
    }

    private func receiveStatus(_ code: Int) {
        status = code
        // Room for a usual answer's headers (nginx sends eight): growing from empty rehashed them three times.
        headers = Dictionary(minimumCapacity: 16)
        headersChecked = false
    }

    /// Checks the answer before its first byte is written. False stops the transfer.
    /// `inCallback`: called from libcurl's write callback, where the manager is not called.
    func checkResponse(inCallback: Bool) -> Bool {
        headersChecked = true
        guard isHTTP else { return download.answerArrived(self, inCallback: inCallback) }
        // Its body is read and dropped; the download follows it once the answer is over.
        if isUnfollowedRedirect { return true }
        if status >= 400 {
            if status == 416 && asksForRange {
                stopReason = .rangeNotSatisfiable
            } else {
                stopReason = .httpError(status, retryAfter: headers["retry-after"].flatMap(Self.parseRetryAfter))
            }
            return false
        }
        if asksForRange || status == 206 {
            // 200 for a range: the file changed or ranges are ignored.
            guard status == 206 else {
                stopReason = .rangeIgnored
                return false
            }
            guard let header = headers["content-range"], let range = ContentRange(header) else {
                stopReason = .brokenAnswer("a 206 answer with a broken Content-Range (\(headers["content-range"] ?? "none"))")
                return false
            }
            // A range we did not ask for.
            guard range.first == requestStart else {
                stopReason = .rangeIgnored
                return false
            }
            download.rangesOffered = true
        }
        return download.answerArrived(self, inCallback: inCallback)
    }

    /// True when a comma-separated header value such as "gzip, chunked" holds `token`
    /// (lowercase), in any case.
    static func header(_ value: String?, lists token: String) -> Bool {
        guard let value else { return false }
        return value.split(separator: ",").contains { $0.trimmingWhitespace().lowercased() == token }
    }

    /// A size or offset a server sent: not negative, and small enough (an exbibyte) that
    /// offsets added to it stay inside Int64. Anything else is no size at all.
    static func byteCount<S: StringProtocol>(_ text: S?) -> Int64? {
        guard let text, let n = Int64(text.trimmingWhitespace()), (0...(1 << 60)).contains(n) else { return nil }
        return n
    }

    static func parseRetryAfter(_ value: String) -> Double? {
        if let seconds = Double(value) { return max(0, seconds) }
        let formatter = DateFormatter()
        formatter.locale = Locale(identifier: "en_US_POSIX")
        formatter.dateFormat = "EEE, dd MMM yyyy HH:mm:ss zzz"
        return formatter.date(from: value).map { max(0, $0.timeIntervalSinceNow) }
    }

    /// Writes bytes at the segment's offset; returns how many were taken (fewer stops curl).
    func receiveBody(_ pointer: UnsafeRawPointer, _ count: Int) -> Int {
        if !headersChecked, !checkResponse(inCallback: true) { return 0 }
        if stopReason != nil { return 0 }
        // The first answer waits for the loop's next step: its first bytes wait in memory.
        if awaitsSettling { return download.holdEarly(self, pointer, count) }
        if isUnfollowedRedirect { return count }
        // A file:// copy cannot pause (curl fails it): it takes every byte, limit or not.
        guard canPause else { return take(pointer, count) }
        // The loop's turn has had its time: the rest waits for the next turn (keys, the screen).
        if download.engine.turnIsOver() {
            isPausedForTurn = true
            download.engine.pausedForTurn.append(self)
            return tdl_writefunc_pause()
        }
        // The worker is behind with the writes (a slow disk, a long sync): the bytes wait in
        // curl until it catches up, so they fill neither memory nor the loop's time.
        if download.engine.writesAreBacklogged {
            download.engine.pauseForWrites(self)
            return tdl_writefunc_pause()
        }
        if makesWayForSmallerReads {
            stopReason = .readsTooLargeForLimit
            return 0
        }
        if rateLimit != nil {
            if allowance <= 0 {
                isPaused = true
                return tdl_writefunc_pause()
            }
            allowance -= Double(count)
        }
        return take(pointer, count)
    }

    private func take(_ pointer: UnsafeRawPointer, _ count: Int) -> Int {
        let n = download.write(pointer, count, segmentIndex: segmentIndex, connection: self)
        taken += Int64(n)
        return n
    }

    /// What curl's result for this transfer means (see `CurlFailure`).
    func failure(_ result: CURLcode) -> CurlFailure {
        CurlFailure(code: result, detail: errorText, responseCode: responseCode)
    }

    /// The detail curl wrote for the last failure, nil when none.
    var errorText: String? {
        errorBuffer[0] == 0 ? nil : String(cString: errorBuffer)
    }

    var effectiveURL: String? {
        var pointer: UnsafeMutablePointer<CChar>?
        guard tdl_getinfo_string(handle, CURLINFO_EFFECTIVE_URL, &pointer) == CURLE_OK, let pointer else { return nil }
        return String(cString: pointer)
    }

    var responseCode: Int {
        var code = 0
        tdl_getinfo_long(handle, CURLINFO_RESPONSE_CODE, &code)
        return code
    }

    var contentLength: Int64? {
        var length: curl_off_t = -1
        tdl_getinfo_off(handle, CURLINFO_CONTENT_LENGTH_DOWNLOAD_T, &length)
        return length >= 0 ? Int64(length) : nil
    }
}

private let connectionWriteCallback: tdl_data_callback = { pointer, size, count, userData in
    guard let pointer, let userData else { return 0 }
    let connection = Unmanaged<Connection>.fromOpaque(userData).takeUnretainedValue()
    return connection.receiveBody(UnsafeRawPointer(pointer), size * count)
}

private let connectionHeaderCallback: tdl_data_callback = { pointer, size, count, userData in
    guard let pointer, let userData else { return 0 }
    let connection = Unmanaged<Connection>.fromOpaque(userData).takeUnretainedValue()
    let length = size * count
    let bytes = UnsafeRawBufferPointer(start: pointer, count: length)
    if let line = HeaderLine.ascii(bytes) {
        connection.receiveHeader(line)
        return length
    }
    // Header bytes are untrusted: keep them as UTF-8 when valid, else as Latin-1, never dropped.
    // (The standard library's validation, not Foundation's decoding: this runs for every line.)
    let line = String(validating: bytes, as: UTF8.self)
        ?? String(String.UnicodeScalarView(bytes.map { Unicode.Scalar($0) }))
    connection.receiveHeader(line)
    return length
}
