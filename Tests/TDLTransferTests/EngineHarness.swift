import Foundation
import TDLCore
import TDLTestSupport
import TDLTransfer
import XCTest

/// A manager on the real libcurl engine, with no store: for tests of what arrives on disk.
final class EngineHarness {
    let downloads = TemporaryDirectory("tdl-engine")
    let manager: DownloadManager
    var events: [ManagerEvent] = []

    init(connections: Int = 1, maxRetries: Int = 3, settings: EngineSettings = EngineHarness.fastSettings) {
        manager = DownloadManager(identifier: "test", defaultDirectory: downloads.path, engine: CurlEngine(settings: settings))
        manager.setConnectionsPerDownload(connections)
        manager.updateSettings { $0.maxRetries = maxRetries }
        manager.maxDownloadCount = 0
        manager.observe { [unowned self] in self.events.append($0) }
    }

    static var fastSettings: EngineSettings {
        var settings = EngineSettings()
        settings.retryBaseSeconds = 0.05
        settings.stallSeconds = 2
        return settings
    }

    /// Adds and runs the loop until nothing downloads (or the timeout passes).
    @discardableResult
    func download(_ urls: [String], fileName: String? = nil, checksum: Checksum? = nil, timeout: Double = 60) -> [DownloadTask] {
        manager.add(urls, options: DownloadOptions(fileName: fileName, checksum: checksum))
        runUntilIdle(timeout: timeout)
        return urls.compactMap { manager.task($0) }
    }

    func runUntilIdle(timeout: Double = 60) {
        let deadline = Date().addingTimeInterval(timeout)
        while manager.isBusy && Date() < deadline {
            _ = manager.runOnce(timeoutMs: 50)
        }
        XCTAssertFalse(manager.isBusy, "downloads did not end within \(timeout) s")
    }

    /// Runs the loop for a while (to let a download get somewhere).
    func run(for seconds: Double) {
        let deadline = Date().addingTimeInterval(seconds)
        while Date() < deadline { _ = manager.runOnce(timeoutMs: 20) }
    }

    func files() -> [String] {
        ((try? FileManager.default.contentsOfDirectory(atPath: downloads.path)) ?? []).sorted()
    }
}
