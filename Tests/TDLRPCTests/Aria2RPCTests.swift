import Foundation
import XCTest
import TDLCore
@testable import TDLRPC

/// An engine that downloads nothing: the test plays the server's answers.
final class QuietEngine: TransferEngine {
    var isNameTaken: ((_ url: String, _ path: String) -> Bool)?
    var isRecorded: ((_ url: String) -> Bool)?
    var onEvent: ((TransferEvent) -> Void)?
    var live: [String: Int64] = [:]
    private(set) var rateLimits: [String: Int64?] = [:]
    private(set) var globalLimit: Int64??
    func start(_ job: TransferJob) {}
    func stop(url: String) {}
    func liveProgress() -> [String: Int64] { live }
    func setGlobalRateLimit(_ bytesPerSecond: Int64?) { globalLimit = .some(bytesPerSecond) }
    func setRateLimit(url: String, _ bytesPerSecond: Int64?) { rateLimits[url] = bytesPerSecond }
    func wait(timeoutMs: Int, watching fds: [WatchedFD]) -> Set<Int32> { [] }
    let waker: @Sendable () -> Void = {}
    func shutdown() {}

    func resolve(_ url: String, name: String, size: Int64?) {
        onEvent?(.resolved(url: url, fileName: name, size: size, mimeType: nil, etag: nil, lastModified: nil, finalURL: url))
    }
    func finish(_ url: String, path: String, size: Int64) { onEvent?(.finished(url: url, path: path, size: size)) }
    func fail(_ url: String, _ reason: FailReason) { onEvent?(.failed(url: url, reason: reason, segments: [])) }
}

/// The method table on a manager with a quiet engine: request JSON in, response JSON out.
final class RPCFixture {
    let engine = QuietEngine()
    let folder: String
    let manager: DownloadManager
    let rpc: Aria2RPC
    var notifications: [Aria2Notifier.Notification] = []
    var notifier: Aria2Notifier!
    private var nextID = 0

    init(secret: String? = nil, limit: Int = 2) {
        folder = (NSTemporaryDirectory() as NSString).appendingPathComponent("tdl-rpc-\(UUID().uuidString)")
        try? FileManager.default.createDirectory(atPath: folder, withIntermediateDirectories: true)
        manager = DownloadManager(identifier: "t", defaultDirectory: folder, engine: engine)
        manager.maxDownloadCount = limit
        rpc = Aria2RPC(manager: manager, secret: secret, tdlVersion: "test")
        notifier = Aria2Notifier(manager: manager) { [unowned self] in self.notifications.append($0) }
    }

    deinit { try? FileManager.default.removeItem(atPath: folder) }

    /// The whole response of one call.
    func response(_ method: String, _ params: [JSON] = []) -> JSON {
        nextID += 1
        let request: JSON = ["jsonrpc": "2.0", "id": .string("q\(nextID)"), "method": .string(method), "params": .array(params)]
        let answer = rpc.answer(to: request.serialized)
        return try! JSON.parse(answer)
    }

    func result(_ method: String, _ params: [JSON] = [], file: StaticString = #filePath, line: UInt = #line) -> JSON {
        let answer = response(method, params)
        XCTAssertNil(answer["error"], "\(method): \(answer.text)", file: file, line: line)
        return answer["result"] ?? .null
    }

    func errorCode(_ method: String, _ params: [JSON] = []) -> Int? { response(method, params)["error"]?["code"]?.integer }
    func errorMessage(_ method: String, _ params: [JSON] = []) -> String? { response(method, params)["error"]?["message"]?.string }

    func add(_ url: String, _ options: JSON = [:]) -> String { result("aria2.addUri", [[.string(url)], options]).string ?? "" }
    func status(_ gid: String) -> String? { result("aria2.tellStatus", [.string(gid), ["status"]])["status"]?.string }
}

final class Aria2RPCTests: XCTestCase {
    func testJSONRoundTripsAndRejectsWhatIsNotJSON() throws {
        let text = #"{"a":[1,2.5,"x\n\"y\"\u00e9\ud83d\ude00",true,false,null],"b":{}}"#
        let value = try JSON.parse(text)
        XCTAssertEqual(value["a"]?.array?[2].string, "x\n\"y\"é😀")
        XCTAssertEqual(try JSON.parse(value.text), value)
        for bad in ["", "{", "[1,]", "{\"a\" 1}", "nul", "\"\u{01}\"", String(repeating: "[", count: 100) + String(repeating: "]", count: 100)] {
            XCTAssertThrowsError(try JSON.parse(bad), bad)
        }
    }

