import Foundation
import XCTest
import TDLCore
@testable import TDLRPC

/// A download that never started, as aria2c answers for it: its URIs `waiting`, not `used`,
/// and no path until a server names the file (unless a name was given).
final class Aria2NotStartedTests: XCTestCase {
    func testAQueuedDownloadsUrisWaitAndItHasNoPathYet() {
        let f = RPCFixture(limit: 1)
        let running = f.add("http://127.0.0.1:1/running.bin")
        let url = "http://127.0.0.1:1/queued.bin"
        let queued = f.add(url, ["split": "2"])
        let named = f.add("http://127.0.0.1:1/named.bin", ["pause": "true", "out": "given.bin"])
        XCTAssertEqual(f.status(queued), "waiting")
        XCTAssertEqual(f.result("aria2.getUris", [.string(queued)]), [["uri": .string(url), "status": "waiting"]])
        let files = f.result("aria2.getFiles", [.string(queued)])
        XCTAssertEqual(files.array?.first?["path"], "")
        XCTAssertEqual(files.array?.first?["uris"], [["uri": .string(url), "status": "waiting"]])
        XCTAssertEqual(f.result("aria2.tellStatus", [.string(queued), ["files"]])["files"], files)
        XCTAssertEqual(f.result("aria2.getFiles", [.string(named)]).array?.first?["path"]?.string,
                       (f.folder as NSString).appendingPathComponent("given.bin"))
        XCTAssertEqual(f.result("aria2.getUris", [.string(running)]).array?.first?["status"], "used")
        // Once it runs its URI is used, as aria2's.
        XCTAssertEqual(f.result("aria2.remove", [.string(running)]), .string(running))
        XCTAssertEqual(f.status(queued), "active")
        XCTAssertEqual(f.result("aria2.getUris", [.string(queued)]).array?.first?["status"], "used")
    }
}
