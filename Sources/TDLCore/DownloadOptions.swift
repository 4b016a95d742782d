/// What a user may ask of one download beside its URL. One value carries it unchanged from an
/// input file, the command line, another tdl (the control socket) or the screen, through the
/// manager and the session file, to the engine. A field left nil takes the session's default.
///
/// New options are new optional fields: a session file or a request written before them
/// decodes with them unset.
public struct DownloadOptions: Hashable, Sendable, Codable {
    /// The folder of the file (absolute).
    public var directory: String?
    /// The file name the user chose: the server's name never replaces it.
    public var fileName: String?
    /// The finished file must match it; checked again when the URL is asked for again.
    public var checksum: Checksum?
    /// Bytes per second for this download alone; 0 lifts a limit set before.
    public var rateLimit: Int64?
    /// Connections for this download (1…32).
    public var connections: Int?
    /// Request headers of the user's, "Name: value" each. Sent only to the URL's own host (and
    /// port): a redirect elsewhere does not carry them, as it carries no credentials.
    public var headers: [String]?
    /// The User-Agent header (default "tdl/VERSION"); sent on redirects too, as browsers do.
    public var userAgent: String?
    /// The Referer header; like `headers`, only for the URL's own host.
    public var referer: String?
    /// A Netscape/Mozilla cookies.txt (absolute path), read when the download starts: its
    /// cookies go only to the domains and paths they name.
    public var cookieFile: String?
    /// Where the cookies are written when a connection ends (absolute path), cookies.txt style.
    public var saveCookies: String?
    /// Other URLs of the same file: every connection may use any of them.
    public var mirrors: [String]?
    // The queue the download runs in (nil: the default queue); see `QueueDefinition`.
    public var queue: String?
    /// How many times bytes that do not match `checksum` are downloaded again before the
    /// download fails (nil: as many times as it retries). aria2's clients get 0: aria2 fails
    /// at the first mismatch.
    public var checksumRetries: Int?
    /// The size the file must have (a Metalink's `<size>`): a server answering with another
    /// size has another file, and the download fails rather than mix it in.
    public var expectedSize: Int64?

    public init(directory: String? = nil, fileName: String? = nil, checksum: Checksum? = nil,
                rateLimit: Int64? = nil, connections: Int? = nil, headers: [String]? = nil,
                userAgent: String? = nil, referer: String? = nil, cookieFile: String? = nil,
                saveCookies: String? = nil, mirrors: [String]? = nil, queue: String? = nil,
                checksumRetries: Int? = nil, expectedSize: Int64? = nil) {
        self.directory = directory
        self.fileName = fileName
        self.checksum = checksum
        self.rateLimit = rateLimit
        self.connections = connections
        self.headers = headers
        self.userAgent = userAgent
        self.referer = referer
        self.cookieFile = cookieFile
        self.saveCookies = saveCookies
        self.mirrors = mirrors
        self.queue = queue
        self.checksumRetries = checksumRetries
        self.expectedSize = expectedSize
    }

    /// The most connections one download may use.
    public static let maxConnections = 32

    public var isEmpty: Bool { self == DownloadOptions() }

    /// These options, with `defaults` in every field these leave unset (a command's options
    /// under an input file's own lines).
    public func filling(from defaults: DownloadOptions) -> DownloadOptions {
        DownloadOptions(directory: directory ?? defaults.directory, fileName: fileName ?? defaults.fileName,
                        checksum: checksum ?? defaults.checksum, rateLimit: rateLimit ?? defaults.rateLimit,
                        connections: connections ?? defaults.connections,
                        headers: RequestHeader.merged(defaults.headers, headers),
                        userAgent: userAgent ?? defaults.userAgent, referer: referer ?? defaults.referer,
                        cookieFile: cookieFile ?? defaults.cookieFile, saveCookies: saveCookies ?? defaults.saveCookies,
                        mirrors: mirrors ?? defaults.mirrors, queue: queue ?? defaults.queue,
                        checksumRetries: checksumRetries ?? defaults.checksumRetries,
                        expectedSize: expectedSize ?? defaults.expectedSize)
    }

    /// Whether the request carries anything of the user's that must not follow a redirect to
    /// another host: then tdl follows redirects itself, deciding per host what it sends.
    public var hasOriginBoundHeaders: Bool {
        !(headers ?? []).isEmpty || referer != nil
    }

    /// What a task keeps: a lifted limit is no limit.
    var kept: DownloadOptions {
        var options = self
        if options.rateLimit == 0 { options.rateLimit = nil }
        return options
    }
}

/// One URL and what the user asked of it: the unit of `DownloadManager.add`.
public struct DownloadRequest: Hashable, Sendable, Codable {
    public var url: String
    public var options: DownloadOptions

    /// The URL is kept as the session spells it (see `URLIdentity`): a command that reads
    /// only the rows it names finds the row another spelling added.
    public init(url: String, options: DownloadOptions = DownloadOptions()) {
        self.url = URLIdentity.normalized(url)
        self.options = options
    }
}
