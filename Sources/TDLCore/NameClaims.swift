import Foundation

/// Which task owns which file path: a finished task its file, a task that recorded its name
/// (it has a final URL) the file its part file becomes. A path another task owns is not free
/// even when nothing is on disk under it: the user deleted the file, or a trashed task's part
/// was removed. Without this two tasks could download into one name.
struct NameClaims {
    private var owner: [String: String] = [:]
    private var pathOf: [String: String] = [:]

    init(_ tasks: some Sequence<DownloadTask>) {
        for task in tasks { update(task) }
    }

    /// The path a task owns, if any.
    static func path(of task: DownloadTask) -> String? {
        task.state == .finished || task.finalURL != nil ? task.filePath : nil
    }

    mutating func update(_ task: DownloadTask) {
        set(task.url, Self.path(of: task))
    }

    mutating func set(_ url: String, _ path: String?) {
        if let old = pathOf[url], old != path, owner[old] == url { owner[old] = nil }
        pathOf[url] = path
        if let path { owner[path] = url }
    }

    /// Owned by a task other than `url`.
    func isTaken(_ path: String, except url: String) -> Bool {
        owner[path].map { $0 != url } ?? false
    }
}
