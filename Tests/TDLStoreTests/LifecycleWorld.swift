import Foundation
import TDLCore
import TDLStore
import XCTest
#if canImport(Glibc)
import Glibc
#endif

// MARK: - The world: folder, session file, manager, and what the test did behind tdl's back

struct LifecycleFailure {
    let step: Int
    let rule: LifecycleRule
    let message: String
}

final class LifecycleWorld {
    let root: String
    let folder: String
    let dbPath: String
    var now = Date(timeIntervalSince1970: 1_750_000_000)
    var store: SQLiteSessionStore?
    var engine: FileWritingEngine!
    var manager: DownloadManager!
    var events: [ManagerEvent] = []
    /// Which URL created each part file (kept across relaunches: it is about the files).
    var partCreator: [String: String] = [:]
    /// Files the test deleted or changed, by the task that owned them; checks about them wait
    /// until the task has moved on.
    var tampered: [String: (path: String, isPart: Bool)] = [:]
    /// Files that are the user's now (a changed file its task no longer claims).
    var foreign: Set<String> = []
    var stateAtTrash: [String: TaskState] = [:]
    var found: [(LifecycleRule, String)] = []
    /// About the step just performed: what the engine was asked to start, the one URL the user
    /// resumed by hand (it may start ahead of the queue), the tasks before, the last load's result.
    var stepStarted: [String] = []
    var stepExplicitResume: String?
    /// On a relaunch: the tasks that were downloading before it, which go on first.
    var ranBeforeRelaunch: Set<String> = []
    /// Downloads that ran before the step and run after it (stopped to take new options).
    var stepContinued: Set<String> = []
    var stepBefore: [String: DownloadTask] = [:]
    var lastLaunchResult = 0

    init() {
        root = (NSTemporaryDirectory() as NSString).appendingPathComponent("tdl-lifecycle-\(UUID().uuidString)")
        folder = root + "/dl"
        dbPath = root + "/session.sqlite"
        try? FileManager.default.createDirectory(atPath: folder, withIntermediateDirectories: true)
    }

    deinit {
        engine?.crash()
        try? FileManager.default.removeItem(atPath: root)
    }

    static func size(of url: String) -> Int64 {
        let i = LifecycleAction.pool.firstIndex(of: url) ?? 0
        return Int64(2048 * (2 + (i * 7) % 9) + 37 * i)
    }

    func label(_ url: String) -> String {
        (LifecycleAction.pool.firstIndex(of: url).map { "#\($0) " } ?? "") + url.replacingOccurrences(of: "https://", with: "")
    }
    func rel(_ path: String) -> String { path.hasPrefix(folder + "/") ? String(path.dropFirst(folder.count + 1)) : path }

    func note(_ rule: LifecycleRule, _ message: String) { found.append((rule, message)) }

    /// A new part file: whatever the test deleted of the task before is behind it.
    func engineCreatedPart(_ url: String) {
        if tampered[url]?.isPart == true { tampered[url] = nil }
    }

    @discardableResult
    func launch() throws -> Int {
        let store = try SQLiteSessionStore(path: dbPath, session: "default", soleWriter: true)
        self.store = store
        engine = FileWritingEngine(world: self)
        manager = DownloadManager(identifier: "default", defaultDirectory: folder, engine: engine, store: store)
        manager.clock = { [unowned self] in self.now }
        events = []
        manager.observe { [unowned self] in self.events.append($0) }
        return try manager.load()
    }

    func crash() {
        engine.crash()
        manager = nil
        engine = nil
        store = nil
    }

    var tasks: [DownloadTask] { manager.allTasksSet.sorted().compactMap { manager.task($0) } }

    /// The tasks the session file says are downloading (read as stored, not as a launch restores them).
    func storedDownloading() -> [String] {
        guard let store = try? SQLiteSessionStore(path: dbPath, session: "default"),
              let snapshot = try? store.load() else { return [] }
        return snapshot.tasks.values.filter { $0.state == .downloading }.map(\.url)
    }

    func fileSize(_ path: String) -> Int64? {
        var info = stat()
        return stat(path, &info) == 0 ? Int64(info.st_size) : nil
    }

    var files: [String] {
        ((try? FileManager.default.contentsOfDirectory(atPath: folder)) ?? []).sorted().map { folder + "/" + $0 }
    }

    /// Reads the session back through a fresh store and manager; nil when it cannot be read.
    func readBack() -> DownloadManager? {
        guard let fresh = try? SQLiteSessionStore(path: dbPath, session: "default") else { return nil }
        let reader = DownloadManager(identifier: "default", defaultDirectory: folder, store: fresh)
        guard (try? reader.load(restoring: false)) != nil else { return nil }
        return reader
    }

    func compareWithStore() {
        manager.flush()
        guard let reader = readBack() else { return note(.storeMatchesMemory, "the session could not be read back") }
        let mine = manager.allTasksSet, theirs = reader.allTasksSet
        if mine != theirs {
            return note(.storeMatchesMemory, "tasks differ: only in memory \(mine.subtracting(theirs).map(label)), only in the store \(theirs.subtracting(mine).map(label))")
        }
        for url in mine.sorted() {
            let a = manager.task(url)!, b = reader.task(url)!
            var diffs: [String] = []
            func cmp<T: Equatable>(_ name: String, _ x: T, _ y: T) { if x != y { diffs.append("\(name) \(x) vs \(y)") } }
            // A reader that does not run the session sees nothing downloading: it waits.
            cmp("state", a.state == .downloading ? .waiting : a.state, b.state)
            if abs(a.addTime.timeIntervalSince(b.addTime)) > 1e-5 { diffs.append("addTime \(a.addTime.timeIntervalSince1970) vs \(b.addTime.timeIntervalSince1970)") }
            cmp("inTrash", a.deletedAt != nil, b.deletedAt != nil)
            cmp("fileName", a.fileName, b.fileName)
            cmp("directory", a.directory, b.directory)
            cmp("size", a.size, b.size)
            cmp("received", a.received, b.received)
            cmp("segments", a.segments, b.segments)
            cmp("finalURL", a.finalURL, b.finalURL)
            cmp("completedPath", a.completedPath, b.completedPath)
            cmp("options", a.options, b.options)
            if !diffs.isEmpty { note(.storeMatchesMemory, "\(label(url)): memory vs store: " + diffs.joined(separator: ", ")) }
        }
        if manager.toDeleteList != reader.toDeleteList {
            note(.storeMatchesMemory, "trash order \(manager.toDeleteList.map(label)) vs \(reader.toDeleteList.map(label))")
        }
        if manager.maxDownloadCount != reader.maxDownloadCount {
            note(.storeMatchesMemory, "limit \(manager.maxDownloadCount) vs \(reader.maxDownloadCount)")
        }
        if manager.downloadList != reader.downloadList {
            note(.storeMatchesMemory, "list order \(manager.downloadList.map { $0.map(label) }) vs \(reader.downloadList.map { $0.map(label) })")
        }
    }
}

extension LifecycleWorld {
    static func exists(_ path: String) -> Bool { access(path, F_OK) == 0 }
}
