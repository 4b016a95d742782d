import ArgumentParser
import Foundation
import TDLCore
import TDLSession
import TDLTransfer

struct GetCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "get",
        abstract: "Download URLs without the full-screen list, and wait until they are done.",
        discussion: """
            A URL already in the session continues where it stopped, so running the same \
            command again after a crash or kill -9 resumes. Only what it is given runs (and what \
            another tdl hands it): the session's other waiting downloads wait for the full-screen \
            list or --all. \(ExitStatus.help)
            """
    )

    @OptionGroup var global: GlobalOptions
    @OptionGroup var folder: FolderOption
    @OptionGroup var hookOptions: HookOptions
    @OptionGroup var schedule: ScheduleOptions
    @OptionGroup var launch: LaunchOptions
    @OptionGroup var transfer: TransferOptions
    @OptionGroup var request: RequestOptions

    @Argument(help: "URLs to download; a .metalink or .meta4 (a file or a URL) downloads the files it describes.")
    var urls: [String] = []

    @Option(name: .customShort("i"), help: ArgumentHelp("Read URLs from a file (- for standard input), aria2c style; lines of at most 64 KiB.", valueName: "file"))
    var inputFile: String?

    @Option(name: .customShort("o"), help: ArgumentHelp("Save the (single) URL under this file name (sub/name: in sub under the folder, made if missing; no ..); - writes its bytes to standard output.", valueName: "name"))
    var output: String?

    @Option(name: .customShort("j"), help: "Downloads at the same time, for this run (the session keeps its own).")
    var jobs: Int?

    @Option(name: .customShort("x"), help: "Connections per file (1-32), for this run.")
    var connections: Int = 8

    @Option(help: ArgumentHelp("Total download rate cap for this run, e.g. 500K or 2M.", valueName: "rate"))
    var limitRate: String?

    @Option(help: ArgumentHelp("Rate cap for each file of this command (0: none); -i files may set their own.", valueName: "rate"))
    var maxDownloadLimit: String?

    @Option(help: ArgumentHelp("Verify the file: md5|sha1|sha256|sha512=HEX.", valueName: "algo=hex"))
    var checksum: String?

    @Option(help: ArgumentHelp("Verify each file this sum file lists (sha256sum, sha512sum or md5sum output); a file it does not list is reported as not verified.", valueName: "file"))
    var checksumFile: String?

    @Option(name: .customLong("checksum-url"), help: ArgumentHelp("Fetch a sum file first, then use it as --checksum-file.", valueName: "url"))
    var checksumURL: String?

    @Flag(help: "Also run every unfinished download of the session.")
    var all = false

    @Flag(name: .customShort("q"), help: "No progress output.")
    var quiet = false

    func validate() throws {
        // Per-download options are read as an input file's are (`DownloadOption`).
        var checked = DownloadOptions()
        try RequestOptions.read(.split, String(connections), as: "-x", into: &checked)
        try RequestOptions.read(.checksum, checksum, as: "--checksum", into: &checked)
        try RequestOptions.read(.maxDownloadLimit, maxDownloadLimit, as: "--max-download-limit", into: &checked)
        if let jobs, !(1...SessionSettings.largestDownloadCount).contains(jobs) {
            throw ValidationError("-j must be between 1 and \(SessionSettings.largestDownloadCount)")
        }
        if output != nil && urls.count + (request.curl == nil ? 0 : 1) + (inputFile == nil ? 0 : 2) > 1 {
            throw ValidationError("-o names one file: give exactly one URL")
        }
        try RunRateLimit.validate(limitRate)
        if !request.mirror.isEmpty && urls.count + (request.curl == nil ? 0 : 1) + (inputFile == nil ? 0 : 2) != 1 {
            throw ValidationError("--mirror names other URLs of one file: give exactly one URL (or tab-separated URLs in -i)")
        }
        if let checksumFile, !FileManager.default.isReadableFile(atPath: checksumFile) {
            throw ValidationError("--checksum-file: cannot read \(checksumFile)")
        }
        if urls.isEmpty && inputFile == nil && !all && request.curl == nil {
            // A usage error (64, as the help says), not a bad value.
            throw ValidationError("Missing expected argument: give at least one URL, -i FILE, --curl or --all")
        }
    }

    /// Options given to this run that a running tdl, downloading for it, does not take.
    var optionsTheRunningTdlKeeps: [String] {
        var given: [String] = []
        if jobs != nil { given.append("-j") }
        if connections != 8 { given.append("-x") }
        if limitRate != nil { given.append("--limit-rate") }
        if transfer.insecure { given.append("--insecure") }
        if transfer.cacert != nil { given.append("--cacert") }
        if transfer.maxConnectionsPerHost != nil { given.append("--max-connections-per-host") }
        if hookOptions.onComplete != nil { given.append("--on-complete") }
        if hookOptions.onError != nil { given.append("--on-error") }
        if launch.interrupted != nil { given.append("--interrupted") }
        if !schedule.rateSchedule.isEmpty { given.append("--rate-schedule") }
        return given
    }

    mutating func run() throws {
        // The config file fills what the command line left unset; a running tdl's own
        // settings hold over those, so only the command line's are warned about.
        let givenHere = optionsTheRunningTdlKeeps
        let config = UserConfig.loadOrFail()
        transfer.fill(from: config)
        request.fill(from: config)
        if limitRate == nil { limitRate = config?.value("limit-rate")?.value }
        if maxDownloadLimit == nil { maxDownloadLimit = config?.value("max-download-limit")?.value }
        if output == "-" { streamToStandardOutput() }
        var entries = urls.map { DownloadRequest(url: $0, options: DownloadOptions(fileName: output)) }
        if var pasted = request.curlRequest(say: warn) {
            pasted.options.fileName = pasted.options.fileName ?? output
            entries.append(pasted)
        }
        var problems: [String] = []
        do {
            if let inputFile {
                let input = try InputFile.read(inputFile)
                entries += input.entries
                problems += input.problems
            }
        } catch {
            fail(with: error)
        }
        // The command's headers, Referer and cookie file go with each entry before a Metalink's
        // files are weighed (see `Metalink.keepingUserData`); the fill after that leaves them out.
        let userData = Self.userData(of: request.downloadOptions)
        for i in entries.indices { entries[i].options = entries[i].options.filling(from: userData) }
        // --checksum goes with a Metalink entry that has none of its own before its files are
        // made: it names one file, so a document of several is refused below.
        var checksummed = Set<String>()
        var typed = DownloadOptions()
        try? RequestOptions.read(.checksum, checksum, as: "--checksum", into: &typed)
        if let given = typed.checksum {
            for i in entries.indices where Metalink.isMetalinkName(entries[i].url) && entries[i].options.checksum == nil {
                entries[i].options.checksum = given
                checksummed.insert(entries[i].url)
            }
        }
        let metalinks = MetalinkInput(settings: transfer.engineSettings).expand(entries)
        if let refused = metalinks.checksumsUnused.first(where: { checksummed.contains($0.document) }) {
            fail(with: CLIError.badArgument("--checksum names one file, but \(ScreenSafe.url(refused.document)) lists \(refused.files) files: "
                + "leave --checksum out (the document's own hashes are checked)"))
        }
        entries = metalinks.entries
        problems += metalinks.problems
        for problem in problems { warn(problem) }
        metalinks.notes.forEach(warn)
        let sums = sumFiles()
        entries = sums.apply(to: entries)
        let session: Session
        do {
            // -d is the session's folder, the file's dir= this run's (never saved); a download
            // of no folder of its own goes by its category's, when it has one. Without --all
            // nothing starts until the run has committed its tasks (`GetRun.run`); --all
            // resumes the session's downloads at once.
            session = try Session(options: global, folder: folder.dir, config: config, downloading: true, transfer: transfer.engineSettings,
                                  resumeInterrupted: launch.resumeInterrupted, runOnly: all ? nil : [])
        } catch CLIError.sessionInUse {
            // Another tdl runs this session: it downloads for us, we wait and report.
            handOver(requests(entries, userData: false), notApplying: givenHere)
        } catch {
            fail(with: error)
        }
        let getRun = GetRun(session: session, sums: sums, all: all, problems: problems)
        do {
            try Paths.ensureWritableDirectory(session.downloadDirectory)
            for dir in Set(entries.compactMap(\.options.directory)) { try Paths.ensureWritableDirectory(dir) }
        } catch {
            getRun.shutDown()  // a clean end: nothing was cut off
            fail(with: error)
        }
        if let notice = session.notice { warn(notice) }
        let manager = session.manager
        hookOptions.save(into: session)
        schedule.save(into: session.manager, config: config)
        // -j, -x and --limit-rate are this run's, never saved: a run that is killed leaves the
        // session's own settings, and the next tdl is not capped by surprise.
        manager.useRunLimits(RunLimits(maxDownloadCount: jobs ?? max(manager.maxDownloadCount, 5), connectionsPerDownload: connections,
                                       globalRateLimit: limitRate.map { RunRateLimit.cap($0) ?? nil }))
        getRun.run(requests(entries, userData: false), quiet: quiet)
    }
}