    func testGIDIsSixteenHexDigitsAndTheSameForTheSameURL() {
        let gid = Aria2Terms.gid(of: "http://example.org/a.iso")
        XCTAssertEqual(gid.count, 16)
        XCTAssertTrue(Aria2Terms.isGID(gid))
        XCTAssertEqual(gid, Aria2Terms.gid(of: "http://example.org/a.iso"))
        XCTAssertNotEqual(gid, Aria2Terms.gid(of: "http://example.org/b.iso"))
    }

    func testAddUriTakesTheRequestOptionsAFrontEndSends() {
        let f = RPCFixture(limit: 1)
        let url = "http://127.0.0.1:1/h.bin"
        _ = f.add(url, ["header": .array([.string("Authorization: Bearer t"), .string("X-A: 1")]),
                        "user-agent": "Firefox/120", "referer": "https://example.org/page", "split": "32"])
        let options = f.manager.task(url)!.options
        XCTAssertEqual(options.headers, ["Authorization: Bearer t", "X-A: 1"])
        XCTAssertEqual(options.userAgent, "Firefox/120")
        XCTAssertEqual(options.referer, "https://example.org/page")
        XCTAssertEqual(options.connections, 32)
        XCTAssertEqual(f.errorCode("aria2.addUri", [[.string("http://127.0.0.1:1/y")], ["header": "no colon here"]]), 1)
    }

    func testAddUriTellStatusAndTheStatesBothWays() {
        let f = RPCFixture(limit: 1)
        let a = f.add("http://127.0.0.1:1/a.bin", ["out": "first.bin", "split": "4", "max-download-limit": "1M"])
        let b = f.add("http://127.0.0.1:1/b.bin")
        XCTAssertEqual(a, Aria2Terms.gid(of: "http://127.0.0.1:1/a.bin"))
        XCTAssertEqual(f.status(a), "active")
        XCTAssertEqual(f.status(b), "waiting")
        let task = f.manager.task("http://127.0.0.1:1/a.bin")!
        XCTAssertEqual(task.fileName, "first.bin")
        XCTAssertEqual(task.options.connections, 4)
        XCTAssertEqual(task.options.rateLimit, 1_000_000)

        // Every field aria2p reads is there, numbers as strings.
        f.engine.resolve("http://127.0.0.1:1/a.bin", name: "first.bin", size: 3_000_000)
        let full = f.result("aria2.tellStatus", [.string(a)])
        for key in ["gid", "status", "totalLength", "completedLength", "uploadLength", "downloadSpeed", "uploadSpeed",
                    "pieceLength", "numPieces", "connections", "dir", "files"] {
            XCTAssertNotNil(full[key], key)
        }
        XCTAssertEqual(full["totalLength"], "3000000")
        XCTAssertEqual(full["numPieces"], "3")
        XCTAssertEqual(full["files"]?.array?.first?["path"]?.string, (f.folder as NSString).appendingPathComponent("first.bin"))
        XCTAssertEqual(full["files"]?.array?.first?["uris"]?.array?.first?["uri"], "http://127.0.0.1:1/a.bin")
        // keys picks fields.
        let picked = f.result("aria2.tellStatus", [.string(a), ["gid", "totalLength"]])
        XCTAssertEqual(picked.object?.map(\.0), ["gid", "totalLength"])

        // paused and stopped → paused; unpause → waiting or active.
        XCTAssertEqual(f.result("aria2.pause", [.string(b)]).string, b)
        XCTAssertEqual(f.status(b), "paused")
        XCTAssertEqual(f.manager.state(of: "http://127.0.0.1:1/b.bin"), .paused)
        f.manager.stopTasks(["http://127.0.0.1:1/b.bin"])
        XCTAssertEqual(f.status(b), "paused")
        XCTAssertEqual(f.result("aria2.unpause", [.string(b)]).string, b)
        XCTAssertEqual(f.status(b), "waiting")
        XCTAssertEqual(f.errorCode("aria2.unpause", [.string(b)]), 1)

        // finished → complete, failed → error with aria2's code, trash → removed.
        let path = (f.folder as NSString).appendingPathComponent("first.bin")
        XCTAssertTrue(FileManager.default.createFile(atPath: path, contents: Data(count: 10)))
        f.engine.finish("http://127.0.0.1:1/a.bin", path: path, size: 10)
        XCTAssertEqual(f.status(a), "complete")
        XCTAssertEqual(f.status(b), "active")
        f.engine.fail("http://127.0.0.1:1/b.bin", .httpStatus(404))
        let failed = f.result("aria2.tellStatus", [.string(b)])
        XCTAssertEqual(failed["status"], "error")
        XCTAssertEqual(failed["errorCode"], "3")
        XCTAssertEqual(failed["errorMessage"], "404 Not Found")
        // A stopped download is not removed, as in aria2 (its result is, by removeDownloadResult).
        XCTAssertEqual(f.errorMessage("aria2.remove", [.string(b)]), "Active Download not found for GID#\(b)")
        XCTAssertEqual(f.errorMessage("aria2.forceRemove", [.string(a)]), "Active Download not found for GID#\(a)")
        XCTAssertEqual(f.status(a), "complete")
        f.manager.resumeTasks(["http://127.0.0.1:1/b.bin"])
        XCTAssertEqual(f.result("aria2.remove", [.string(b)]).string, b)
        let removed = f.result("aria2.tellStatus", [.string(b)])
        XCTAssertEqual(removed["status"], "removed")
        XCTAssertEqual(removed["errorCode"], "31", "aria2's code of a download the user removed")
        XCTAssertNotNil(f.manager.task("http://127.0.0.1:1/b.bin")?.deletedAt, "remove moves to the trash")
        XCTAssertEqual(f.errorMessage("aria2.remove", [.string(b)]), "Active Download not found for GID#\(b)")
        XCTAssertEqual(f.result("aria2.getGlobalStat")["numStopped"], "2")
    }

