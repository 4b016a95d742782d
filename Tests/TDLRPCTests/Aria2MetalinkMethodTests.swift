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
    /// the file: that file is not added and the checksum error is told, the download stays
    /// complete, and the document's other file is added.
    func testAWrongHashForAFinishedFileKeepsIt() throws {
        let f = RPCFixture()
        f.manager.fileDigest = { _, _ in String(repeating: "ee", count: 32) }
        let a = "http://127.0.0.1:1/a.iso"
        _ = f.add(a)
        let path = (f.folder as NSString).appendingPathComponent("a.iso")
        try Data(repeating: 1, count: 1234).write(to: URL(fileURLWithPath: path))
        f.engine.finish(a, path: path, size: 1234)
        let gids = f.result("aria2.addMetalink", [Self.document()]).array
        XCTAssertEqual(gids?.count, 1, "only b.iso is added")
        XCTAssertTrue(f.rpc.notes.contains { $0.contains("a.iso") && $0.contains("checksum error") }, "\(f.rpc.notes)")
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

    /// A position is the caller's number: one near Int.max plus a file's index is clamped, not
    /// an overflow that ends tdl.
    func testAHugePositionIsClampedForEveryFile() {
        let f = RPCFixture()
        f.manager.maxDownloadCount = 1
        _ = f.add("http://127.0.0.9:1/first")
        _ = f.add("http://127.0.0.9:1/second")
        let gids = f.result("aria2.addMetalink", [Self.document(), [:], "9223372036854775807"]).array?.compactMap(\.string) ?? []
        XCTAssertEqual(gids.count, 2)
        let waiting = f.result("aria2.tellWaiting", [0, 10, ["gid"]]).array?.compactMap { $0["gid"]?.string } ?? []
        XCTAssertEqual(Array(waiting.suffix(2)), gids, "both at the end, in order")
        XCTAssertEqual(f.result("aria2.getVersion")["version"]?.string?.isEmpty, false)
    }

    /// As aria2: a file refused does not undo those added; their GIDs come back and the
    /// refused one is told. Only when none is added is the call an error.
    func testAFileRefusedIsToldAndTheOthersAreAdded() throws {
        let f = RPCFixture()
        // A .zip goes to tdl's own folder, where no download may go: that file is refused.
        let home = f.folder + "/home"
        f.manager.reservedFolder = ReservedFolder(home)
        f.manager.categories = Categories([.init(name: "Archives", extensions: ["zip"], directory: home)])
        let added = f.result("aria2.addMetalink", [Self.text(firstName: "c.iso", secondName: "d.zip")]).array?.compactMap(\.string)
        XCTAssertEqual(added, [Aria2Terms.gid(of: "http://127.0.0.1:1/c.iso")])
        XCTAssertNotNil(f.manager.task("http://127.0.0.1:1/c.iso"))
        XCTAssertNil(f.manager.task("http://127.0.0.1:1/d.zip"))
        XCTAssertTrue(f.rpc.notes.contains { $0.contains("d.zip") && $0.contains("tdl's own") }, "\(f.rpc.notes)")
        XCTAssertEqual(f.errorCode("aria2.addMetalink", [Self.text(firstName: "e.zip", secondName: "f.zip")]), 1)
        XCTAssertEqual(f.manager.taskCount, 1)
    }

    /// A checksum given is one file's: with two files in the document neither gets it.
    func testAChecksumGivenIsOnlyForADocumentOfOneFile() {
        let f = RPCFixture()
        let given = "sha-256=" + String(repeating: "ab", count: 32)
        _ = f.result("aria2.addMetalink", [Self.text(firstName: "c.iso", secondName: "d.iso"), ["checksum": .string(given)]])
        XCTAssertNil(f.manager.task("http://127.0.0.1:1/c.iso")?.options.checksum)
        XCTAssertNil(f.manager.task("http://127.0.0.1:1/d.iso")?.options.checksum)
        XCTAssertTrue(f.rpc.notes.contains { $0.contains("checksum given is ignored") }, "\(f.rpc.notes)")
        let one = """
            <metalink xmlns="urn:ietf:params:xml:ns:metalink"><file name="g.iso"><url>http://127.0.0.1:1/g.iso</url></file></metalink>
            """
        _ = f.result("aria2.addMetalink", [.string(Data(one.utf8).base64EncodedString()), ["checksum": .string(given)]])
        XCTAssertEqual(f.manager.task("http://127.0.0.1:1/g.iso")?.options.checksum, Checksum(given))
    }

    /// Two files without hashes, each at http://127.0.0.1:1/ under its name's last part.
    static func text(firstName: String, secondName: String) -> JSON {
        func url(_ name: String) -> String { "http://127.0.0.1:1/" + (name.split(separator: "/").last.map(String.init) ?? name) }
        let text = """
            <metalink xmlns="urn:ietf:params:xml:ns:metalink">
              <file name="\(firstName)"><url>\(url(firstName))</url></file>
              <file name="\(secondName)"><url>\(url(secondName))</url></file>
            </metalink>
            """
        return .string(Data(text.utf8).base64EncodedString())
    }
}
