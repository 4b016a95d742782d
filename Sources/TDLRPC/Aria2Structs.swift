import Foundation
import TDLCore

/// aria2's structs of a task, made from values alone: the loop makes them from the manager,
/// the server's threads from the published `StatusBoard`, and both answer the same.
enum Aria2Structs {
    static let pieceLength: Int64 = 1 << 20

    /// aria2's status struct, with only `keys` when given. `activity` counts while the task
    /// is active; `defaultConnections` is the session's, for a task that names none.
    static func status(of task: DownloadTask, activity: TaskActivity?, defaultConnections: Int, keys: Set<String>? = nil) -> JSON {
        let status = Aria2Terms.status(of: task)
        let activity = status == .active ? activity : nil
        let completed = activity?.received ?? task.received
        let total = task.size ?? activity?.expected ?? 0
        var fields: [(String, JSON)] = []
        func add(_ key: String, _ value: @autoclosure () -> JSON) {
            if keys == nil || keys!.contains(key) { fields.append((key, value())) }
        }
        func string(_ n: Int64) -> JSON { .string(String(n)) }
        add("gid", .string(Aria2Terms.gid(of: task)))
        add("status", .string(status.rawValue))
        add("totalLength", string(total))
        add("completedLength", string(completed))
        add("uploadLength", "0")
        add("downloadSpeed", string(activity?.speed ?? 0))
        add("uploadSpeed", "0")
        add("pieceLength", string(pieceLength))
        add("numPieces", string(total == 0 ? 0 : (total + pieceLength - 1) / pieceLength))
        add("connections", string(status == .active ? Int64(task.options.connections ?? defaultConnections) : 0))
        if let reason = task.failReason, task.state == .failed {
            add("errorCode", .string(String(Aria2Terms.errorCode(of: reason))))
            add("errorMessage", .string(errorMessage(reason, path: task.filePath)))
        } else if status == .complete || status == .removed {
            // aria2's result codes: 0 finished, 31 removed by the user.
            add("errorCode", status == .removed ? "31" : "0")
            add("errorMessage", "")
        }
        add("dir", .string(task.directory))
        add("files", [["index": "1", "path": .string(path(of: task)), "length": string(total),
                       "completedLength": string(completed), "selected": "true", "uris": uris(of: task)]])
        return .object(fields)
    }

    /// aria2's words where it has some (its "Checksum error detected." for error 32), else tdl's.
    static func errorMessage(_ reason: FailReason, path: String) -> String {
        if case .checksumMismatch = reason { return "Checksum error detected. file=\(path) (\(reason.message))" }
        return reason.message
    }

    /// `getFiles`: the one file of a download.
    static func files(of task: DownloadTask, activity: TaskActivity?, defaultConnections: Int) -> JSON {
        status(of: task, activity: activity, defaultConnections: defaultConnections, keys: ["files"])["files"] ?? .array([])
    }

    /// A URL as answers show it: a password in it is "***", as on the screen. A page that
    /// learnt the secret still does not learn the passwords; the GID names the download.
    static func uri(_ url: String, used: Bool = true) -> JSON {
        ["uri": .string(URLCheck.withoutPassword(url)), "status": used ? "used" : "waiting"]
    }

    /// `getUris`: the download's URL, then its mirrors (any connection may use each); all
    /// `waiting`, as aria2's, until the download first starts.
    static func uris(of task: DownloadTask) -> JSON {
        let used = hasStarted(task)
        return .array(([task.url] + (task.options.mirrors ?? [])).map { uri($0, used: used) })
    }

    /// A download that never started and has no name given has no path yet: aria2's is "",
    /// until a server's answer names the file.
    static func path(of task: DownloadTask) -> String {
        task.userChoseName || task.finalURL != nil || task.completedPath != nil ? task.filePath : ""
    }

    /// Started once: running, ended, or with something a server answered.
    private static func hasStarted(_ task: DownloadTask) -> Bool {
        let status = Aria2Terms.status(of: task)
        return !(status == .waiting || status == .paused) || task.finalURL != nil || task.received > 0
    }

    /// `getServers` of an active download.
    static func servers(of task: DownloadTask, speed: Int64) -> JSON {
        [["index": "1", "servers": [["uri": .string(URLCheck.withoutPassword(task.url)),
                                     "currentUri": .string(URLCheck.withoutPassword(task.finalURL ?? task.url)),
                                     "downloadSpeed": .string(String(speed))]]]]
    }

    /// `getGlobalStat`.
    static func globalStat(_ totals: StatusBoard.Totals) -> JSON {
        ["downloadSpeed": .string(String(totals.downloadSpeed)), "uploadSpeed": "0",
         "numActive": .string(String(totals.active)), "numWaiting": .string(String(totals.waiting)),
         "numStopped": .string(String(totals.stopped)), "numStoppedTotal": .string(String(totals.stoppedTotal))]
    }
}
