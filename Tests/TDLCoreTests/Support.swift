import Foundation
import XCTest
@testable import TDLCore

extension DownloadManager {
    /// Every section's title ("" for an untitled one), for comparing the whole list at once.
    var sectionTitles: [String] { (0 ..< sectionCount).map { titleForHeaderInSection($0) ?? "" } }
}

/// A transfer engine that downloads nothing: it records what the manager asks and lets a test
/// play the server's answers.
final class FakeEngine: TransferEngine {
    var isNameTaken: ((_ url: String, _ path: String) -> Bool)?
    var isRecorded: ((_ url: String) -> Bool)?
    var onEvent: ((TransferEvent) -> Void)?
    private(set) var started: [String] = []
    /// What each start was given, in order.
    private(set) var jobs: [TransferJob] = []
    private(set) var stopped: [String] = []
    var live: [String: Int64] = [:]

    /// URLs whose bytes are all there already: the engine says so from inside `start`.
    var completeOnStart: Set<String> = []

    func start(_ job: TransferJob) {
        started.append(job.url)
        jobs.append(job)
        if completeOnStart.contains(job.url) { onEvent?(.finishing(url: job.url, started: true)) }
    }
    func stop(url: String) { stopped.append(url) }
    func liveProgress() -> [String: Int64] { live }
    /// The caps given, the last first in line: the total one, and each download's.
    private(set) var globalRateLimits: [Int64?] = []
    private(set) var rateLimits: [String: Int64?] = [:]
    func setGlobalRateLimit(_ bytesPerSecond: Int64?) { globalRateLimits.append(bytesPerSecond) }
    func setRateLimit(url: String, _ bytesPerSecond: Int64?) { rateLimits[url] = bytesPerSecond }
    func wait(timeoutMs: Int, watching fds: [WatchedFD]) -> Set<Int32> { [] }
    let waker: @Sendable () -> Void = {}
    func shutdown() {}

    func resolve(_ url: String, name: String, size: Int64?, mime: String? = nil) {
        onEvent?(.resolved(url: url, fileName: name, size: size, mimeType: mime, etag: nil, lastModified: nil, finalURL: nil))
    }
    func finish(_ url: String, path: String, size: Int64) { onEvent?(.finished(url: url, path: path, size: size)) }
    func fail(_ url: String, _ reason: FailReason) { onEvent?(.failed(url: url, reason: reason, segments: [])) }
}

/// A session store that hands out a prepared snapshot and keeps what it is given.
final class FakeStore: SessionStore {
    var snapshot: SessionSnapshot
    var commits: [SessionChanges] = []
    /// While set, every commit throws (a full disk) and is not kept.
    var refusing = false
    init(_ snapshot: SessionSnapshot) { self.snapshot = snapshot }
    func load() throws -> SessionSnapshot { snapshot }
    func commit(_ changes: SessionChanges) throws {
        if refusing { throw CocoaError(.fileWriteOutOfSpace) }
        commits.append(changes)
    }
}

/// A settable clock: noon today, so add-time sections are predictable.
final class TestClock {
    var now: Date = Calendar.current.startOfDay(for: Date()).addingTimeInterval(12 * 3600)
    func advance(_ seconds: TimeInterval) { now = now.addingTimeInterval(seconds) }
}

/// A manager with a fake engine, a test clock and a fresh temp folder.
final class Fixture {
    let engine = FakeEngine()
    let clock = TestClock()
    let folder: String
    let manager: DownloadManager
    var events: [ManagerEvent] = []

    init(limit: Int = 3, engine useEngine: Bool = true) {
        folder = (NSTemporaryDirectory() as NSString).appendingPathComponent("tdl-core-\(UUID().uuidString)")
        try? FileManager.default.createDirectory(atPath: folder, withIntermediateDirectories: true)
        manager = DownloadManager(identifier: "test", defaultDirectory: folder, engine: useEngine ? engine : nil)
        manager.clock = { [clock] in clock.now }
        manager.maxDownloadCount = limit
        manager.observe { [unowned self] in self.events.append($0) }
    }

    deinit { try? FileManager.default.removeItem(atPath: folder) }

    static func url(_ name: String) -> String { "https://example.com/files/\(name)" }

    /// Adds one URL per name, each a second after the previous.
    @discardableResult
    func add(_ names: [String]) -> [String] {
        names.map { name in
            clock.advance(1)
            let url = Self.url(name)
            manager.add([url])
            return url
        }
    }

    /// Writes a file of `size` bytes and returns its path.
    @discardableResult
    func writeFile(_ name: String, size: Int = 10) -> String {
        let path = (folder as NSString).appendingPathComponent(name)
        _ = FileManager.default.createFile(atPath: path, contents: Data(repeating: 7, count: size))
        return path
    }

    /// Finishes a task as the engine would: the file is in place.
    func finish(_ url: String, size: Int = 10) {
        let name = manager.task(url)!.fileName
        engine.finish(url, path: writeFile(name, size: size), size: Int64(size))
    }

    func exists(_ path: String) -> Bool { FileManager.default.fileExists(atPath: path) }

    var flatList: [String] { manager.downloadList.flatMap { $0 } }
    func names(_ urls: [String]) -> [String] { urls.map { manager.task($0)!.fileName } }
    var listNames: [[String]] { manager.downloadList.map(names) }

    /// Every listed task's index path answers its place, and every place its task.
    func assertIndexPathsConsistent(file: StaticString = #filePath, line: UInt = #line) {
        for (s, section) in manager.downloadList.enumerated() {
            for (r, url) in section.enumerated() {
                XCTAssertEqual(manager.indexPath(of: url), ListIndex(section: s, row: r), url, file: file, line: line)
                XCTAssertEqual(manager.url(at: ListIndex(section: s, row: r)), url, file: file, line: line)
            }
        }
    }
}

func ix(_ section: Int, _ row: Int) -> ListIndex { ListIndex(section: section, row: row) }
