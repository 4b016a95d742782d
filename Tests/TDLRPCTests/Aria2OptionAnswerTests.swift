import Foundation
import XCTest
import TDLCore
@testable import TDLRPC

/// `getOption` and `getGlobalOption` answer every name aria2c 1.36 answers: tdl's value where
/// tdl has the setting, else the value a client set, else aria2's default (the differential
/// test holds the names and defaults to a running aria2c).
final class Aria2OptionAnswerTests: XCTestCase {
    private func keys(_ answer: JSON) -> Set<String> { Set(answer.object?.map(\.0) ?? []) }

    func testTheGlobalAnswerHasEveryNameWithTdlsValuesOverAria2sDefaults() {
        let f = RPCFixture(limit: 3)
        let global = f.result("aria2.getGlobalOption")
        XCTAssertEqual(keys(global), Aria2OptionDefaults.names)
        XCTAssertEqual(keys(global).count, 128)
        XCTAssertEqual(global["dir"]?.string, f.folder)
        XCTAssertEqual(global["max-concurrent-downloads"], "3")
        XCTAssertEqual(global["split"]?.string, String(f.manager.settings.connectionsPerDownload))
        XCTAssertEqual(global["user-agent"], "tdl/test")
        XCTAssertEqual(global["timeout"], "60")
        XCTAssertEqual(global["allow-overwrite"], "false")
        XCTAssertEqual(global["min-split-size"], "20971520")
        XCTAssertEqual(global["netrc-path"]?.string, Aria2RPC.homePath("~/.netrc"))
        XCTAssertEqual(f.result("aria2.changeGlobalOption", [["timeout": "30", "lowest-speed-limit": "2K"]]), "OK")
        XCTAssertEqual(f.result("aria2.getGlobalOption")["timeout"], "30", "a value a client set is answered back")
        XCTAssertEqual(keys(f.result("aria2.getGlobalOption")).count, 128)
        // A download added later takes the session's values, as in aria2.
        let gid = f.add("http://127.0.0.1:1/later.bin")
        XCTAssertEqual(f.result("aria2.getOption", [.string(gid)])["timeout"], "30")
    }

    func testADownloadsAnswerHasAria2sNamesAndItsOwnValues() {
        let f = RPCFixture()
        let plain = f.add("http://127.0.0.1:1/plain.bin")
        let options = f.result("aria2.getOption", [.string(plain)])
        let perDownload = Set(Aria2OptionDefaults.table.filter(\.perDownload).map(\.name))
        XCTAssertEqual(keys(options), perDownload, "out only when given, as aria2")
        XCTAssertEqual(perDownload.count, 75)
        XCTAssertEqual(options["dir"]?.string, f.folder)
        XCTAssertEqual(options["max-download-limit"], "0")
        XCTAssertEqual(options["max-tries"]?.string, String(f.manager.settings.maxRetries + 1))
        XCTAssertEqual(options["split"]?.string, String(f.manager.settings.connectionsPerDownload))
        XCTAssertEqual(options["max-connection-per-server"], options["split"], "tdl's connections all go to the one server")
        XCTAssertEqual(options["retry-wait"], "0")
        XCTAssertNil(options["pause"])

        let url = "http://127.0.0.1:1/given.bin"
        let gid = f.add(url, ["out": "named.bin", "split": "3", "header": .array(["A: b", "C: d"]),
                              "referer": "http://r/", "timeout": "15", "max-download-limit": "2048"])
        let given = f.result("aria2.getOption", [.string(gid)])
        XCTAssertEqual(keys(given), perDownload.union(["out", "header", "referer"]))
        XCTAssertEqual(given["out"], "named.bin")
        XCTAssertEqual(given["split"], "3")
        XCTAssertEqual(given["header"], "A: b\nC: d\n", "aria2's one string, a line each")
        XCTAssertEqual(given["referer"], "http://r/")
        XCTAssertEqual(given["timeout"], "15")
        XCTAssertEqual(given["max-download-limit"], "2048")
    }

    /// aria2p's retry passes a download's whole answer back to addUri: every name is taken and
    /// the new download is the old one's.
    func testTheAnswerPassedBackToAddUriIsTakenAsItWas() {
        let f = RPCFixture()
        let url = "http://127.0.0.1:1/round.bin"
        let gid = f.add(url, ["out": "r.bin", "split": "6", "header": .array(["A: b", "C: d"]), "timeout": "15"])
        let answer = f.result("aria2.getOption", [.string(gid)])
        f.engine.fail(url, .httpStatus(503))
        let again = f.add(url, answer)
        let options = f.manager.task(url)?.options
        XCTAssertEqual(options?.headers, ["A: b", "C: d"])
        XCTAssertEqual(options?.connections, 6)
        XCTAssertEqual(options?.fileName, "r.bin")
        XCTAssertEqual(f.result("aria2.getOption", [.string(again)]), answer)
    }
}
