import CCurl
import Foundation
import TDLCore

/// Fetches a small text (a sum file for `--checksum-url`, a Metalink document) before any
/// download starts: one blocking request, redirects followed, at most 1 MiB.
public enum TextFetch {
    public enum Failure: Error, CustomStringConvertible {
        case failed(String)
        public var description: String { if case .failed(let why) = self { return why }; return "" }
    }

    public static func text(_ url: String, settings: EngineSettings, userAgent: String? = nil, cookieFile: String? = nil) throws -> String {
        _ = CurlEngine.globalInitDone
        guard let handle = curl_easy_init() else { throw Failure.failed("cannot start libcurl") }
        defer { curl_easy_cleanup(handle) }
        let box = Buffer()
        let me = Unmanaged.passUnretained(box).toOpaque()
        tdl_setopt_string(handle, CURLOPT_URL, url)
        tdl_setopt_long(handle, CURLOPT_FOLLOWLOCATION, 1)
        tdl_setopt_long(handle, CURLOPT_MAXREDIRS, 20)
        tdl_setopt_long(handle, CURLOPT_NOSIGNAL, 1)
        tdl_setopt_long(handle, CURLOPT_FAILONERROR, 1)
        tdl_setopt_long(handle, CURLOPT_CONNECTTIMEOUT, settings.connectTimeout)
        tdl_setopt_long(handle, CURLOPT_TIMEOUT, 60)
        tdl_set_auth_methods(handle)
        tdl_setopt_string(handle, CURLOPT_USERAGENT, userAgent ?? "tdl/\(EngineSettings.version)")
        if let cookieFile { tdl_setopt_string(handle, CURLOPT_COOKIEFILE, cookieFile) }
        if settings.insecure {
            tdl_setopt_long(handle, CURLOPT_SSL_VERIFYPEER, 0)
            tdl_setopt_long(handle, CURLOPT_SSL_VERIFYHOST, 0)
        }
        if let caBundle = settings.caBundle { tdl_setopt_string(handle, CURLOPT_CAINFO, caBundle) }
        tdl_setopt_data_callback(handle, CURLOPT_WRITEFUNCTION, textWriteCallback)
        tdl_setopt_pointer(handle, CURLOPT_WRITEDATA, me)
        let code = curl_easy_perform(handle)
        guard code == CURLE_OK else {
            var status = 0
            tdl_getinfo_long(handle, CURLINFO_RESPONSE_CODE, &status)
            if code == CURLE_HTTP_RETURNED_ERROR { throw Failure.failed(FailReason.httpStatus(status).message) }
            if box.tooLong { throw Failure.failed("larger than 1 MiB: too large for a sum file or a Metalink document") }
            throw Failure.failed(String(cString: curl_easy_strerror(code)).lowercased())
        }
        return String(decoding: box.data, as: UTF8.self)
    }

    final class Buffer {
        var data = Data()
        var tooLong = false
    }
}

private let textWriteCallback: tdl_data_callback = { pointer, size, count, userData in
    guard let pointer, let userData else { return 0 }
    let box = Unmanaged<TextFetch.Buffer>.fromOpaque(userData).takeUnretainedValue()
    let n = size * count
    if box.data.count + n > 1 << 20 { box.tooLong = true; return 0 }
    box.data.append(UnsafeRawPointer(pointer).assumingMemoryBound(to: UInt8.self), count: n)
    return n
}
