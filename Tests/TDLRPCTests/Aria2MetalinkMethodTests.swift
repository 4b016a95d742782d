import Foundation
import XCTest
import TDLCore
@testable import TDLRPC

/// aria2.addMetalink: one download per file of the document, its GIDs in order; the
/// document's name, checksum and size hold over the caller's options.
final class Aria2MetalinkMethodTests: XCTestCase {
    static let sha = String(repeating: "0123456789abcdef", count: 4)

    static func document(_ name: String = "a.iso") -> JSON {
        let text = """
            <metalink xmlns="urn:ietf:params:xml:ns:metalink">
              <file name="\(name)"><size>1234</size><hash type="sha-256">\(sha)</hash>
                <url priority="2">http://127.0.0.2:1/a.iso</url><url priority="1">http://127.0.0.1:1/a.iso</url></file>
              <file name="b.iso"><url>ftp://127.0.0.3/b.iso</url><url>file:///etc/passwd</url></file>
            </metalink>
            """
        return .string(Data(text.utf8).base64EncodedString())
    }

    func testEachFileIsOneDownloadWithItsMirrorsNameChecksumAndSize() {
        let f = RPCFixture()
        let gids = f.result("aria2.addMetalink", [Self.document(), ["out": "other.iso", "pause": "true"]]).array?.compactMap(\.string)
        let a = "http://127.0.0.1:1/a.iso", b = "ftp://127.0.0.3/b.iso"
        XCTAssertEqual(gids, [Aria2Terms.gid(of: a), Aria2Terms.gid(of: b)])
        XCTAssertEqual(f.manager.taskCount, 2)
        let task = f.manager.task(a)
        XCTAssertEqual(task?.options.mirrors, ["http://127.0.0.2:1/a.iso"])
        XCTAssertEqual(task?.fileName, "a.iso")
        XCTAssertEqual(task?.options.checksum, Checksum(algorithm: .sha256, hex: Self.sha))
        XCTAssertEqual(task?.options.expectedSize, 1234)
        XCTAssertEqual(f.manager.task(b)?.options.mirrors, nil)
        XCTAssertEqual(f.status(gids?[0] ?? ""), "paused")
    }

    /// A document naming a finished URL with a hash its file does not match never deletes
    /// the file: the call says the checksum error, the download stays complete.
    func testAWrongHashForAFinishedFileKeepsIt() throws {
        let f = RPCFixture()
        f.manager.fileDigest = { _, _ in String(repeating: "ee", count: 32) }
        let a = "http://127.0.0.1:1/a.iso"
        _ = f.add(a)
        let path = (f.folder as NSString).appendingPathComponent("a.iso")
        try Data(repeating: 1, count: 1234).write(to: URL(fileURLWithPath: path))
        f.engine.finish(a, path: path, size: 1234)
        let message = f.errorMessage("aria2.addMetalink", [Self.document()])
        XCTAssertTrue(message?.contains("checksum error") == true, message ?? "no error")
        XCTAssertEqual(FileManager.default.contents(atPath: path)?.count, 1234)
        XCTAssertEqual(f.manager.task(a)?.state, .finished)
    }

    func testAHostileNameIsCleaned() {
        let f = RPCFixture()
        _ = f.result("aria2.addMetalink", [Self.document("../../../etc/cron.d/x")])
        XCTAssertEqual(f.manager.task("http://127.0.0.1:1/a.iso")?.fileName, "x")
    }

    func testWhatIsNotAMetalinkDocumentIsRefused() {
        let f = RPCFixture()
        XCTAssertEqual(f.errorCode("aria2.addMetalink", ["%%% not base64"]), 1)
        XCTAssertEqual(f.errorCode("aria2.addMetalink", [.string(Data("<html/>".utf8).base64EncodedString())]), 1)
        let bomb = "<!DOCTYPE m [<!ENTITY a \"aaaa\">]><metalink xmlns=\"urn:ietf:params:xml:ns:metalink\"/>"
        XCTAssertTrue(f.errorMessage("aria2.addMetalink", [.string(Data(bomb.utf8).base64EncodedString())])?.contains("DOCTYPE") == true)
        XCTAssertEqual(f.errorCode("aria2.addMetalink", []), 1)
        XCTAssertEqual(f.manager.taskCount, 0)
    }

    func testAPositionPlacesTheFilesInOrder() {
        let f = RPCFixture()
        f.manager.maxDownloadCount = 1
        let first = f.add("http://127.0.0.9:1/first")
        _ = f.add("http://127.0.0.9:1/second")
        _ = f.add("http://127.0.0.9:1/third")
        let gids = f.result("aria2.addMetalink", [Self.document(), [:], 0]).array?.compactMap(\.string) ?? []
        let waiting = f.result("aria2.tellWaiting", [0, 10, ["gid"]]).array?.compactMap { $0["gid"]?.string }
        XCTAssertEqual(Array(waiting?.prefix(2) ?? []), gids, "first is active: \(first)")
    }
}
