import CCurl
import Crypto
import Foundation
import TDLCore
#if canImport(Glibc)
import Glibc
#endif

/// `tdl get URL -o -`: the bytes of one URL written in order to a descriptor (standard
/// output, a pipe), over one connection. A broken connection is resumed from the bytes
/// already written, with `Range` and `If-Range`, and only with a 206 that starts exactly
/// there: what went into the pipe cannot be taken back, so a server that cannot resume (or
/// whose file changed) fails the stream instead of repeating bytes.
public final class StreamDownload {
    public let url: String
    let options: DownloadOptions
    let settings: EngineSettings
    let maxRetries: Int
    let output: Int32
    /// Called at most twice a second with the bytes written and the size when known.
    public var onProgress: ((_ written: Int64, _ size: Int64?) -> Void)?
    /// A retry about to happen, in words.
    public var onRetry: ((String) -> Void)?

    /// The bytes written must match it; a mismatch fails the stream at its end (the reader has
    /// them already: the exit status is what tells).
    public var checksum: Checksum? {
        didSet { hasher = checksum.map { StreamHasher($0.algorithm) } }
    }
    private var hasher: StreamHasher?

    public private(set) var written: Int64 = 0
    public private(set) var size: Int64?
    private var validator: String?

    // The current request.
    private var status = 0
    private var headers: [String: String] = [:]
    private var checked = false
    private var failure: FailReason?
    private var permanent = false
    private var requestStart: Int64 = 0
    private var lastProgress: Double = 0
    /// What the last request's result code means (see `CurlFailure`).
    private var lastFailure = CurlFailure(code: CURLE_OK)

    public init(url: String, options: DownloadOptions, settings: EngineSettings, maxRetries: Int = 3, output: Int32 = 1) {
        self.url = url
        self.options = options
        self.settings = settings
        self.maxRetries = maxRetries
        self.output = output
    }

    /// Runs to the end: nil when every byte was written, else why not.
    public func run() -> FailReason? {
        _ = CurlEngine.globalInitDone
        signal(SIGPIPE, SIG_IGN)  // a closed pipe is an error to report, not a death
        var failures = 0
        var target = url
        var hops = 0
        while true {
            let before = written
            let (code, redirect) = perform(target)
            if let redirect {
                hops += 1
                if hops > 20 { return .tooManyRedirects }
                target = redirect
                continue
            }
            if code == CURLE_OK && failure == nil && (size == nil || written == size) {
                onProgress?(written, size)
                if let checksum, let actual = hasher?.hex, actual != checksum.hex {
                    return .checksumMismatch(expected: checksum.hex, actual: actual)
                }
                return nil
            }
            let reason = failure ?? (code == CURLE_OK ? .noNetwork("the server closed the connection early") : lastFailure.reason)
            if permanent || !reason.isTransient { return reason }
            if written > before { failures = 0 }
            failures += 1
            if failures > maxRetries { return reason }
            onRetry?("retrying (\(failures) of \(maxRetries)): \(reason.message)")
            usleep(UInt32(min(30, settings.retryBaseSeconds * pow(2, Double(failures - 1))) * 1_000_000))
            target = url
            hops = 0
        }
    }

