import ArgumentParser
import Foundation
import TDLCore
import TDLSession

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

    @Argument(help: "URLs to add.")
    var urls: [String] = []

    @Option(name: .customShort("i"), help: ArgumentHelp("Read URLs from a file (- for standard input).", valueName: "file"))
    var inputFile: String?

    func run() throws {
        var entries = urls.map { DownloadRequest(url: $0) }
        var problems: [String] = []
        if let pasted = request.curlRequest(say: warn) { entries.append(pasted) }
        do {
            if let inputFile {
                let input = try InputFile.read(inputFile)
                problems = input.problems
                problems.forEach(warn)
                if entries.isEmpty { entries = input.entries } else { entries += input.entries }
            }
            if entries.isEmpty { throw CLIError.badArgument("give at least one URL, -i FILE or --curl") }
            if !request.mirror.isEmpty && entries.count != 1 {
                throw CLIError.badArgument("--mirror names other URLs of one file: give exactly one URL")
            }
            var given = request.downloadOptions
            given.directory = folder.dir.map(Paths.absolute)
            // In place: a second array of a million requests would cost as much as the first.
            for i in entries.indices { entries[i].options = entries[i].options.filling(from: given) }
            var reply = try SessionRoute.run(ControlRequest(command: .add, items: consume entries), options: global)
            // The rest is added; a line that could not be used still fails the command.
            if !problems.isEmpty && reply.status == ExitStatus.ok { reply.status = ExitStatus.badInput }
            SessionRoute.finish(reply)
        } catch {
            fail(with: error)
        }
    }
}
