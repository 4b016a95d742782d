/// Every option one download may carry, named as the command line's long options are (`-o`
/// and `-x` have none: `out` and `split`, as an input file names them), each read here once
/// with one message per mistake: the command line, an input file's `key=value` lines, a
/// config file later, and aria2's names mapped onto these (`aria2Names`) all come through
/// `read`. A message names the option as its source spelled it ("--checksum", "checksum").
public enum DownloadOption: String, CaseIterable, Sendable {
    case dir
    case out
    case checksum
    case maxDownloadLimit = "max-download-limit"
    case split
    case header
    case userAgent = "user-agent"
    case referer
    case loadCookies = "load-cookies"
    case queue

    /// aria2's names for the options it shares with tdl under another name.
    public static let aria2Names: [String: DownloadOption] = ["max-connection-per-server": .split]

    /// What a value could not be, said with the option's name as the source spelled it.
    public struct Mistake: Error, Sendable, Equatable {
        public let option: DownloadOption?
        /// The words before and after the option's name; nil `after`: `before` is the whole
        /// message (a cookie file's problem names the option and the path itself).
        let before: String, after: String?

        init(_ option: DownloadOption?, _ before: String, _ after: String?) {
            self.option = option
            self.before = before
            self.after = after
        }

        /// The option's name, then `after`.
        init(_ option: DownloadOption, _ after: String) { self.init(option, "", after) }

        /// The one message for this mistake, naming the option as `name`.
        public func message(as name: String) -> String { after.map { before + name + $0 } ?? before }
    }

    /// `value` given for the option spelled `name`, applied to `options`. `absolute` makes a
    /// path absolute (the tdl that carries a request out may have another working folder).
    public static func read(_ name: String, _ value: String, into options: inout DownloadOptions,
                            absolute: (String) -> String) throws(Mistake) {
        guard let option = DownloadOption(rawValue: name) ?? aria2Names[name] else {
            throw Mistake(nil, "unknown option \"", "\"")
        }
        try option.read(value, into: &options, absolute: absolute)
    }

    /// `value` applied to `options`, or the mistake in it.
    public func read(_ value: String, into options: inout DownloadOptions, absolute: (String) -> String) throws(Mistake) {
        switch self {
        case .dir:
            options.directory = absolute(value)
        case .out:
            options.fileName = value
        case .checksum:
            guard let checksum = Checksum(value) else { throw Mistake(self, " must look like \(Checksum.expectedForm)") }
            options.checksum = checksum
        case .maxDownloadLimit:
            do { options.rateLimit = try RateText.parse(value) } catch { throw Mistake(self, ": \(error)") }
        case .split:
            guard let count = Int(value), (1...DownloadOptions.maxConnections).contains(count) else {
                throw Mistake(self, " must be a number of connections from 1 to \(DownloadOptions.maxConnections)")
            }
            options.connections = count
        case .header:
            if let problem = RequestHeader.problem(with: value) { throw Mistake(self, " \(RequestHeader.masked(value)): \(problem)") }
            options.headers = (options.headers ?? []) + [value]
        case .userAgent, .referer:
            if let problem = RequestText.problem(inValue: value) { throw Mistake(self, ": \(problem)") }
            if self == .referer { options.referer = value } else { options.userAgent = value }
        case .loadCookies:
            let path = absolute(value)
            // The file's own problem names the option and the path.
            if let problem = RequestText.problem(inCookieFile: path) { throw Mistake(self, problem, nil) }
            options.cookieFile = path
        case .queue:
            if let problem = QueueDefinition.problem(withName: value) { throw Mistake(self, ": \(problem)") }
            options.queue = value
        }
    }
}
