import Foundation
import XCTest
import TDLCore
@testable import TDLRPC

/// A URL added again is a new aria2 download: a new GID, the old GID a stopped download's
/// result (aria2p's retry: add the URI again, then remove the old GID's result).
final class Aria2AttemptTests: XCTestCase {
    func testARetryOfAFailedDownloadGetsANewGIDAndRemovingTheOldOneKeepsIt() {
        let f = RPCFixture()
        let url = "http://127.0.0.1:1/retry.bin"
        let old = f.add(url)
        f.engine.fail(url, .httpStatus(503))
        XCTAssertEqual(f.status(old), "error")
        // aria2p passes the old download's options back (getOption's answer).
        let options = f.result("aria2.getOption", [.string(old)])
        let new = f.add(url, options)
        XCTAssertNotEqual(new, old)
        XCTAssertTrue(Aria2Terms.isGID(new))
        XCTAssertEqual(f.status(new), "active")
        let ended = f.result("aria2.tellStatus", [.string(old), ["gid", "status", "errorCode"]])
        XCTAssertEqual(ended, ["gid": .string(old), "status": "error", "errorCode": "29"])
        let stopped = f.result("aria2.tellStopped", [0, 10, ["gid", "status"]])
        XCTAssertEqual(stopped, [["gid": .string(old), "status": "error"]])
        XCTAssertEqual(f.result("aria2.getGlobalStat")["numStopped"], "1")
        XCTAssertEqual(f.errorMessage("aria2.remove", [.string(old)]), "Active Download not found for GID#\(old)")

        XCTAssertEqual(f.result("aria2.removeDownloadResult", [.string(old)]), "OK")
        XCTAssertEqual(f.status(new), "active")
        XCTAssertNotNil(f.manager.task(url))
        XCTAssertEqual(f.errorMessage("aria2.tellStatus", [.string(old)]), "GID \(old) is not found")
        XCTAssertEqual(f.result("aria2.tellStopped", [0, 10]), [])
        XCTAssertEqual(f.result("aria2.getGlobalStat")["numStoppedTotal"], "1")
        // Tellings name the GID of the attempt now.
        f.engine.fail(url, .httpStatus(404))
        XCTAssertEqual(f.notifications.last?.gid, new)
    }

    /// A download still in a queue, added again, carries on under the new GID; the old one is
    /// a removed download's (errorCode 31), as aria2's would be once removed.
    func testAnActiveDownloadAddedAgainLeavesItsOldGIDRemoved() {
        let f = RPCFixture()
        let url = "http://127.0.0.1:1/twice.bin"
        let old = f.add(url)
        let new = f.add(url)
        XCTAssertNotEqual(new, old)
        XCTAssertEqual(f.status(new), "active")
        XCTAssertEqual(f.result("aria2.tellStatus", [.string(old), ["status", "errorCode", "connections"]]),
                       ["status": "removed", "connections": "0", "errorCode": "31"])
        XCTAssertEqual(f.result("aria2.tellActive", [["gid"]]), [["gid": .string(new)]])
        XCTAssertEqual(f.result("aria2.getFiles", [.string(old)]).array?.count, 1)
        // A third add: two earlier GIDs, both stopped, in the order they ended; purge forgets
        // them and leaves the download.
        let third = f.add(url)
        XCTAssertEqual(f.result("aria2.tellStopped", [0, 10, ["gid"]]), [["gid": .string(old)], ["gid": .string(new)]])
        XCTAssertEqual(f.result("aria2.purgeDownloadResult"), "OK")
        XCTAssertEqual(f.result("aria2.tellStopped", [0, 10]), [])
        XCTAssertEqual(f.status(third), "active")
    }

    /// The GIDs are the task's (its `metaInfo`), so a manager that reads the task back answers them.
    func testTheGIDsAreKeptWithTheTask() {
        let f = RPCFixture()
        let url = "http://127.0.0.1:1/kept.bin"
        let old = f.add(url)
        let new = f.add(url)
        let task = try! XCTUnwrap(f.manager.task(url))
        XCTAssertEqual(task.metaInfo["aria2.gid"], new)
        XCTAssertEqual(Aria2RPC.earlierAttempts(of: task).map { Aria2Terms.gidText($0.gid) }, [old])
    }

