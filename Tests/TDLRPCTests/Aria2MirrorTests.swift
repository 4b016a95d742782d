import Foundation
import XCTest
import TDLCore
@testable import TDLRPC

/// Several URIs of one file: one download, the first URI its identity, the others its mirrors,
/// as aria2 takes them; changeUri edits the mirrors.
final class Aria2MirrorTests: XCTestCase {
    func testSeveralURIsInOneAddAreOneDownloadWithMirrors() {
        let f = RPCFixture()
        let url = "http://127.0.0.1:1/m.iso", second = "http://127.0.0.2:1/m.iso", third = "ftp://127.0.0.3/m.iso"
        let gid = f.result("aria2.addUri", [[.string(url), .string(second), .string(url), .string(third)]]).string ?? ""
        XCTAssertEqual(gid, Aria2Terms.gid(of: url))
        XCTAssertEqual(f.manager.taskCount, 1)
        XCTAssertEqual(f.manager.task(url)?.options.mirrors, [second, third])
        let uris = f.result("aria2.getUris", [.string(gid)]).array?.compactMap { $0["uri"]?.string }
        XCTAssertEqual(uris, [url, second, third])
        let files = f.result("aria2.getFiles", [.string(gid)]).array?.first?["uris"]?.array?.count
        XCTAssertEqual(files, 3)
        // A mirror the policy refuses refuses the add.
        XCTAssertEqual(f.errorCode("aria2.addUri", [["http://127.0.0.1:1/n", "file:///etc/passwd"]]), 1)
        XCTAssertNil(f.manager.task("http://127.0.0.1:1/n"))
    }

    func testChangeUriRemovesAndAddsMirrors() {
        let f = RPCFixture()
        let url = "http://127.0.0.1:1/c.iso", a = "http://127.0.0.2:1/c.iso", b = "http://127.0.0.3:1/c.iso"
        let gid = f.add(url)
        XCTAssertEqual(f.result("aria2.changeUri", [.string(gid), 1, [], [.string(a), .string(b)]]), [0, 2])
        XCTAssertEqual(f.manager.task(url)?.options.mirrors, [a, b])
        // Removal first, then addition at the position among the remaining URIs.
        XCTAssertEqual(f.result("aria2.changeUri", [.string(gid), 1, [.string(b)], [.string("http://127.0.0.4:1/c.iso")], 0]), [1, 1])
        XCTAssertEqual(f.manager.task(url)?.options.mirrors, ["http://127.0.0.4:1/c.iso", a])
        // The URI in use (the download's identity) stays, as a URI in use stays in aria2.
        XCTAssertEqual(f.result("aria2.changeUri", [.string(gid), 1, [.string(url)], []]), [0, 0])
        XCTAssertEqual(f.errorCode("aria2.changeUri", [.string(gid), 2, [], []]), 1)
        XCTAssertEqual(f.errorCode("aria2.changeUri", [.string(gid), 1, [], ["file:///etc/passwd"]]), 1)
    }
}