    /// One request from `written` on; the redirect to follow when tdl follows them itself.
    private func perform(_ target: String) -> (CURLcode, String?) {
        guard let handle = curl_easy_init() else { return (CURLE_FAILED_INIT, nil) }
        defer { curl_easy_cleanup(handle) }
        status = 0
        headers = [:]
        checked = false
        failure = nil
        requestStart = written
        let me = Unmanaged.passUnretained(self).toOpaque()
        let followsItself = !options.hasOriginBoundHeaders
        tdl_setopt_string(handle, CURLOPT_URL, target)
        tdl_setopt_long(handle, CURLOPT_FOLLOWLOCATION, followsItself ? 1 : 0)
        tdl_setopt_long(handle, CURLOPT_MAXREDIRS, 20)
        tdl_setopt_long(handle, CURLOPT_UNRESTRICTED_AUTH, 0)
        tdl_setopt_long(handle, CURLOPT_NOSIGNAL, 1)
        tdl_setopt_long(handle, CURLOPT_CONNECTTIMEOUT, settings.connectTimeout)
        tdl_setopt_long(handle, CURLOPT_LOW_SPEED_LIMIT, 1024)
        tdl_setopt_long(handle, CURLOPT_LOW_SPEED_TIME, settings.stallSeconds)
        tdl_set_auth_methods(handle)
        tdl_setopt_long(handle, CURLOPT_HTTP_CONTENT_DECODING, 0)
        tdl_setopt_long(handle, CURLOPT_NETRC, Int(CURL_NETRC_OPTIONAL.rawValue))
        tdl_setopt_string(handle, CURLOPT_USERAGENT, options.userAgent ?? "tdl/\(EngineSettings.version)")
        if settings.insecure {
            tdl_setopt_long(handle, CURLOPT_SSL_VERIFYPEER, 0)
            tdl_setopt_long(handle, CURLOPT_SSL_VERIFYHOST, 0)
        }
        if let caBundle = settings.caBundle { tdl_setopt_string(handle, CURLOPT_CAINFO, caBundle) }
        if let cookieFile = options.cookieFile { tdl_setopt_string(handle, CURLOPT_COOKIEFILE, cookieFile) }
        if let saveCookies = options.saveCookies { tdl_setopt_string(handle, CURLOPT_COOKIEJAR, saveCookies) }
        var list: UnsafeMutablePointer<curl_slist>?
        defer { curl_slist_free_all(list) }
        if RequestHeader.origin(of: target) == RequestHeader.origin(of: url) {
            for header in options.headers ?? [] { list = curl_slist_append(list, header) }
            if let referer = options.referer { tdl_setopt_string(handle, CURLOPT_REFERER, referer) }
        }
        if written > 0 {
            tdl_setopt_string(handle, CURLOPT_RANGE, "\(written)-")
            if let validator { list = curl_slist_append(list, "If-Range: \(validator)") }
        }
        if let list { tdl_setopt_slist(handle, CURLOPT_HTTPHEADER, list) }
        tdl_setopt_data_callback(handle, CURLOPT_WRITEFUNCTION, streamWriteCallback)
        tdl_setopt_pointer(handle, CURLOPT_WRITEDATA, me)
        tdl_setopt_data_callback(handle, CURLOPT_HEADERFUNCTION, streamHeaderCallback)
        tdl_setopt_pointer(handle, CURLOPT_HEADERDATA, me)
        // curl's own words for a failure (a TLS one above all) say more than its code's text.
        let errorBuffer = UnsafeMutablePointer<CChar>.allocate(capacity: Int(CURL_ERROR_SIZE))
        defer {
            tdl_setopt_pointer(handle, CURLOPT_ERRORBUFFER, nil)
            errorBuffer.deallocate()
        }
        errorBuffer[0] = 0
        tdl_setopt_pointer(handle, CURLOPT_ERRORBUFFER, errorBuffer)
        let code = curl_easy_perform(handle)
        var responseCode = 0
        tdl_getinfo_long(handle, CURLINFO_RESPONSE_CODE, &responseCode)
        lastFailure = CurlFailure(code: code, detail: errorBuffer[0] == 0 ? nil : String(cString: errorBuffer), responseCode: responseCode)
        if !followsItself, [301, 302, 303, 307, 308].contains(status), headers["location"] != nil {
            var pointer: UnsafeMutablePointer<CChar>?
            if tdl_getinfo_string(handle, CURLINFO_REDIRECT_URL, &pointer) == CURLE_OK, let pointer {
                return (code, String(cString: pointer))
            }
        }
        if !checked && code == CURLE_OK { _ = check() }  // an empty body never reached the write callback
        return (code, nil)
    }

