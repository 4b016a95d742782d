import Foundation
import TDLCore
import TDLTestSupport
import XCTest

/// Several URLs of one file share its segments; a mirror that dies or serves another file is
/// dropped with a note and never mixed into the file.
final class MirrorTests: XCTestCase {
    /// Made once for the class, kept behind a lock (its tests may run on other threads).
    static var servers: [FaultServer] { get { serversStore.get() } set { serversStore.set(newValue) } }
    private static let serversStore = Locked<[FaultServer]>([])
    static var setUpError: (any Error)? { get { setUpErrorStore.get() } set { setUpErrorStore.set(newValue) } }
    private static let setUpErrorStore = Locked<(any Error)?>(nil)
    let home = TemporaryDirectory(), downloads = TemporaryDirectory(), work = TemporaryDirectory()

    override class func setUp() {
        do { servers = try (0..<3).map { _ in try FaultServer() } } catch { setUpError = error }
    }

    override func setUpWithError() throws {
        if let error = Self.setUpError { throw error }
        for server in Self.servers { try server.reset() }
    }

    override class func tearDown() { servers = [] }

    static let size = 12 << 20

    func get(_ arguments: [String]) throws -> Processes.Result {
        try Processes.tdl(["get", "-q", "-d", downloads.path] + arguments, home: home.path, environment: ["TDL_RETRY_BASE": "0.05"])
    }

    func assertTheGoodFile(_ name: String, line: UInt = #line) throws {
        XCTAssertEqual(try Processes.sha256(ofFile: downloads.file(name)),
                       try Self.servers[0].sha256(name: name, size: Self.size, seed: 71), line: line)
    }

    /// The first URL is good; the second drops every answer after 1.5 MB; the third has
    /// another file of the same name and size (another ETag).
    func urls(_ name: String) -> [String] {
        let throttle = "size=\(Self.size)&rate=6000000"
        return [Self.servers[0].url("/file/\(name)?\(throttle)&seed=71"),
                Self.servers[1].url("/file/\(name)?\(throttle)&seed=71&drop_after=1500000"),
                Self.servers[2].url("/file/\(name)?\(throttle)&seed=72")]
    }

    func testADyingMirrorAndOneWithAnotherFileAreDroppedAndNeverMixedIn() throws {
        let (good, dying, other) = { (u: [String]) in (u[0], u[1], u[2]) }(urls("three.bin"))
        let result = try get(["-x", "6", good, "--mirror", dying, "--mirror", other])
        XCTAssertEqual(result.status, 0, result.stderr)
        try assertTheGoodFile("three.bin")
        XCTAssertTrue(result.stderr.contains("mirror \(other) dropped: another ETag"), result.stderr)
        XCTAssertTrue(result.stderr.contains("mirror \(dying) dropped"), result.stderr)
        XCTAssertGreaterThan(try Self.servers[1].bodyBytesSent(), 0, "the dying mirror served part of the file")
        // The task is the first URL's.
        let list = try Processes.tdl(["list"], home: home.path)
        XCTAssertTrue(list.stdout.contains("\t\(good)\n"), list.stdout)
        XCTAssertEqual(list.stdout.split(separator: "\n").count, 1, list.stdout)
    }

    /// Tab-separated URLs on one input-file line are mirrors, as aria2 reads them; all of them carry bytes.
    func testTabSeparatedMirrorsInAnInputFileShareTheSegments() throws {
        let healthy = [Self.servers[0].url("/file/tabs.bin?size=\(Self.size)&rate=6000000&seed=71"),
                       Self.servers[1].url("/file/tabs.bin?size=\(Self.size)&rate=6000000&seed=71"),
                       Self.servers[2].url("/file/tabs.bin?size=\(Self.size)&rate=6000000&seed=71")]
        let input = work.file("urls.txt")
        try (healthy.joined(separator: "\t") + "\n  split=6\n").write(toFile: input, atomically: true, encoding: .utf8)
        let result = try get(["-i", input])
        XCTAssertEqual(result.status, 0, result.stderr)
        try assertTheGoodFile("tabs.bin")
        for server in Self.servers {
            XCTAssertGreaterThan(try server.bodyBytesSent(), Self.size / 8, "each mirror carried a share")
        }
        XCTAssertFalse(result.stderr.contains("dropped"), result.stderr)
    }

    /// A mirror far slower than the others is given up (here after 1 s instead of 5) and its
    /// segments finish from the others.
    func testASlowMirrorIsDropped() throws {
        let name = "slow.bin", size = 24 << 20
        let fast = "size=\(size)&seed=73&rate=3000000"
        let slow = Self.servers[2].url("/file/\(name)?size=\(size)&seed=73&rate=100000")
        let result = try Processes.tdl(["get", "-q", "-d", downloads.path, "-x", "6", Self.servers[0].url("/file/\(name)?\(fast)"),
                                        "--mirror", Self.servers[1].url("/file/\(name)?\(fast)"), "--mirror", slow],
                                       home: home.path, environment: ["TDL_SLOW_MIRROR_SECONDS": "1"])
        XCTAssertEqual(result.status, 0, result.stderr)
        XCTAssertEqual(try Processes.sha256(ofFile: downloads.file(name)), try Self.servers[0].sha256(name: name, size: size, seed: 73))
        XCTAssertTrue(result.stderr.contains("mirror \(slow) dropped: slow"), result.stderr)
    }
}
