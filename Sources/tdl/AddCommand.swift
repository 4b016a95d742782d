import ArgumentParser
import Foundation
import TDLCore
import TDLSession
import TDLTransfer

struct AddCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "add",
        abstract: "Add URLs to the session and return at once.",
        discussion: """
            When a tdl runs the session (the full-screen list or tdl get), the URLs go to it and \
            start there; otherwise they are saved and the next tdl that runs downloads them. \
            \(ExitStatus.addHelp)
            """
    )

    @OptionGroup var global: GlobalOptions
    @OptionGroup var folder: FolderOption
    @OptionGroup var request: RequestOptions

    @Argument(help: "URLs to add; a .metalink or .meta4 (a file or a URL) adds the files it describes.")
    var urls: [String] = []

    @Option(name: .customShort("i"), help: ArgumentHelp("Read URLs from a file (- for standard input); lines of at most 64 KiB.", valueName: "file"))
    var inputFile: String?

    @Option(help: ArgumentHelp("Rate cap for each file of this command (0: none); -i files may set their own.", valueName: "rate"))
    var maxDownloadLimit: String?

    func validate() throws {
        // Per-download options are read as an input file's are (`DownloadOption`).
        var checked = DownloadOptions()
        try RequestOptions.read(.maxDownloadLimit, maxDownloadLimit, as: "--max-download-limit", into: &checked)
        // A usage error (64, as the help says); an input file that names nothing is bad input (2).
        if urls.isEmpty && inputFile == nil && request.curl == nil {
            throw ValidationError("Missing expected argument: give at least one URL, -i FILE or --curl")
        }
    }

    mutating func run() throws {
        // The config file fills what the command line left unset.
        let config = UserConfig.loadOrFail()
        request.fill(from: config)
        if maxDownloadLimit == nil { maxDownloadLimit = config?.value("max-download-limit")?.value }
        var entries = urls.map { DownloadRequest(url: $0) }
        var sawProblems = false
        if let pasted = request.curlRequest(say: warn) { entries.append(pasted) }
        do {
            /// Takes a part of the input file, telling the problems of its lines.
            func take(_ part: (entries: [DownloadRequest], problems: [String]), into entries: inout [DownloadRequest]) {
                part.problems.forEach(warn)
                sawProblems = sawProblems || !part.problems.isEmpty
                if entries.isEmpty { entries = part.entries } else { entries += part.entries }
            }
            var input: InputFileParts?
            if let inputFile {
                let parts = try InputFileParts(path: inputFile)
                take(try parts.next() ?? ([], []), into: &entries)
                // --mirror counts every URL of the file: it is read whole.
                if !request.mirror.isEmpty { take(try parts.rest(), into: &entries) }
                input = parts.finished ? nil : parts
            }
            if entries.isEmpty { throw CLIError.badArgument("the input file names no URL") }
            if !request.mirror.isEmpty && entries.count != 1 {
                throw CLIError.badArgument("--mirror names other URLs of one file: give exactly one URL")
            }
            var given = request.downloadOptions
            given.directory = folder.dir.map(Paths.absolute)
            // Checked by `validate` with the same reading (a config file's value: by the file's own check).
            try RequestOptions.read(.maxDownloadLimit, maxDownloadLimit, as: "--max-download-limit", into: &given)
            // A .metalink or .meta4 stands for its files (read or fetched here, before they go
            // to the session); its problems are said as a line's are.
            let metalinks = MetalinkInput(settings: EngineSettings())
            // In place: a second array of a million requests would cost as much as the first.
            // Filled first: a Metalink's files are weighed with the command's headers and
            // checksum as with an entry's own (see `Metalink.keepingUserData`).
            func fill(_ part: inout [DownloadRequest]) {
                for i in part.indices { part[i].options = part[i].options.filling(from: given) }
                if part.contains(where: { Metalink.isMetalinkName($0.url) }) {
                    let expanded = metalinks.expand(part)
                    expanded.problems.forEach(warn)
                    expanded.notes.forEach(warn)
                    sawProblems = sawProblems || !expanded.problems.isEmpty
                    part = expanded.entries
                }
            }
            // A file longer than a part goes in parts, but where the whole session is loaded
            // (`TDL_WHOLE_SESSION=1`, see `SessionRoute.tasksAlone`): once, not once a part.
            if let input, !SessionRoute.loadsWholeSession {
                try AddInParts.run(entries, then: input, sawProblems: sawProblems, fill: fill, options: global)
            }
            if let input { take(try input.rest(), into: &entries) }
            fill(&entries)
            var reply = try SessionRoute.run(ControlRequest(command: .add, items: consume entries), options: global)
            // The rest is added; a line that could not be used still fails the command.
            if sawProblems && reply.status == ExitStatus.ok { reply.status = ExitStatus.badInput }
            SessionRoute.finish(reply)
        } catch {
            fail(with: error)
        }
    }
}
