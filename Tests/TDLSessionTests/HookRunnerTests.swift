import Foundation
import TDLCore
@testable import TDLSession
import XCTest

final class HookRunnerTests: XCTestCase {
    /// A hook that cannot be started is said on its task (details and `tdl list`), not on a
    /// terminal the full-screen list covers.
    func testAHookThatCannotRunIsNotedOnItsTask() {
        let manager = DownloadManager(defaultDirectory: NSTemporaryDirectory())
        let url = "https://example.com/a.iso"
        manager.add([url])
        manager.updateSettings { $0.onComplete = "/nonexistent/tdl-hook" }
        let hooks = HookRunner(manager: manager)
        hooks.handle(.taskSucceeded(url: url, path: "/tmp/a.iso"))
        XCTAssertEqual(manager.task(url)?.note?.hasPrefix("could not run /nonexistent/tdl-hook: "), true,
                       manager.task(url)?.note ?? "no note")
    }
}
