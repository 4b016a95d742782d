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
    /// Connections for this download (1…16).
    public var connections: Int?

    public init(directory: String? = nil, fileName: String? = nil, checksum: Checksum? = nil,
                rateLimit: Int64? = nil, connections: Int? = nil) {
        self.directory = directory
        self.fileName = fileName
        self.checksum = checksum
        self.rateLimit = rateLimit
        self.connections = connections
    }

    public var isEmpty: Bool { self == DownloadOptions() }

    /// These options, with `defaults` in every field these leave unset (a command's options
    /// under an input file's own lines).
    public func filling(from defaults: DownloadOptions) -> DownloadOptions {
        DownloadOptions(directory: directory ?? defaults.directory, fileName: fileName ?? defaults.fileName,
                        checksum: checksum ?? defaults.checksum, rateLimit: rateLimit ?? defaults.rateLimit,
                        connections: connections ?? defaults.connections)
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

    public init(url: String, options: DownloadOptions = DownloadOptions()) {
        self.url = url
        self.options = options
    }
}