    /// An earlier attempt's GID is found by a prefix only it has, as a current one is (aria2
    /// expands a prefix over every download and result it keeps); a prefix it shares with a
    /// current GID is aria2's "not unique".
    func testAnEarlierAttemptsGIDIsFoundByAUniquePrefix() {
        let f = RPCFixture()
        let url = "http://127.0.0.1:1/prefixed.bin"
        let old1 = f.add(url), old2 = f.add(url), current = f.add(url)
        let all = [old1, old2, current]
        func shortest(_ gid: String, among gids: [String]) -> String {
            (1...16).map { String(gid.prefix($0)) }.first { p in gids.filter { $0.hasPrefix(p) }.count == 1 }!
        }
        for gid in all {
            let short = shortest(gid, among: all)
            XCTAssertEqual(f.result("aria2.tellStatus", [.string(short), ["gid", "status"]]),
                           ["gid": .string(gid), "status": gid == current ? "active" : "removed"], short)
            XCTAssertEqual(f.result("aria2.getFiles", [.string(short)]).array?.count, 1, short)
            if gid == current {
                XCTAssertEqual(f.result("aria2.getUris", [.string(short)]).array?.first?["uri"]?.string, url, short)
            } else {
                // A stopped download has no URI data, as aria2c's.
                XCTAssertEqual(f.errorMessage("aria2.getUris", [.string(short)]), "No URI data is available for GID#\(gid)", short)
            }
            XCTAssertEqual(f.result("aria2.getOption", [.string(short)])["dir"]?.string, f.folder, short)
        }
        let short1 = shortest(old1, among: all)
        XCTAssertEqual(f.errorMessage("aria2.remove", [.string(short1)]), "Active Download not found for GID#\(old1)")
        XCTAssertEqual(f.result("aria2.removeDownloadResult", [.string(short1)]), "OK")
        XCTAssertEqual(f.errorMessage("aria2.tellStatus", [.string(old1)]), "GID \(old1) is not found")

        // Another download whose GID opens with old2's first three digits.
        let shared = String(old2.prefix(3))
        let other = (0...).lazy.map { "http://127.0.0.1:1/other-\($0)" }.first { Aria2Terms.gid(of: $0).hasPrefix(shared) }!
        XCTAssertEqual(f.add(other), Aria2Terms.gid(of: other))
        for method in ["aria2.tellStatus", "aria2.getFiles", "aria2.removeDownloadResult", "aria2.getOption"] {
            XCTAssertEqual(f.errorMessage(method, [.string(shared)]), "GID \(shared) is not unique", method)
        }
        let short2 = shortest(old2, among: [old2, current, Aria2Terms.gid(of: other)])
        XCTAssertEqual(f.result("aria2.tellStatus", [.string(short2), ["gid"]])["gid"]?.string, old2)
        XCTAssertEqual(f.errorMessage("aria2.tellStatus", ["0123456789abcdeg"]), "Invalid GID 0123456789abcdeg")
    }

    /// An addUri with a checksum fails at the first mismatch, as aria2 (error 32); the
    /// command line keeps its own retries.
    func testAChecksumGivenOverRPCIsNeverDownloadedAgain() {
        let f = RPCFixture()
        let url = "http://127.0.0.1:1/summed.bin"
        _ = f.add(url, ["checksum": .string("sha-256=" + String(repeating: "0", count: 64))])
        XCTAssertEqual(f.manager.task(url)?.options.checksumRetries, 0)
        _ = f.add("http://127.0.0.1:1/plain.bin")
        XCTAssertNil(f.manager.task("http://127.0.0.1:1/plain.bin")?.options.checksumRetries)
    }

    /// A finished file asked for again with a checksum it does not match is kept, finished:
    /// the call fails with a checksum error and the file is never deleted or downloaded again.
    func testAWrongChecksumForAFinishedFileIsAnErrorAndTheFileStays() throws {
        let f = RPCFixture()
        let right = String(repeating: "ab", count: 32)
        f.manager.fileDigest = { path, _ in FileManager.default.fileExists(atPath: path) ? right : nil }
        let url = "http://127.0.0.1:1/kept-file.bin"
        let gid = f.add(url)
        let path = (f.folder as NSString).appendingPathComponent("kept-file.bin")
        try Data("finished".utf8).write(to: URL(fileURLWithPath: path))
        f.engine.finish(url, path: path, size: 8)
        XCTAssertEqual(f.status(gid), "complete")
        let message = f.errorMessage("aria2.addUri", [[.string(url)], ["checksum": .string("sha-256=" + String(repeating: "0", count: 64))]])
        XCTAssertTrue(message?.contains("checksum error") == true, message ?? "no error")
        XCTAssertEqual(FileManager.default.contents(atPath: path), Data("finished".utf8))
        XCTAssertEqual(f.manager.task(url)?.state, .finished)
        XCTAssertNil(f.manager.task(url)?.options.checksum)
        // The right one is taken, and the file is still the download.
        _ = f.add(url, ["checksum": .string("sha-256=" + right)])
        XCTAssertEqual(f.manager.task(url)?.state, .finished)
        XCTAssertEqual(f.manager.task(url)?.options.checksum, Checksum(algorithm: .sha256, hex: right))
        XCTAssertEqual(FileManager.default.contents(atPath: path), Data("finished".utf8))
    }

    func testAChecksumFailureReadsAsAria2s() {
        let f = RPCFixture()
        let url = "http://127.0.0.1:1/bad-sum.bin"
        let gid = f.add(url)
        f.engine.fail(url, .checksumMismatch(expected: "00ff", actual: "ab12"))
        let status = f.result("aria2.tellStatus", [.string(gid), ["status", "errorCode", "errorMessage"]])
        XCTAssertEqual(status["status"], "error")
        XCTAssertEqual(status["errorCode"], "32")
        XCTAssertTrue(status["errorMessage"]?.string?.hasPrefix("Checksum error detected. file=") == true, "\(status)")
    }

    /// getVersion: tdl's version, and what tdl has by aria2's names where aria2 has a name.
    func testGetVersionSaysTdlsVersionAndWhatItHas() {
        let f = RPCFixture()
        let version = f.result("aria2.getVersion")
        XCTAssertEqual(version["version"], "test")
        let features = Set(version["enabledFeatures"]?.array?.compactMap(\.string) ?? [])
        XCTAssertTrue(features.isSuperset(of: ["HTTPS", "Metalink", "Message Digest", "SFTP", "FTP"]), "\(features)")
        XCTAssertTrue(features.isDisjoint(with: ["GZip", "BitTorrent", "Checksum", "Async DNS"]), "\(features)")
        XCTAssertEqual(version.object?.map(\.0).sorted(), ["enabledFeatures", "version"])
    }
}
