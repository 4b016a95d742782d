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
        case manual, time, name, size, type, queue
        /// Nil for manual order.
        var sortKey: SortKey? {
            switch self {
            case .manual: return nil
            case .time: return .addTime
            case .name: return .fileName
            case .size: return .fileSize
            case .type: return .fileType
            case .queue: return .queue
            }
        }
    }

    enum ListOrder: String, ExpressibleByArgument, CaseIterable {
        case asc, desc
    }

    /// The order this listing shows, given the session's: the option's key (none: manual
    /// order), else the session's; nil without options.
    func requested(_ saved: Arrangement) -> Arrangement? {
        guard sort != nil || order != nil else { return nil }
        let key: SortKey? = sort.map(\.sortKey) ?? saved.sortKey
        let order = self.order.map { $0 == .asc ? SortOrder.ascending : .descending } ?? saved.sortOrder ?? .ascending
        return key.map { .sorted($0, order) } ?? .manual
    }

    func run() throws {
        let session: Session
        var wanted: Arrangement?
        do {
            // Sorted in memory only: listing never writes the session. A sort asked for is the
            // one the load makes; manual order is made from the session's own afterwards, as
            // the screen's switch to it does.
            session = try Session(options: global, downloading: false, restoring: false, keepingSortNames: false) { saved in
                wanted = requested(saved)
                return wanted.flatMap { $0.isManual ? nil : $0 } ?? saved
            }
        } catch {
            fail(with: error)
        }
        let manager = session.manager
        if wanted?.isManual == true { manager.arrange(.manual) }
        // States, progress and speeds from the tdl that runs the session, when one does.
        var running: [String: TaskStatus] = [:]
        if case .answered(let reply) = ControlClient.send(ControlRequest(command: .status, items: []),
                                                          home: session.home, session: session.name) {
            for task in reply.tasks ?? [] { running[task.url] = task }
        }
        let live = running
        // Each section's title once, then its rows; the trash is one section.
        let sections: [(title: String, urls: [String])] = trash ? [("Trash", manager.toDeleteList)]
            : manager.downloadList.enumerated().map { (manager.titleForHeaderInSection($0.offset) ?? "", $0.element) }
        // What the lines' two threads read: an immutable copy of the tasks, never the manager.
        let list = manager.listSnapshot
        var out = OutputBuffer()
        if json {
            // One object at a time, not one array of them all: a million tasks need no
            // million dictionaries in memory before the first byte goes out. Every object
            // starts with ", "; the first one's is made "  " before it is written.
            out.append("[\n")
            var first = true
            let lines = ParallelLines(sectionStart: { _, _, bytes in
                if first { bytes.replaceSubrange(0 ..< 2, with: "  ".utf8) }
                first = false
            }) { section, url, bytes in
                guard let task = list.task(url) else { return false }
                let status = live[url] ?? ControlActions.status(of: task, activity: list.activity[url])
                bytes.append(contentsOf: ", ".utf8)
                JSONText.appendObject([
                    ("error", .string(status.error)), ("name", .string(task.displayName)),
                    ("path", .string(status.path)), ("received", .number(status.received)),
                    ("section", .string(sections[section].title)), ("size", .number(status.size)),
                    ("speed", .number(status.speed)), ("state", .string(status.state)), ("url", .string(task.url)),
                ], to: &bytes)
                bytes.append(UInt8(ascii: "\n"))
                return true
            }
            lines.write(sections.map(\.urls), to: &out)
            out.append("]\n")
        } else {
            // A section's title before its first line, unless the section before had the same.
            var lastTitle: String?
            let lines = ParallelLines(sectionStart: { section, out, _ in
                let title = sections[section].title
                if title != lastTitle && !title.isEmpty { out.append("== \(ScreenSafe.clean(title))\n") }
                lastTitle = title
            }) { _, url, bytes in
                guard let task = list.task(url) else { return false }
                // Each field's bytes go straight into the output: building a line's text
                // first cost a second over a million lines.
                let status = live[url]
                bytes.append(contentsOf: (status?.state ?? ListStateWord.word(task.state)).utf8)
                bytes.append(UInt8(ascii: "\t"))
                ScreenSafe.append(task.displayName, to: &bytes)
                bytes.append(UInt8(ascii: "\t"))
                if let status, status.state == "downloading" {
                    bytes.append(contentsOf: "\(ByteFormat.string(status.received))/\(status.size.map(ByteFormat.string) ?? "?") \(ByteFormat.rate(status.speed))".utf8)
                } else if task.state == .failed {
                    ScreenSafe.append(task.detailText, to: &bytes)
                } else {
                    task.appendDetailText(to: &bytes)  // sizes only: nothing to clean
                }
                bytes.append(UInt8(ascii: "\t"))
                ScreenSafe.append(URLCheck.withoutPassword(task.url), to: &bytes)
                bytes.append(UInt8(ascii: "\n"))
                return true
            }
            lines.write(sections.map(\.urls), to: &out)
        }
        out.flush()
        StandardStreams.flushOutput()
        // The process ends next: freeing a million tasks one by one took most of a second.
        _ = Unmanaged.passRetained(session)
    }
}
