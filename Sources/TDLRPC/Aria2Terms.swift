import Foundation
import TDLCore

/// aria2's words for tdl's facts: GIDs, states, error codes.
public enum Aria2Terms {
    /// A URL's first GID: 16 hex digits derived from it (64-bit FNV-1a), so a download never
    /// asked for again has the same GID in every run, in `tdl serve` and in `tdl --rpc`, with
    /// nothing stored. Two URLs of one session sharing a GID (about 1 in 3·10¹¹ for 10,000
    /// tasks) answer for the one added first.
    public static func gid(of url: String) -> String { gidText(gidNumber(of: url)) }

    /// Where a task keeps the GID of its current attempt once an `addUri` of its URL made a
    /// new one (in its `metaInfo`, saved with it); without it, the URL's first GID.
    static let gidKey = "aria2.gid"

    /// Marks a task in tdl's trash that aria2 has no trace of: a waiting or paused download
    /// removed, which aria2 drops with no result. Saved with the task; tdl's trash keeps it
    /// (and its part file, so adding the URL again resumes), and the mark goes when it leaves.
    static let droppedKey = "aria2.dropped" + DownloadManager.trashNoteSuffix

    /// In tdl's trash but not in aria2's answers: no GID, no result, no notification.
    public static func isDropped(_ task: DownloadTask) -> Bool {
        task.deletedAt != nil && task.metaInfo[droppedKey] != nil
    }

    /// A task's GID now.
    public static func gid(of task: DownloadTask) -> String { gidText(gidNumber(of: task)) }

    static func gidNumber(of task: DownloadTask) -> UInt64 {
        task.metaInfo[gidKey].flatMap(gidNumber) ?? gidNumber(of: task.url)
    }

    /// The GID as the number its 16 hex digits write.
    public static func gidNumber(of url: String) -> UInt64 {
        var hash: UInt64 = 0xcbf2_9ce4_8422_2325
        for byte in url.utf8 {
            hash ^= UInt64(byte)
            hash = hash &* 0x0000_0100_0000_01b3
        }
        return hash
    }

    static func gidText(_ number: UInt64) -> String {
        let hex = String(number, radix: 16)
        return String(repeating: "0", count: 16 - hex.count) + hex
    }

    public static func isGID(_ text: String) -> Bool { gidNumber(text) != nil }

    /// The number a GID parameter writes; nil when it is not 16 hex digits.
    static func gidNumber(_ text: String) -> UInt64? {
        text.utf8.count == 16 ? UInt64(text, radix: 16) : nil
    }

    /// aria2's status of a task. Both ways, as the README's table says:
    /// waiting→waiting, downloading→active, paused and stopped→paused, finished→complete,
    /// failed→error, anything in the trash→removed.
    public enum Status: String, Sendable {
        case active, waiting, paused, error, complete, removed

        /// Out of the queues: aria2 keeps only such a download's result.
        public var isStopped: Bool { [.error, .complete, .removed].contains(self) }
    }

    public static func status(of task: DownloadTask) -> Status {
        if task.deletedAt != nil { return .removed }
        switch task.state {
        case .waiting: return .waiting
        case .downloading: return .active
        case .paused, .stopped: return .paused
        case .finished: return .complete
        case .failed: return .error
        }
    }

    /// aria2's exit status for a failure (its "errorCode"), the closest of its list.
    public static func errorCode(of reason: FailReason) -> Int {
        switch reason {
        case .timeout: return 2
        case .noNetwork(let detail): return detail.lowercased().contains("resolve") ? 19 : 6
        case .diskFull: return 9
        case .checksumMismatch: return 32
        case .httpStatus(let code):
            switch code {
            case 404, 410: return 3
            case 401, 407: return 24
            case 503: return 29
            default: return 22
            }
        case .serverChangedFile: return 8
        case .badURL: return 28
        case .fileSystem: return 17
        case .tooManyRedirects: return 23
        case .tls, .unknown: return 1
        }
    }
}
