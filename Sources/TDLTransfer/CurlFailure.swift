import CCurl
import TDLCore

/// What a libcurl result code means for a transfer: the reason the user sees, and whether it
/// is worth another try. The one mapping for downloads to files and streams alike.
struct CurlFailure: Equatable {
    let reason: FailReason

    /// A retry may help: a network that failed, a timeout, a server error that passes.
    var isRetryable: Bool { reason.isTransient }

    /// `detail` is what curl wrote in its error buffer (it says more than the code's text, as
    /// "SSL certificate problem: self-signed certificate"); `responseCode` the HTTP status.
    init(code: CURLcode, detail: String? = nil, responseCode: Int = 0) {
        let text = String(cString: curl_easy_strerror(code))
        switch code {
        case CURLE_OPERATION_TIMEDOUT:
            reason = .timeout
        case CURLE_COULDNT_CONNECT, CURLE_COULDNT_RESOLVE_HOST, CURLE_COULDNT_RESOLVE_PROXY, CURLE_PARTIAL_FILE,
             CURLE_RECV_ERROR, CURLE_SEND_ERROR, CURLE_GOT_NOTHING, CURLE_HTTP2, CURLE_HTTP2_STREAM:
            reason = .noNetwork(text.lowercased())
        case CURLE_TOO_MANY_REDIRECTS:
            reason = .tooManyRedirects
        case CURLE_URL_MALFORMAT, CURLE_UNSUPPORTED_PROTOCOL:
            reason = .badURL(text)
        case CURLE_PEER_FAILED_VERIFICATION, CURLE_SSL_CONNECT_ERROR, CURLE_SSL_CERTPROBLEM, CURLE_SSL_CACERT_BADFILE:
            reason = .tls(detail ?? text)
        case CURLE_REMOTE_FILE_NOT_FOUND, CURLE_FILE_COULDNT_READ_FILE:
            reason = .httpStatus(404)
        case CURLE_LOGIN_DENIED:
            reason = .httpStatus(401)
        case CURLE_HTTP_RETURNED_ERROR:
            reason = .httpStatus(responseCode)
        default:
            reason = .unknown(text)
        }
    }

    /// The same for a code given by its number in curl.h.
    init(number: UInt32, detail: String? = nil, responseCode: Int = 0) {
        self.init(code: CURLcode(rawValue: number), detail: detail, responseCode: responseCode)
    }
}
