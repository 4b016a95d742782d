import Foundation
import TDLCore

/// Turns the manager's events into aria2's notifications: a task whose aria2 status changed
/// to active, paused, complete, error or removed is told once (onDownloadStart, onDownloadPause,
/// onDownloadComplete, onDownloadError, onDownloadStop). Runs on the loop, as an observer.
public final class Aria2Notifier {
    public struct Notification: Equatable, Sendable {
        /// aria2's name, "aria2.onDownloadStart".
        public let method: String
        public let gid: String
        public let url: String
        public let status: Aria2Terms.Status

        /// The JSON-RPC notification a WebSocket client receives.
        public var message: JSON {
            ["jsonrpc": "2.0", "method": .string(method), "params": [["gid": .string(gid)]]]
        }
    }

    let manager: DownloadManager
    private var observer: Int?
    /// The last status told (or seen) per task; a task never seen counts as changed.
    private var last: [String: Aria2Terms.Status] = [:]
    private let deliver: (Notification) -> Void

    public init(manager: DownloadManager, deliver: @escaping (Notification) -> Void) {
        self.manager = manager
        self.deliver = deliver
        observer = manager.observe { [weak self] event in self?.hear(event) }
    }

    deinit {
        if let observer { manager.stopObserving(observer) }
    }

    static func method(for status: Aria2Terms.Status) -> String? {
        switch status {
        case .active: return "aria2.onDownloadStart"
        case .paused: return "aria2.onDownloadPause"
        case .complete: return "aria2.onDownloadComplete"
        case .error: return "aria2.onDownloadError"
        case .removed: return "aria2.onDownloadStop"
        case .waiting: return nil
        }
    }

    private func hear(_ event: ManagerEvent) {
        switch event {
        case .taskChanged(let url):
            check(url, definite: false)
        case .taskSucceeded(let url, _), .taskFailed(let url, _), .deleted(let url, _, _, _):
            check(url, definite: true)
        case .listChanged, .saveFailed, .deleteFailed, .allDownloadsOver:
            break
        }
    }

    /// `definite`: the event itself is the change (a finish, a failure, the trash). Any other
    /// change of a task not seen before that finds it stopped (a note added to a finished
    /// download) tells nothing.
    private func check(_ url: String, definite: Bool) {
        guard let task = manager.task(url) else {
            last[url] = nil  // forgotten for good
            return
        }
        let status = Aria2Terms.status(of: task)
        guard last[url] != status else { return }
        if Aria2Terms.isDropped(task) {
            // Gone from aria2's queues with no result: nothing to tell.
            last[url] = status
            return
        }
        if !definite && last[url] == nil && [.complete, .error, .removed].contains(status) { return }
        last[url] = status
        if let method = Self.method(for: status) {
            deliver(Notification(method: method, gid: Aria2Terms.gid(of: task), url: url, status: status))
        }
    }
}
