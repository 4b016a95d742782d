import ArgumentParser
import Foundation
import TDLCore

struct AddCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "add",
        abstract: "Add URLs to the session and return at once; the next tdl that runs downloads them."
    )

    @OptionGroup var global: GlobalOptions

    @Argument(help: "URLs to add.")
    var urls: [String] = []

    @Option(name: .customShort("i"), help: ArgumentHelp("Read URLs from a file (- for standard input).", valueName: "file"))
    var inputFile: String?

    func run() throws {
        var entries = urls.map { InputFile.Entry(url: $0) }
        do {
            if let inputFile {
                let input = try InputFile.read(inputFile)
                input.problems.forEach(warn)
                entries += input.entries
            }
            if entries.isEmpty { throw CLIError.badArgument("give at least one URL or -i FILE") }
            let session = try Session(options: global, downloading: false)
            if let notice = session.notice { warn(notice) }
            var rejected = 0
            for entry in entries {
                let result = session.manager.add([entry.url], directory: entry.dir.map(Paths.absolute),
                                                  fileName: entry.out.flatMap(FileNameSanitizer.sanitize),
                                                  checksum: entry.checksum.flatMap(Checksum.init))
                for r in result.rejected { warn("\(r.url): \(r.reason)"); rejected += 1 }
                if let limit = entry.maxDownloadLimit { session.manager.setRateLimit(limit, forTasks: result.added + result.existing) }
                for url in result.added { print("added \(ScreenSafe.clean(url))") }
                for url in result.existing { print("already in the list: \(ScreenSafe.clean(url))") }
            }
            session.manager.flush()
            if rejected > 0 { Foundation.exit(ExitStatus.badInput) }
        } catch {
            fail(with: error)
        }
    }
}