    func testListsPagesAndGlobalStat() {
        let f = RPCFixture(limit: 1)
        let gids = (0..<5).map { f.add("http://127.0.0.1:1/f\($0)") }
        XCTAssertEqual(f.result("aria2.tellActive").array?.compactMap { $0["gid"]?.string }, [gids[0]])
        let waiting = f.result("aria2.tellWaiting", [0, 10]).array?.compactMap { $0["gid"]?.string }
        XCTAssertEqual(waiting, Array(gids[1...]))
        XCTAssertEqual(f.result("aria2.tellWaiting", [1, 2]).array?.compactMap { $0["gid"]?.string }, [gids[2], gids[3]])
        // A negative offset counts from the end, backwards.
        XCTAssertEqual(f.result("aria2.tellWaiting", [-1, 2, ["gid"]]).array?.compactMap { $0["gid"]?.string }, [gids[4], gids[3]])
        XCTAssertEqual(f.result("aria2.tellStopped", [0, 10]).array?.count, 0)
        let stat = f.result("aria2.getGlobalStat")
        XCTAssertEqual(stat["numActive"], "1")
        XCTAssertEqual(stat["numWaiting"], "4")
        XCTAssertEqual(f.result("aria2.pauseAll"), "OK")
        XCTAssertEqual(f.result("aria2.tellWaiting", [0, 10]).array?.compactMap { $0["status"]?.string }, Array(repeating: "paused", count: 5))
        XCTAssertEqual(f.result("aria2.unpauseAll"), "OK")
        XCTAssertEqual(f.result("aria2.getGlobalStat")["numActive"], "1")
        XCTAssertEqual(f.errorMessage("aria2.changePosition", [.string(gids[2]), 0, "POS_NOWHERE"]), "Illegal argument.")
        XCTAssertEqual(f.errorCode("aria2.changePosition", [.string(gids[0]), 0, "POS_SET"]), 1, "an active download is not in the queue")
    }

