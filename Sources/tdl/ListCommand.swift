import ArgumentParser
import Foundation
import TDLCore
import TDLSession

struct ListCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "list",
        abstract: "Print the session's downloads, one line each, grouped in sections.",
        discussion: ExitStatus.readHelp
    )

    @OptionGroup var global: GlobalOptions

    @Flag(help: "Print the trash instead of the list.")
    var trash = false

    @Flag(help: "A JSON array, one object per task: url, name, path, section, state (waiting, downloading, paused, stopped, done, failed), size (bytes or null), received (bytes), speed (bytes/s, live when a tdl runs the session), error (text or null).")
    var json = false

    @Option(help: ArgumentHelp("Order for this listing only: manual, time, name, size or type (default: the session's).", valueName: "type"))
    var sort: ListSort?

    @Option(help: ArgumentHelp("asc or desc (default: the session's).", valueName: "order"))
    var order: ListOrder?

    enum ListSort: String, ExpressibleByArgument, CaseIterable {
        case manual, time, name, size, type
        /// Nil for manual order.
        var sortKey: SortKey? {
            switch self {
            case .manual: return nil
            case .time: return .addTime
            case .name: return .fileName
            case .size: return .fileSize
            case .type: return .fileType
            }
        }
    }

    enum ListOrder: String, ExpressibleByArgument, CaseIterable {
        case asc, desc
    }

    func run() throws {
        let session: Session
        do {
            session = try Session(options: global, downloading: false, restoring: false)
        } catch {
            fail(with: error)
        }
        let manager = session.manager
        // Sorted in memory only: listing never writes the session.
        if sort != nil || order != nil {
            // The option's key (nil: manual order), else the session's.
            let key: SortKey? = sort.map(\.sortKey) ?? manager.arrangement.sortKey
            let order = self.order.map { $0 == .asc ? SortOrder.ascending : .descending } ?? manager.arrangement.sortOrder ?? .ascending
            manager.arrange(key.map { .sorted($0, order) } ?? .manual)
        }
        // States, progress and speeds from the tdl that runs the session, when one does.
        var live: [String: TaskStatus] = [:]
        if case .answered(let reply) = ControlClient.send(ControlRequest(command: .status, items: []),
                                                          home: session.home, session: session.name) {
            for task in reply.tasks ?? [] { live[task.url] = task }
        }
        var rows: [(section: String, url: String)] = []
        if trash {
            rows = manager.toDeleteList.map { ("Trash", $0) }
        } else {
            for (s, section) in manager.downloadList.enumerated() {
                for url in section { rows.append((manager.titleForHeaderInSection(s) ?? "", url)) }
            }
        }
        if json {
            // One object at a time, not one array of them all: a million tasks need no
            // million dictionaries in memory before the first byte goes out.
            print("[")
            var first = true
            for row in rows {
                guard let task = manager.task(row.url) else { continue }
                let status = live[row.url] ?? ControlActions.status(of: row.url, in: manager)!
                let object: [String: Any] = [
                    "url": task.url, "name": manager.displayName(of: row.url) ?? task.fileName, "path": status.path,
                    "section": row.section, "state": status.state, "size": status.size.map { $0 as Any } ?? NSNull(),
                    "received": status.received, "speed": status.speed, "error": status.error.map { $0 as Any } ?? NSNull(),
                ]
                let data = try JSONSerialization.data(withJSONObject: object, options: [.sortedKeys, .withoutEscapingSlashes])
                print((first ? "  " : ", ") + String(decoding: data, as: UTF8.self))
                first = false
            }
            print("]")
            return
        }
        var lastSection: String?
        for row in rows {
            guard let task = manager.task(row.url) else { continue }
            if row.section != lastSection && !row.section.isEmpty { print("== \(ScreenSafe.clean(row.section))") }
            lastSection = row.section
            let name = ScreenSafe.clean(manager.displayName(of: row.url) ?? task.fileName)
            var state = ListStateWord.word(task.state)
            var detail = task.detailText
            if let status = live[row.url] {
                state = status.state
                if status.state == "downloading" {
                    detail = "\(ByteFormat.string(status.received))/\(status.size.map(ByteFormat.string) ?? "?") \(ByteFormat.rate(status.speed))"
                }
            }
            print("\(state)\t\(name)\t\(ScreenSafe.clean(detail))\t\(ScreenSafe.url(task.url))")
        }
    }
}