extension GetCommand {
    /// `-o -`: the one URL's bytes in order to standard output, progress on stderr, nothing
    /// kept in the session (no file is made). Exits 1 when the stream could not be completed.
    func streamToStandardOutput() -> Never {
        var asked = urls.map { DownloadRequest(url: $0) }
        if let pasted = request.curlRequest(say: warn) { asked.append(pasted) }
        guard asked.count == 1, inputFile == nil, !all else {
            fail(with: CLIError.badArgument("-o - writes one URL to standard output: give exactly one URL"))
        }
        for (given, option) in [(jobs != nil, "-j"), (connections != 8, "-x"), (folder.dir != nil, "-d")] where given {
            warn("\(option) does not apply to -o -: one connection writes the bytes in order")
        }
        let sums = sumFiles()
        let entry = requests(sums.apply(to: asked))[0]
        let url = entry.url, options = entry.options
        if let problem = URLCheck.problem(with: url) { fail(with: CLIError.badArgument("\(ScreenSafe.url(url)): \(problem)")) }
        let stream = StreamDownload(url: url, options: options, settings: transfer.engineSettings)
        stream.checksum = options.checksum
        let name = ScreenSafe.clean(URLCheck.suggestedFileName(for: url))
        if !sums.lists.isEmpty && options.checksum == nil { warn("\(name): not verified (no sum file lists it)") }
        let terminal = isatty(2) == 1
        var lastLine = Date.distantPast
        if let limit = options.rateLimit, limit > 0 { warn("--max-download-limit does not apply to -o -") }
        if !quiet {
            stream.onProgress = { written, size in
                // A line a second on a terminal, one every 5 s in a log.
                guard Date().timeIntervalSince(lastLine) >= (terminal ? 0.5 : 5) else { return }
                lastLine = Date()
                let total = size.map { "/" + ByteFormat.string($0) } ?? ""
                StandardStreams.error((terminal ? "\r\u{1B}[2K" : "") + "tdl: \(name): \(ByteFormat.string(written))\(total)" + (terminal ? "" : "\n"))
            }
            stream.onRetry = { text in warn("\(ScreenSafe.url(url)): \(text)") }
        }
        let failure = stream.run()
        if terminal && !quiet { StandardStreams.error("\r\u{1B}[2K") }
        if let failure {
            warn("\(ScreenSafe.url(url)): \(failure.message) (\(stream.written) bytes written)")
            Foundation.exit(ExitStatus.downloadFailed)
        }
        if !quiet { warn("done: \(name) to standard output (\(ByteFormat.string(stream.written)))") }
        Foundation.exit(ExitStatus.ok)
    }