    /// changePosition moves a download in the waiting queue as aria2 does, and the next free
    /// slot starts the download now first in it.
    func testChangePositionChangesWhatStartsNext() {
        let f = RPCFixture(limit: 1)
        let urls = (0..<5).map { "http://127.0.0.1:1/q\($0)" }
        let gids = urls.map { f.add($0) }
        func queue() -> [String] { f.result("aria2.tellWaiting", [0, 10, ["gid"]]).array?.compactMap { $0["gid"]?.string } ?? [] }
        XCTAssertEqual(queue(), [gids[1], gids[2], gids[3], gids[4]])
        XCTAssertEqual(f.result("aria2.changePosition", [.string(gids[4]), 0, "POS_SET"]).integer, 0)
        XCTAssertEqual(queue(), [gids[4], gids[1], gids[2], gids[3]])
        XCTAssertEqual(f.result("aria2.changePosition", [.string(gids[1]), -1, "POS_END"]).integer, 2)
        XCTAssertEqual(queue(), [gids[4], gids[2], gids[1], gids[3]])
        XCTAssertEqual(f.result("aria2.changePosition", [.string(gids[3]), -2, "POS_CUR"]).integer, 1)
        XCTAssertEqual(queue(), [gids[4], gids[3], gids[2], gids[1]])
        XCTAssertEqual(f.result("aria2.changePosition", [.string(gids[3]), 99, "POS_CUR"]).integer, 3, "kept inside the queue")
        XCTAssertEqual(queue(), [gids[4], gids[2], gids[1], gids[3]])
        // A new download at position 0 goes first; a paused one keeps its place.
        let first = f.result("aria2.addUri", [[.string("http://127.0.0.1:1/new")], [:], 0]).string!
        XCTAssertEqual(f.result("aria2.pause", [.string(gids[4])]).string, gids[4])
        XCTAssertEqual(queue(), [first, gids[4], gids[2], gids[1], gids[3]])
        // Each download that ends (here: fails) frees the slot for the next.
        let urlOf = Dictionary(uniqueKeysWithValues: zip(gids + [first], urls + ["http://127.0.0.1:1/new"]))
        var started: [String] = []
        for _ in 0..<4 {
            let active = f.result("aria2.tellActive", [["gid"]]).array?.compactMap { $0["gid"]?.string } ?? []
            started += active
            for gid in active { f.engine.fail(urlOf[gid]!, .timeout) }
        }
        XCTAssertEqual(started, [gids[0], first, gids[2], gids[1]])
    }

    func testUrisFilesServersAndOptions() {
        let f = RPCFixture()
        let url = "http://127.0.0.1:1/o.bin"
        let gid = f.add(url, ["checksum": .string("sha-256=" + String(repeating: "ab", count: 32))])
        XCTAssertEqual(f.result("aria2.getUris", [.string(gid)]), [["uri": .string(url), "status": "used"]])
        XCTAssertEqual(f.result("aria2.getFiles", [.string(gid)]).array?.first?["index"], "1")
        XCTAssertEqual(f.result("aria2.getServers", [.string(gid)]).array?.first?["servers"]?.array?.first?["uri"]?.string, url)
        let options = f.result("aria2.getOption", [.string(gid)])
        XCTAssertEqual(options["checksum"]?.string, "sha-256=" + String(repeating: "ab", count: 32))
        XCTAssertEqual(f.result("aria2.changeOption", [.string(gid), ["max-download-limit": "500K"]]), "OK")
        XCTAssertEqual(f.manager.task(url)?.options.rateLimit, 500_000)
        XCTAssertEqual(f.engine.rateLimits[url], .some(500_000))
        XCTAssertEqual(f.result("aria2.getOption", [.string(gid)])["max-download-limit"], "500000")
        XCTAssertEqual(f.errorCode("aria2.changeOption", [.string(gid), ["no-such-option": "1"]]), 1)
        XCTAssertEqual(f.errorCode("aria2.addUri", [[.string("http://127.0.0.1:1/x")], ["checksum": "sha-256=zz"]]), 1)
        XCTAssertNil(f.manager.task("http://127.0.0.1:1/x"), "a bad option adds nothing")
        // changeUri: nothing asked, nothing changed (mirrors: Aria2MirrorTests).
        XCTAssertEqual(f.result("aria2.changeUri", [.string(gid), 1, [], []]), [0, 0])
    }

    func testGlobalOptions() {
        let f = RPCFixture()
        XCTAssertEqual(f.result("aria2.changeGlobalOption", [["max-concurrent-downloads": "5", "max-overall-download-limit": "2M",
                                                               "max-download-limit": "100K"]]), "OK")
        XCTAssertEqual(f.manager.maxDownloadCount, 5)
        XCTAssertEqual(f.manager.settings.globalRateLimit, 2_000_000)
        let global = f.result("aria2.getGlobalOption")
        XCTAssertEqual(global["max-concurrent-downloads"], "5")
        XCTAssertEqual(global["max-overall-download-limit"], "2000000")
        XCTAssertEqual(global["max-download-limit"], "100000")
        // The run's max-download-limit is what a new download gets.
        let gid = f.add("http://127.0.0.1:1/limited")
        XCTAssertEqual(f.result("aria2.getOption", [.string(gid)])["max-download-limit"], "100000")
        // Nothing applies when one value is wrong.
        XCTAssertEqual(f.errorCode("aria2.changeGlobalOption", [["max-concurrent-downloads": "9", "max-overall-download-limit": "fast"]]), 1)
        XCTAssertEqual(f.manager.maxDownloadCount, 5)
        XCTAssertEqual(f.errorCode("aria2.changeGlobalOption", [["rpc-secret": "x"]]), 1)
    }