    fileprivate func header(_ line: String) {
        let trimmed = line.trimmingWhitespace()
        if trimmed.hasPrefix("HTTP/") {
            status = Int(trimmed.split(separator: " ").dropFirst().first ?? "") ?? 0
            headers = [:]
            return
        }
        if let colon = trimmed.firstIndex(of: ":") {
            headers[trimmed[..<colon].lowercased()] = String(trimmed[trimmed.index(after: colon)...].trimmingWhitespace())
        }
    }

    /// The answer before its first byte goes out: only the bytes that come next in the stream.
    private func check() -> Bool {
        checked = true
        let isHTTP = url.lowercased().hasPrefix("http")
        guard isHTTP else { return true }
        if status >= 400 {
            failure = .httpStatus(status)
            permanent = !FailReason.httpStatus(status).isTransient
            return false
        }
        if requestStart > 0 {
            guard status == 206, let range = headers["content-range"], ContentRange(range)?.first == requestStart else {
                failure = .unknown("the server cannot resume at byte \(requestStart) (or the file changed); the stream is cut")
                permanent = true
                return false
            }
        } else {
            size = Connection.header(headers["transfer-encoding"], lists: "chunked") ? nil : Connection.byteCount(headers["content-length"])
            if let etag = headers["etag"], !etag.hasPrefix("W/") { validator = etag } else { validator = headers["last-modified"] }
        }
        return true
    }

    fileprivate func body(_ pointer: UnsafeRawPointer, _ count: Int) -> Int {
        // A redirect tdl follows itself: its body is not the file's.
        if options.hasOriginBoundHeaders && [301, 302, 303, 307, 308].contains(status) && headers["location"] != nil { return count }
        if !checked && !check() { return 0 }
        var done = 0
        while done < count {
            let n = Glibc.write(output, pointer + done, count - done)
            if n < 0 {
                if errno == EINTR { continue }
                failure = .unknown("cannot write the output: \(String(cString: strerror(errno)))")
                permanent = true
                return 0
            }
            done += n
        }
        written += Int64(count)
        hasher?.update(UnsafeRawBufferPointer(start: pointer, count: count))
        let now = Date().timeIntervalSinceReferenceDate
        if now - lastProgress >= 0.5 {
            lastProgress = now
            onProgress?(written, size)
        }
        return count
    }

}

/// The digest of the bytes written so far, in the algorithm a checksum names.
struct StreamHasher {
    private var md5: Insecure.MD5?, sha1: Insecure.SHA1?, sha256: SHA256?, sha512: SHA512?

    init(_ algorithm: Checksum.Algorithm) {
        switch algorithm {
        case .md5: md5 = Insecure.MD5()
        case .sha1: sha1 = Insecure.SHA1()
        case .sha256: sha256 = SHA256()
        case .sha512: sha512 = SHA512()
        }
    }

    mutating func update(_ bytes: UnsafeRawBufferPointer) {
        md5?.update(bufferPointer: bytes)
        sha1?.update(bufferPointer: bytes)
        sha256?.update(bufferPointer: bytes)
        sha512?.update(bufferPointer: bytes)
    }

    var hex: String {
        let digest: [UInt8] = md5.map { Array($0.finalize()) } ?? sha1.map { Array($0.finalize()) }
            ?? sha256.map { Array($0.finalize()) } ?? sha512.map { Array($0.finalize()) } ?? []
        return digest.map { String(format: "%02x", $0) }.joined()
    }
}

private let streamWriteCallback: tdl_data_callback = { pointer, size, count, userData in
    guard let pointer, let userData else { return 0 }
    let stream = Unmanaged<StreamDownload>.fromOpaque(userData).takeUnretainedValue()
    return stream.body(UnsafeRawPointer(pointer), size * count)
}

private let streamHeaderCallback: tdl_data_callback = { pointer, size, count, userData in
    guard let pointer, let userData else { return 0 }
    let stream = Unmanaged<StreamDownload>.fromOpaque(userData).takeUnretainedValue()
    let bytes = UnsafeRawBufferPointer(start: pointer, count: size * count)
    stream.header(String(validating: bytes, as: UTF8.self) ?? String(String.UnicodeScalarView(bytes.map { Unicode.Scalar($0) })))
    return size * count
}
