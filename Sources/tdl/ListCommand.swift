import ArgumentParser
import Foundation
import TDLCore

struct ListCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "list",
        abstract: "Print the session's downloads, one line each, grouped in sections."
    )

    @OptionGroup var global: GlobalOptions

    @Flag(help: "Print the trash instead of the list.")
    var trash = false

    @Flag(help: "One JSON object per task (url, name, path, section, state, size, received, speed, error).")
    var json = false

    func run() throws {
        let session: Session
        do {
            session = try Session(options: global, downloading: false, restoring: false)
        } catch {
            exit(with: error)
        }
        let manager = session.manager
        var rows: [(section: String, url: String)] = []
        if trash {
            rows = manager.toDeleteList.map { ("Trash", $0) }
        } else {
            for (s, section) in manager.downloadList.enumerated() {
                for url in section { rows.append((manager.titleForHeaderInSection(s) ?? "", url)) }
            }
        }
        if json {
            var objects: [[String: Any]] = []
            for row in rows {
                guard let task = manager.task(row.url) else { continue }
                objects.append([
                    "url": task.url, "name": manager.displayName(of: row.url) ?? task.fileName, "path": task.filePath,
                    "section": row.section, "state": ListStateWord.word(task.state),
                    "size": task.size.map { $0 as Any } ?? NSNull(), "received": task.received, "speed": 0,
                    "error": task.failReason.map { $0.message as Any } ?? NSNull(),
                ])
            }
            let data = try JSONSerialization.data(withJSONObject: objects, options: [.prettyPrinted, .sortedKeys])
            print(String(decoding: data, as: UTF8.self))
            return
        }
        var lastSection: String?
        for row in rows {
            guard let task = manager.task(row.url) else { continue }
            if row.section != lastSection && !row.section.isEmpty { print("== \(ScreenSafe.clean(row.section))") }
            lastSection = row.section
            let name = ScreenSafe.clean(manager.displayName(of: row.url) ?? task.fileName)
            print("\(ListStateWord.word(task.state))\t\(name)\t\(ScreenSafe.clean(task.detailText))\t\(ScreenSafe.clean(task.url))")
        }
    }
}