    /// One value from a caller used to end `tdl serve` (an overflow trap in the rate parser);
    /// every number is now an error answer, and nothing applies.
    func testNumbersOutOfRangeAreErrorsNotTraps() {
        let f = RPCFixture()
        for (name, value) in [("max-overall-download-limit", "99999999999G"), ("max-download-limit", "9223372036854775807"),
                              ("max-overall-download-limit", "0.0001K"), ("max-concurrent-downloads", "99999999999999999999"),
                              ("split", "-9223372036854775808"), ("max-connection-per-server", "1e400")] {
            let answer = f.response("aria2.changeGlobalOption", [[name: .string(value)]])
            XCTAssertEqual(answer["error"]?["code"]?.integer, 1, "\(name)=\(value): \(answer.text)")
        }
        XCTAssertTrue(f.response("aria2.changeGlobalOption", [["max-overall-download-limit": "99999999999G"]])["error"]?["message"]?
            .string?.contains("too large") ?? false)
        XCTAssertNil(f.manager.settings.globalRateLimit)
        XCTAssertEqual(f.errorCode("aria2.addUri", [["http://127.0.0.1:1/x"], ["max-download-limit": "99999999999G"]]), 1)
        // Positions and counts at the ends of Int: kept inside the queue, never added past it.
        for name in ["a", "b", "c"] { _ = f.add("http://127.0.0.1:1/\(name)") }
        let first = f.add("http://127.0.0.1:1/d")  // waiting: two run at once
        let most = JSON.string(String(Int.max)), least = JSON.string(String(Int.min))
        for how: JSON in ["POS_CUR", "POS_END", "POS_SET"] {
            XCTAssertNotNil(f.response("aria2.changePosition", [.string(first), most, how])["result"], "\(how)")
            XCTAssertNotNil(f.response("aria2.changePosition", [.string(first), least, how])["result"], "\(how)")
        }
        XCTAssertNotNil(f.response("aria2.tellWaiting", [1, most])["result"])
        XCTAssertNotNil(f.response("aria2.tellWaiting", [least, most])["result"])
        XCTAssertNotNil(f.response("aria2.tellStopped", [1, most])["result"])
    }

    /// A caller's agent, referer or header with CR, LF or NUL would add headers of its own.
    func testHeaderInjectionIsRefused() {
        let f = RPCFixture()
        for options: JSON in [["user-agent": "a\r\nX-Injected: 1"], ["referer": "http://a/\nX-Injected: 1"],
                              ["header": ["X-A: 1\r\nX-Injected: 1"]], ["header": "X-A: 1\u{0}"]] {
            let answer = f.response("aria2.addUri", [["http://127.0.0.1:1/inj"], options])
            XCTAssertEqual(answer["error"]?["code"]?.integer, 1, answer.text)
            XCTAssertTrue(answer["error"]?["message"]?.string?.contains("CR, LF and NUL are refused") ?? false, answer.text)
        }
        XCTAssertNil(f.manager.task("http://127.0.0.1:1/inj"))
    }

    /// A caller's `dir` in tdl's home (or a link to it) would let a server's name be one of
    /// the session's files: refused, for a download and for the session's folder.
    func testTheHomeIsNeverADownloadFolder() throws {
        let f = RPCFixture()
        let home = f.folder + "/home"
        try FileManager.default.createDirectory(atPath: home, withIntermediateDirectories: true)
        try FileManager.default.createSymbolicLink(atPath: f.folder + "/link", withDestinationPath: home)
        f.manager.reservedFolder = ReservedFolder(home)
        for dir in [home, home + "/sub", f.folder + "/link"] {
            XCTAssertEqual(f.errorCode("aria2.addUri", [["http://127.0.0.1:1/j"], ["dir": .string(dir)]]), 1, dir)
            XCTAssertEqual(f.errorCode("aria2.changeGlobalOption", [["dir": .string(dir)]]), 1, dir)
        }
        XCTAssertNil(f.manager.task("http://127.0.0.1:1/j"))
        XCTAssertNotEqual(f.add("http://127.0.0.1:1/j", ["dir": .string(f.folder + "/elsewhere")]), "")
    }