    /// The sum files of `--checksum-file` and `--checksum-url`, read before anything is added.
    func sumFiles() -> SumFiles {
        var sums = SumFiles()
        do {
            if let checksumFile {
                let list = ChecksumList(text: try String(contentsOfFile: checksumFile, encoding: .utf8))
                list.problems.forEach { warn("\(checksumFile): \($0)") }
                sums.lists.append(list)
            }
            if let checksumURL {
                let text = try TextFetch.text(checksumURL, settings: transfer.engineSettings, userAgent: request.userAgent,
                                              cookieFile: request.loadCookies.map(Paths.absolute))
                let list = ChecksumList(text: text)
                list.problems.forEach { warn("\(ScreenSafe.url(checksumURL)): \($0)") }
                sums.lists.append(list)
            }
        } catch {
            fail(with: CLIError.badArgument("cannot read the sum file: \(error)"))
        }
        if sums.lists.contains(where: \.isEmpty) { fail(with: CLIError.badArgument("the sum file lists no checksum")) }
        return sums
    }

    /// The downloads asked for: each entry's own options (from `-o` or its input-file lines),
    /// and this command's where it gives none. `-d` is also the session's folder from now on.
    /// `entries` with the command's options where theirs are unset; `userData: false` leaves
    /// out the headers, Referer and cookie file, already given (see `run`).
    func requests(_ entries: [DownloadRequest], userData: Bool = true) -> [DownloadRequest] {
        var given = request.downloadOptions
        if !userData {
            given.headers = nil
            given.referer = nil
            given.cookieFile = nil
        }
        given.directory = folder.dir.map(Paths.absolute)
        // Checked by `validate` with the same reading.
        try? RequestOptions.read(.checksum, checksum, as: "--checksum", into: &given)
        try? RequestOptions.read(.maxDownloadLimit, maxDownloadLimit, as: "--max-download-limit", into: &given)
        return entries.map { DownloadRequest(url: $0.url, options: $0.options.filling(from: given)) }
    }

