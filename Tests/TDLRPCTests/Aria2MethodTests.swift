import Foundation
import XCTest
import TDLCore
@testable import TDLRPC

/// The method table, and the calls aria2 answers in ways a front end relies on: unknown
/// methods, GID prefixes, peers.
final class Aria2MethodTests: XCTestCase {
    func testTheTableIsTheOneListOfMethods() {
        let names = Aria2Method.all.map(\.name)
        XCTAssertEqual(Set(names).count, names.count, "a method is listed twice")
        XCTAssertEqual(Aria2RPC.methods, names)
        XCTAssertEqual(ReadOnlyCalls.methods, ["aria2.tellStatus", "aria2.getFiles", "aria2.getUris", "aria2.getServers",
                                               "aria2.tellActive", "aria2.getGlobalStat"])
        let f = RPCFixture()
        XCTAssertEqual(f.result("system.listMethods").array?.count, names.count)
    }

    /// aria2 answers a method it does not have with its error 1, naming it.
    func testAnUnknownMethodIsAria2sError() {
        let f = RPCFixture()
        XCTAssertEqual(f.errorCode("aria2.makeHamburger"), 1)
        XCTAssertEqual(f.errorMessage("aria2.makeHamburger"), "No such method: aria2.makeHamburger")
    }

    /// An HTTP download has no peers: aria2 answers an empty list, and so does tdl.
    func testGetPeersIsAnEmptyList() {
        let f = RPCFixture()
        let gid = f.add("http://127.0.0.1:1/peers")
        XCTAssertEqual(f.result("aria2.getPeers", [.string(gid)]), .array([]))
        XCTAssertEqual(f.errorMessage("aria2.getPeers", ["0123456789abcdef"]), "GID 0123456789abcdef is not found")
    }

    /// A GID may be shortened to a prefix only one download's GID has, as aria2 allows;
    /// a prefix two share is aria2's "not unique" error.
    func testAUniqueGIDPrefixNamesItsDownload() {
        let f = RPCFixture(limit: 0)
        var gids: [String] = []
        // Seventeen GIDs: two of them share their first hex digit.
        for n in 0..<17 { gids.append(f.add("http://127.0.0.1:1/prefix-\(n)")) }
        let byFirst = Dictionary(grouping: gids) { $0.prefix(1) }
        let shared = byFirst.first { $0.value.count > 1 }!.key
        XCTAssertEqual(f.errorMessage("aria2.tellStatus", [.string(String(shared))]), "GID \(shared) is not unique")
        // Each GID is unique at some length below 16.
        for gid in gids {
            let short = (1...16).map { String(gid.prefix($0)) }.first { prefix in gids.filter { $0.hasPrefix(prefix) }.count == 1 }!
            guard short.count < 16 else { continue }
            XCTAssertEqual(f.result("aria2.tellStatus", [.string(short), ["gid"]])["gid"]?.string, gid, short)
            XCTAssertEqual(f.result("aria2.pause", [.string(short)]).string, gid, "a changing call answers the whole GID")
        }
        XCTAssertEqual(f.errorMessage("aria2.tellStatus", ["xyz"]), "Invalid GID xyz")
        XCTAssertEqual(f.errorMessage("aria2.tellStatus", [""]), "Invalid GID ")
        XCTAssertEqual(f.errorMessage("aria2.tellStatus", ["0123456789abcdef0"]), "Invalid GID 0123456789abcdef0")
    }

    /// numStoppedTotal counts downloads stopped in this run whose results were removed since,
    /// as aria2's does; numStopped only those still listed.
    func testNumStoppedTotalKeepsCountingRemovedResults() {
        let f = RPCFixture()
        let a = f.add("http://127.0.0.1:1/total-a")
        _ = f.add("http://127.0.0.1:1/total-b")
        let path = (f.folder as NSString).appendingPathComponent("total-a")
        XCTAssertTrue(FileManager.default.createFile(atPath: path, contents: Data(count: 1)))
        f.engine.finish("http://127.0.0.1:1/total-a", path: path, size: 1)
        f.engine.fail("http://127.0.0.1:1/total-b", .timeout)
        func stat() -> [String?] {
            let s = f.result("aria2.getGlobalStat")
            return [s["numStopped"]?.string, s["numStoppedTotal"]?.string]
        }
        XCTAssertEqual(stat(), ["2", "2"])
        XCTAssertEqual(f.result("aria2.removeDownloadResult", [.string(a)]), "OK")
        XCTAssertEqual(stat(), ["1", "2"])
        XCTAssertEqual(f.result("aria2.purgeDownloadResult"), "OK")
        XCTAssertEqual(stat(), ["0", "2"])
    }

    /// Adding a finished download's URL again with another `out` or `dir` never renames or
    /// moves its file.
    func testAReAddNeverRenamesAFinishedFile() {
        let f = RPCFixture()
        let url = "http://127.0.0.1:1/kept-name.bin"
        let gid = f.add(url)
        let path = (f.folder as NSString).appendingPathComponent("kept-name.bin")
        XCTAssertTrue(FileManager.default.createFile(atPath: path, contents: Data(count: 3)))
        f.engine.finish(url, path: path, size: 3)
        XCTAssertEqual(f.status(gid), "complete")
        let again = f.add(url, ["out": "other.bin"])
        XCTAssertNotEqual(again, gid)
        XCTAssertEqual(f.status(again), "complete")
        XCTAssertEqual(f.status(gid), "complete")
        XCTAssertEqual(f.manager.task(url)?.fileName, "kept-name.bin")
        XCTAssertTrue(FileManager.default.fileExists(atPath: path))
        XCTAssertFalse(FileManager.default.fileExists(atPath: (f.folder as NSString).appendingPathComponent("other.bin")))
    }
}