    func testPurgeAndRemoveDownloadResultForgetStoppedDownloads() {
        let f = RPCFixture(limit: 3)
        let done = f.add("http://127.0.0.1:1/done")
        let failed = f.add("http://127.0.0.1:1/failed")
        let running = f.add("http://127.0.0.1:1/running")
        let path = (f.folder as NSString).appendingPathComponent("done")
        XCTAssertTrue(FileManager.default.createFile(atPath: path, contents: Data(count: 3)))
        f.engine.finish("http://127.0.0.1:1/done", path: path, size: 3)
        f.engine.fail("http://127.0.0.1:1/failed", .timeout)
        XCTAssertEqual(f.errorCode("aria2.removeDownloadResult", [.string(running)]), 1)
        XCTAssertEqual(f.result("aria2.removeDownloadResult", [.string(failed)]), "OK")
        XCTAssertNil(f.manager.task("http://127.0.0.1:1/failed"))
        XCTAssertEqual(f.errorCode("aria2.tellStatus", [.string(failed)]), 1)
        XCTAssertEqual(f.result("aria2.purgeDownloadResult"), "OK")
        XCTAssertNil(f.manager.task("http://127.0.0.1:1/done"))
        XCTAssertTrue(FileManager.default.fileExists(atPath: path), "a finished file stays")
        XCTAssertEqual(f.status(running), "active")
        XCTAssertEqual(f.errorCode("aria2.tellStatus", [.string(done)]), 1)
    }