    /// What of `options` goes only to the host it was given for.
    static func userData(of options: DownloadOptions) -> DownloadOptions {
        DownloadOptions(headers: options.headers, referer: options.referer, cookieFile: options.cookieFile)
    }

    /// Another tdl runs the session: it downloads, this one waits and exits as if it had.
    func handOver(_ items: [DownloadRequest], notApplying given: [String]) -> Never {
        for option in given {
            warn("\(option) does not apply: the tdl running the session downloads with its own settings")
        }
        let handOver = HandOver(home: Paths.home(global.home), session: global.session, items: items, all: all, quiet: quiet)
        do {
            Foundation.exit(try handOver.run(say: warn))
        } catch HandOver.Stop.runningTdlQuit {
            // What arrived so far is kept; this run now downloads the rest itself.
            execv(CommandLine.arguments[0], CommandLine.unsafeArgv)
            fail(with: CLIError.store("cannot run tdl again: \(String(cString: strerror(errno)))"))
        } catch HandOver.Stop.interrupted {
            warn("interrupted: the tdl running the session goes on downloading")
            Foundation.exit(ExitStatus.interrupted)
        } catch HandOver.Stop.failed(let why) {
            fail(with: CLIError.store(why))
        } catch {
            fail(with: CLIError.sessionInUse(global.session))
        }
    }
}

/// The sum files given to a `tdl get`: a file they list gets the checksum as if `--checksum`
/// named it for that file.
struct SumFiles {
    var lists: [ChecksumList] = []

    func checksum(forFileName name: String) -> Checksum? {
        lists.lazy.compactMap { $0.checksum(forFileName: name) }.first
    }

    /// Each entry without a checksum of its own gets the one listed for its file name (the
    /// one chosen with -o or out=, else the URL's); a digest without a name is for a single URL.
    func apply(to entries: [DownloadRequest]) -> [DownloadRequest] {
        guard !lists.isEmpty else { return entries }
        let unnamed = entries.count == 1 ? lists.lazy.compactMap(\.unnamed).first : nil
        return entries.map { entry in
            var entry = entry
            if entry.options.checksum == nil {
                let name = entry.options.fileName ?? URLCheck.suggestedFileName(for: entry.url)
                entry.options.checksum = checksum(forFileName: name) ?? unnamed
            }
            return entry
        }
    }
}

func warn(_ text: String) {
    StandardStreams.error("tdl: " + ScreenSafe.clean(text) + "\n")
}
