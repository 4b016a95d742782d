import Foundation
import TDLCore
@testable import TDLTerminal

/// A session store that starts from prepared tasks and counts what it is given to save.
final class CountingStore: SessionStore {
    let snapshot: SessionSnapshot
    private(set) var commits = 0
    init(_ snapshot: SessionSnapshot) { self.snapshot = snapshot }
    func load() throws -> SessionSnapshot { snapshot }
    func commit(_ changes: SessionChanges) throws { commits += 1 }
}

/// The list screen over a real manager without an engine: keys go in as the loop hands them
/// over, and the reactions come out for the test to check. Rows are read again when a
/// reaction asks, as the loop does before the next key.
final class ScreenFixture {
    let folder: String
    let store: CountingStore
    let manager: DownloadManager
    let state = ScreenState()

    /// One task per name, in the given state, added a second apart; finished ones have their file.
    /// `partial` names tasks that have 4,000 of 10,000 bytes.
    init(_ tasks: [(name: String, state: TaskState)], partial: Set<String> = []) throws {
        let folder = (NSTemporaryDirectory() as NSString).appendingPathComponent("tdl-terminal-\(UUID().uuidString)")
        try FileManager.default.createDirectory(atPath: folder, withIntermediateDirectories: true)
        self.folder = folder
        let settings = SessionSettings()
        let start = Date(timeIntervalSinceReferenceDate: 700_000_000)
        let records = tasks.enumerated().map { n, task -> DownloadTask in
            var record = DownloadTask(url: Self.url(task.name), fileName: task.name, directory: folder,
                                      addTime: start.addingTimeInterval(Double(n)), state: task.state)
            if partial.contains(task.name) {
                record.size = 10_000
                record.received = 4_000
            }
            if task.state == .finished {
                let path = (folder as NSString).appendingPathComponent(task.name)
                _ = FileManager.default.createFile(atPath: path, contents: Data(repeating: 7, count: 10))
                record.size = 10
                record.received = 10
                record.completedPath = path
            }
            return record
        }
        store = CountingStore(SessionSnapshot(tasks: records, settings: settings))
        manager = DownloadManager(identifier: "test", defaultDirectory: folder, store: store)
        try manager.load()
        state.pageHeight = 5
        state.readRows(from: manager)
    }

    deinit { try? FileManager.default.removeItem(atPath: folder) }

    static func url(_ name: String) -> String { "https://example.com/files/\(name)" }

    func path(_ name: String) -> String { (folder as NSString).appendingPathComponent(name) }

    /// A key by the name scripts use ("j", "Enter", "^L"), or a key as curses gives it.
    @discardableResult
    func press(_ name: String) -> Reaction { press(KeyName.key(named: name)!) }

    @discardableResult
    func press(_ key: Key) -> Reaction {
        let reaction = KeyHandler(manager: manager, state: state).handle(key)
        if reaction.contains(.rebuildRows) { state.readRows(from: manager) }
        return reaction
    }

    /// Types text into the open prompt, a key per character; the reaction of the last one.
    @discardableResult
    func type(_ text: String) -> Reaction {
        var last: Reaction = []
        for c in text { last = press(.character(c)) }
        return last
    }

    var rowNames: [String] { state.rows.entries.compactMap(\.url).map { manager.displayName(of: $0) ?? $0 } }
}