    func testErrorsCodesAndTheToken() {
        let f = RPCFixture(secret: "s3cret")
        func raw(_ text: String) -> JSON { try! JSON.parse(f.rpc.answer(to: Data(text.utf8))) }
        XCTAssertEqual(raw("{not json")["error"]?["code"]?.integer, -32700)
        // An empty batch is answered with an empty one, as aria2 does (aria2tui sends one).
        XCTAssertEqual(raw("[]"), .array([]))
        // An unknown method is aria2's error 1, named (aria2 never sends -32601).
        let unknown = raw(#"{"jsonrpc":"2.0","id":7,"method":"aria2.nothing","params":["token:s3cret"]}"#)["error"]
        XCTAssertEqual(unknown?["code"]?.integer, 1)
        XCTAssertEqual(unknown?["message"], "No such method: aria2.nothing")
        XCTAssertEqual(raw(#"{"jsonrpc":"2.0","id":7,"method":"aria2.nothing"}"#)["id"]?.integer, 7)
        XCTAssertEqual(raw(#"{"jsonrpc":"2.0","id":1,"method":"aria2.getVersion","params":{"a":1}}"#)["error"]?["code"]?.integer, -32602)
        XCTAssertEqual(f.errorMessage("aria2.getVersion"), "Unauthorized")
        XCTAssertEqual(f.errorMessage("aria2.getVersion", ["token:wrong"]), "Unauthorized")
        XCTAssertEqual(f.result("aria2.getVersion", ["token:s3cret"])["version"], "test")
        // system.* need no token.
        XCTAssertEqual(f.result("system.listNotifications").array?.count, Aria2RPC.notifications.count)
        XCTAssertTrue(f.result("system.listMethods").array?.contains("aria2.addUri") == true)
        // Bad parameters are a method's own error, as aria2 answers them: code 1 and its message.
        XCTAssertEqual(f.errorCode("aria2.tellStatus", ["token:s3cret", "nothex"]), 1)
        XCTAssertEqual(f.errorMessage("aria2.tellStatus", ["token:s3cret", "nothex"]), "Invalid GID nothex")
        XCTAssertEqual(f.errorMessage("aria2.tellStatus", ["token:s3cret"]), "The parameter at 0 is required but missing.")
        XCTAssertEqual(f.errorCode("aria2.tellStatus", ["token:s3cret", "0123456789abcdef"]), 1)
        XCTAssertEqual(f.errorMessage("aria2.tellWaiting", ["token:s3cret", "a", 1]), "The parameter at 0 has wrong type.")
        XCTAssertEqual(f.errorCode("aria2.addTorrent", ["token:s3cret", "AAAA"]), 1)
        XCTAssertEqual(f.errorCode("aria2.addMetalink", ["token:s3cret", "AAAA"]), 1)
        XCTAssertEqual(f.errorCode("aria2.addUri", ["token:s3cret", ["not a url"]]), 1)
        XCTAssertEqual(f.errorMessage("aria2.addUri", ["token:s3cret", []]), "URI is not provided.")
        XCTAssertEqual(f.errorMessage("aria2.addUri", ["token:s3cret", ["http://127.0.0.1:1/p"], [:], -1]), "Position must be greater than or equal to 0.")
        XCTAssertEqual(f.errorCode("aria2.addUri", ["token:s3cret", ["http://127.0.0.1:1/x"], ["header": ["Range: bytes=0-"]]]), 1, "tdl's own header")
        // A batch answers each call.
        let batch = raw(#"[{"jsonrpc":"2.0","id":1,"method":"system.listNotifications"},{"jsonrpc":"2.0","id":2,"method":"aria2.getVersion"}]"#)
        XCTAssertEqual(batch.array?.count, 2)
        XCTAssertEqual(batch.array?[1]["error"]?["message"], "Unauthorized")
    }

    func testMulticallAnswersEachCallWithItsTokenOrItsFault() {
        let f = RPCFixture(secret: "k")
        let calls: JSON = [
            ["methodName": "aria2.addUri", "params": ["token:k", ["http://127.0.0.1:1/m"]]],
            ["methodName": "aria2.getVersion", "params": ["token:bad"]],
            ["methodName": "aria2.tellActive", "params": ["token:k", ["gid"]]],
            ["methodName": "system.multicall", "params": [[]]],
            ["methodName": "aria2.nothing", "params": []],
        ]
        let results = f.result("system.multicall", [calls]).array ?? []
        XCTAssertEqual(results.count, 5)
        XCTAssertEqual(results[0], [.string(Aria2Terms.gid(of: "http://127.0.0.1:1/m"))])
        XCTAssertEqual(results[1]["message"], "Unauthorized")
        XCTAssertEqual(results[2].array?.first?.array?.first?["gid"]?.string, Aria2Terms.gid(of: "http://127.0.0.1:1/m"))
        XCTAssertEqual(results[3]["code"]?.integer, 1)
        XCTAssertEqual(results[4]["code"]?.integer, 1)
        XCTAssertEqual(results[4]["message"], "No such method: aria2.nothing")
    }

    func testSessionMethodsAndShutdown() {
        let f = RPCFixture()
        XCTAssertEqual(f.result("aria2.getSessionInfo")["sessionId"]?.string?.count, 40)
        XCTAssertEqual(f.result("aria2.saveSession"), "OK")
        XCTAssertNil(f.rpc.shutdownRequested)
        XCTAssertEqual(f.result("aria2.shutdown"), "OK")
        XCTAssertEqual(f.rpc.shutdownRequested, false)
        XCTAssertEqual(f.result("aria2.forceShutdown"), "OK")
        XCTAssertEqual(f.rpc.shutdownRequested, true)
    }

    func testNotificationsFollowTheStatus() {
        let f = RPCFixture(limit: 1)
        let a = f.add("http://127.0.0.1:1/n1")
        let b = f.add("http://127.0.0.1:1/n2")
        _ = f.result("aria2.pause", [.string(b)])
        let path = (f.folder as NSString).appendingPathComponent("n1")
        XCTAssertTrue(FileManager.default.createFile(atPath: path, contents: Data(count: 1)))
        f.engine.finish("http://127.0.0.1:1/n1", path: path, size: 1)
        _ = f.result("aria2.unpause", [.string(b)])
        f.engine.fail("http://127.0.0.1:1/n2", .timeout)
        f.manager.resumeTasks(["http://127.0.0.1:1/n2"])
        _ = f.result("aria2.remove", [.string(b)])
        let told = f.notifications.map { "\($0.method.dropFirst(6)) \($0.gid == a ? "a" : "b")" }
        XCTAssertEqual(told, ["onDownloadStart a", "onDownloadPause b", "onDownloadComplete a", "onDownloadStart b",
                              "onDownloadError b", "onDownloadStart b", "onDownloadStop b"])
        XCTAssertEqual(f.notifications.first?.message.text,
                       #"{"jsonrpc":"2.0","method":"aria2.onDownloadStart","params":[{"gid":"\#(a)"}]}"#)
    }

    /// aria2 tells nothing for an add with pause=true (tdl started it, then paused it, and told both).
    func testAnAddWithPauseTellsNoStartOrPause() {
        let f = RPCFixture(limit: 2)
        let gid = f.add("http://127.0.0.1:1/quiet", ["pause": "true"])
        XCTAssertEqual(f.status(gid), "paused")
        XCTAssertEqual(f.notifications, [])
        _ = f.result("aria2.unpause", [.string(gid)])
        XCTAssertEqual(f.notifications.map(\.method), ["aria2.onDownloadStart"])
    }

    /// As aria2: the add is a new download with a new GID; the old GID stays a removed one.
    func testAskingForAURLAgainGivesANewGIDAndBringsItBack() {
        let f = RPCFixture()
        let gid = f.add("http://127.0.0.1:1/again")
        _ = f.result("aria2.remove", [.string(gid)])
        XCTAssertEqual(f.status(gid), "removed")
        let again = f.add("http://127.0.0.1:1/again")
        XCTAssertNotEqual(again, gid)
        XCTAssertEqual(f.status(again), "active")
        XCTAssertEqual(f.status(gid), "removed")
        // pause=true adds it paused.
        let paused = f.add("http://127.0.0.1:1/held", ["pause": "true"])
        XCTAssertEqual(f.status(paused), "paused")
    }

    /// Even with the secret: no local URLs, no folder outside the session's (`..` and
    /// symlinks resolved), no name that is a path, no option that runs a command; passwords
    /// in URLs are not read back.
    func testWhatACallerMayAskIsBoundedEvenWithTheSecret() throws {
        let f = RPCFixture(secret: "k")
        let token: JSON = "token:k"
        let outside = f.folder + "-outside"
        try FileManager.default.createDirectory(atPath: outside, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(atPath: outside) }
        try FileManager.default.createSymbolicLink(atPath: f.folder + "/link", withDestinationPath: outside)
        func refusal(_ method: String, _ params: [JSON]) -> String {
            let answer = f.response(method, [token] + params)
            XCTAssertEqual(answer["error"]?["code"]?.integer, 1, "\(method) \(params): \(answer.text)")
            return answer["error"]?["message"]?.string ?? ""
        }
        XCTAssertTrue(refusal("aria2.addUri", [["file:///etc/passwd"]]).contains("http"))
        for dir in [outside, f.folder + "/../" + (outside as NSString).lastPathComponent, f.folder + "/link", f.folder + "/link/new",
                    NSHomeDirectory() + "/.config/autostart"] {
            XCTAssertTrue(refusal("aria2.addUri", [["http://127.0.0.1:1/d"], ["dir": .string(dir)]]).contains("outside"), dir)
            XCTAssertTrue(refusal("aria2.changeGlobalOption", [["dir": .string(dir)]]).contains("outside"), dir)
        }
        XCTAssertFalse(FileManager.default.fileExists(atPath: outside + "/new"), "no folder made outside")
        XCTAssertEqual(f.manager.downloadDirectory, f.folder, "the session's folder stays")
        _ = refusal("aria2.addUri", [["http://127.0.0.1:1/d"], ["out": "../escaped"]])
        for hook in ["on-download-complete", "on-download-error"] {
            XCTAssertTrue(refusal("aria2.addUri", [["http://127.0.0.1:1/d"], [hook: "/bin/sh"]]).contains("runs a command"))
            XCTAssertTrue(refusal("aria2.changeGlobalOption", [[hook: "/bin/sh"]]).contains("runs a command"))
        }
        XCTAssertTrue(f.manager.allTasksSet.isEmpty, "nothing refused was added")
        // Inside the session's folder: allowed, a new sub-folder made.
        let inside = f.result("aria2.addUri", [token, ["http://127.0.0.1:1/in"], ["dir": .string(f.folder + "/sub/../new")]]).string ?? ""
        XCTAssertEqual(f.result("aria2.getOption", [token, .string(inside)])["dir"]?.string,
                       URL(fileURLWithPath: f.folder + "/new").resolvingSymlinksInPath().path)
        // A URL's password is "***" in what the calls answer.
        let gid = f.result("aria2.addUri", [token, ["http://user:hunter2@127.0.0.1:1/p"]]).string ?? ""
        for answer in [f.result("aria2.tellStatus", [token, .string(gid)]), f.result("aria2.getUris", [token, .string(gid)]),
                       f.result("aria2.tellActive", [token]), f.result("aria2.getServers", [token, .string(gid)])] {
            XCTAssertFalse(answer.text.contains("hunter2"), answer.text)
        }
        XCTAssertTrue(f.result("aria2.getUris", [token, .string(gid)]).text.contains("user:***@"))
        // shutdown stays allowed.
        XCTAssertEqual(f.result("aria2.shutdown", [token]), "OK")
    }
}
