/// Where a download stands. The raw values are what the session database stores.
public enum TaskState: String, Sendable, CaseIterable, Codable {
    /// Added, waiting for a free download slot.
    case waiting
    case downloading
    /// Paused by the user; resumes from the bytes it has.
    case paused
    /// Stopped by the user; like paused, but "resume all" leaves it alone only when asked.
    case stopped
    case finished
    case failed

    /// True while the task holds or waits for a download slot.
    public var isActive: Bool { self == .downloading || self == .waiting }
}

/// Why a task failed, in words a person understands (Reed's list, plus what curl can tell).
public enum FailReason: Equatable, Sendable {
    /// The engine stopped a download whose name the session could not commit: nothing was
    /// created under it, and the task waits for the session to be writable again.
    public static let notRecorded = FailReason.fileSystem("the session could not be saved")

    case timeout
    case noNetwork(String)
    case diskFull
    case checksumMismatch(expected: String, actual: String)
    case httpStatus(Int)
    case serverChangedFile
    case badURL(String)
    case fileSystem(String)
    case tooManyRedirects
    case tls(String)
    case unknown(String)

    public var message: String {
        switch self {
        case .timeout: return "timed out"
        case .noNetwork(let detail): return detail.isEmpty ? "no network" : detail
        case .diskFull: return "disk full"
        case .checksumMismatch(let expected, let actual):
            return "checksum mismatch (expected \(expected.prefix(12))…, got \(actual.prefix(12))…)"
        case .httpStatus(let code): return "\(code) \(HTTPStatus.phrase(code))"
        case .serverChangedFile: return "the server changed the file"
        case .badURL(let detail): return "bad URL: \(detail)"
        case .fileSystem(let detail): return detail
        case .tooManyRedirects: return "too many redirects"
        case .tls(let detail): return "TLS error: \(detail)"
        case .unknown(let detail): return detail
        }
    }

    /// Transient failures are worth another try; permanent ones fail at once.
    public var isTransient: Bool {
        switch self {
        case .timeout, .noNetwork: return true
        case .httpStatus(let code): return code >= 500 || code == 429 || code == 408
        default: return false
        }
    }

    /// A stable code for storage: kind plus detail.
    public var storageCode: String {
        switch self {
        case .timeout: return "timeout"
        case .noNetwork(let d): return "network:\(d)"
        case .diskFull: return "diskfull"
        case .checksumMismatch(let e, let a): return "checksum:\(e):\(a)"
        case .httpStatus(let c): return "http:\(c)"
        case .serverChangedFile: return "changed"
        case .badURL(let d): return "badurl:\(d)"
        case .fileSystem(let d): return "fs:\(d)"
        case .tooManyRedirects: return "redirects"
        case .tls(let d): return "tls:\(d)"
        case .unknown(let d): return "unknown:\(d)"
        }
    }

    public init(storageCode: String) {
        let parts = storageCode.split(separator: ":", maxSplits: 1, omittingEmptySubsequences: false).map(String.init)
        let detail = parts.count > 1 ? parts[1] : ""
        switch parts[0] {
        case "timeout": self = .timeout
        case "network": self = .noNetwork(detail)
        case "diskfull": self = .diskFull
        case "checksum":
            let pair = detail.split(separator: ":", maxSplits: 1).map(String.init)
            self = .checksumMismatch(expected: pair.first ?? "", actual: pair.count > 1 ? pair[1] : "")
        case "http": self = .httpStatus(Int(detail) ?? 0)
        case "changed": self = .serverChangedFile
        case "badurl": self = .badURL(detail)
        case "fs": self = .fileSystem(detail)
        case "redirects": self = .tooManyRedirects
        case "tls": self = .tls(detail)
        default: self = .unknown(detail)
        }
    }
}

enum HTTPStatus {
    static func phrase(_ code: Int) -> String {
        switch code {
        case 400: return "Bad Request"
        case 401: return "Unauthorized"
        case 403: return "Forbidden"
        case 404: return "Not Found"
        case 408: return "Request Timeout"
        case 410: return "Gone"
        case 416: return "Range Not Satisfiable"
        case 429: return "Too Many Requests"
        case 500: return "Internal Server Error"
        case 502: return "Bad Gateway"
        case 503: return "Service Unavailable"
        case 504: return "Gateway Timeout"
        default: return code >= 500 ? "Server Error" : (code >= 400 ? "Client Error" : "")
        }
    }
}
