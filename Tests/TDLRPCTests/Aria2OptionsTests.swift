import Foundation
import XCTest
import TDLCore
@testable import TDLRPC

/// Every option name aria2 knows is taken: what tdl has applies, the rest is kept as given and
/// answered back; `split` and `max-connection-per-server` are two settings, as in aria2.
final class Aria2OptionsTests: XCTestCase {
    func testADownloadKeepsTheOptionsTdlHasNoSettingFor() {
        let f = RPCFixture()
        let url = "http://127.0.0.1:1/kept"
        let gid = f.add(url, ["max-tries": "5", "bt-max-peers": "10", "lowest-speed-limit": "1K",
                              "split": "8", "max-connection-per-server": "4"])
        let options = f.result("aria2.getOption", [.string(gid)])
        XCTAssertEqual(options["max-tries"], "5")
        XCTAssertEqual(options["bt-max-peers"], "10")
        XCTAssertEqual(options["lowest-speed-limit"], "1K")
        XCTAssertEqual(options["split"], "8")
        XCTAssertEqual(options["max-connection-per-server"], "4")
        XCTAssertEqual(f.manager.task(url)?.options.connections, 4, "one server: at most max-connection-per-server connections")
        XCTAssertEqual(f.result("aria2.changeOption", [.string(gid), ["max-tries": "7"]]), "OK")
        XCTAssertEqual(f.result("aria2.getOption", [.string(gid)])["max-tries"], "7")
        // A name aria2 does not know is refused, as before; so is a value out of aria2's range.
        XCTAssertEqual(f.errorCode("aria2.changeOption", [.string(gid), ["no-such-option": "1"]]), 1)
        XCTAssertEqual(f.errorCode("aria2.addUri", [["http://127.0.0.1:1/y"], ["max-connection-per-server": "17"]]), 1)
        // Only split sets the connections when no cap is given.
        let other = "http://127.0.0.1:1/split-only"
        _ = f.add(other, ["split": "6"])
        XCTAssertEqual(f.manager.task(other)?.options.connections, 6)
    }

    func testTheSessionKeepsAria2sOtherOptionsAndSplitIsItsOwnSetting() {
        let f = RPCFixture()
        let connections = f.manager.settings.connectionsPerDownload
        XCTAssertEqual(f.result("aria2.changeGlobalOption", [["max-connection-per-server": "4", "lowest-speed-limit": "2K",
                                                               "bt-max-peers": "0"]]), "OK")
        XCTAssertEqual(f.manager.settings.connectionsPerDownload, connections, "max-connection-per-server is not split")
        let global = f.result("aria2.getGlobalOption")
        XCTAssertEqual(global["max-connection-per-server"], "4")
        XCTAssertEqual(global["lowest-speed-limit"], "2K")
        XCTAssertEqual(global["bt-max-peers"], "0")
        XCTAssertEqual(f.result("aria2.changeGlobalOption", [["split": "3"]]), "OK")
        XCTAssertEqual(f.manager.settings.connectionsPerDownload, 3)
        XCTAssertEqual(f.result("aria2.getGlobalOption")["max-connection-per-server"], "4")
        // The server's own options stay the command line's.
        XCTAssertEqual(f.errorCode("aria2.changeGlobalOption", [["rpc-secret": "x"]]), 1)
        XCTAssertEqual(f.errorCode("aria2.changeGlobalOption", [["rpc-listen-port": "7000"]]), 1)
        XCTAssertEqual(f.errorCode("aria2.changeGlobalOption", [["no-such-option": "1"]]), 1)
    }

    /// tdl's own `queue` is a download's option over JSON-RPC too, read as an input file reads
    /// it; a mistake in it, or in any of tdl's options, says what the input file says.
    func testADownloadNamesItsQueueAndMistakesReadAsElsewhere() {
        let f = RPCFixture()
        let url = "http://127.0.0.1:1/night.iso"
        f.manager.setQueue(QueueDefinition(name: "night"))
        f.manager.setQueue(QueueDefinition(name: "day"))
        XCTAssertEqual(f.errorMessage("aria2.addUri", [[.string(url)], ["queue": "nosuch"]]),
                       "\(url): no queue named nosuch (queues: default, night, day)")
        XCTAssertNil(f.manager.task(url), "a queue no one defined adds nothing")
        let gid = f.add(url, ["queue": "night"])
        XCTAssertEqual(f.manager.task(url)?.options.queue, "night")
        XCTAssertEqual(f.result("aria2.changeOption", [.string(gid), ["queue": "day"]]), "OK")
        XCTAssertEqual(f.manager.task(url)?.options.queue, "day")
        XCTAssertEqual(f.result("aria2.getOption", [.string(gid)])["queue"], "day")
        func inputFileSays(_ name: String, _ value: String) -> String? {
            var options = DownloadOptions()
            do { try DownloadOption.read(name, value, into: &options, absolute: { $0 }) } catch { return error.message(as: name) }
            return nil
        }
        for (name, value) in [("queue", "a b"), ("split", "99"), ("checksum", "md5=zz"), ("max-download-limit", "fast")] {
            let other = "http://127.0.0.1:1/refused-\(name)"
            let answer = f.response("aria2.addUri", [[.string(other)], [name: .string(value)]])
            XCTAssertEqual(answer["error"]?["code"]?.integer, 1, "\(name)=\(value): \(answer.text)")
            XCTAssertNotNil(inputFileSays(name, value))
            XCTAssertEqual(answer["error"]?["message"]?.string, inputFileSays(name, value))
            XCTAssertNil(f.manager.task(other), "\(name)=\(value) adds nothing")
        }
    }
}
