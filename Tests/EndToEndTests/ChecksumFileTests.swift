import Foundation
import TDLCore
import TDLTestSupport
import XCTest

/// `--checksum-file` and `--checksum-url`: a file the sums list is verified, one they do not
/// list is said to be unverified, and a wrong sum fails only its own file.
final class ChecksumFileTests: XCTestCase {
    static let site = TemporaryDirectory("tdl-sums-site")
    /// Made once for the class, kept behind a lock (its tests may run on other threads).
    static var nginx: LoopbackNginx! { get { nginxStore.get() } set { nginxStore.set(newValue) } }
    private static let nginxStore = Locked<LoopbackNginx?>(nil)
    let home = TemporaryDirectory(), downloads = TemporaryDirectory()

    override class func setUp() {
        do {
            for (index, name) in ["right.bin", "wrong.bin", "unlisted.bin"].enumerated() {
                try TestFiles.make(site.file(name), size: 200_000 + index, seed: UInt64(90 + index))
            }
            let right = try Processes.sha256(ofFile: site.file("right.bin"))
            try "\(right) *right.bin\n".write(toFile: site.file("right.bin.sha256"), atomically: true, encoding: .utf8)
            try "\(String(repeating: "0", count: 64))  wrong.bin\n".write(toFile: site.file("wrong.bin.sha256"), atomically: true, encoding: .utf8)
            nginx = try LoopbackNginx(root: site.path)
        } catch {
            XCTFail("\(error)")
        }
    }

    override class func tearDown() { nginx = nil }

    func get(_ arguments: [String]) throws -> Processes.Result {
        try Processes.tdl(["get", "-q", "-d", downloads.path] + arguments, home: home.path, environment: ["TDL_RETRY_BASE": "0.05"])
    }

    func testASumFileVerifiesWhatItListsAndNamesWhatItDoesNot() throws {
        let sums = downloads.file("../\(UUID().uuidString).SHA256SUMS")
        defer { try? FileManager.default.removeItem(atPath: sums) }
        try """
            \(try Processes.sha256(ofFile: Self.site.file("right.bin")))  right.bin
            \(String(repeating: "1", count: 64)) *wrong.bin
            """.write(toFile: sums, atomically: true, encoding: .utf8)
        let result = try get(["--checksum-file", sums] + ["right.bin", "wrong.bin", "unlisted.bin"].map { Self.nginx.url($0) })
        XCTAssertEqual(result.status, 1, result.stderr)
        XCTAssertTrue(result.stderr.contains("\(Self.nginx.url("wrong.bin")): checksum mismatch"), result.stderr)
        XCTAssertTrue(result.stderr.contains("unlisted.bin: not verified"), result.stderr)
        XCTAssertFalse(result.stderr.contains("right.bin:"), result.stderr)
        XCTAssertEqual(try Processes.sha256(ofFile: downloads.file("right.bin")), try Processes.sha256(ofFile: Self.site.file("right.bin")))
        XCTAssertEqual(try Processes.sha256(ofFile: downloads.file("unlisted.bin")), try Processes.sha256(ofFile: Self.site.file("unlisted.bin")))
        XCTAssertFalse(FileManager.default.fileExists(atPath: downloads.file("wrong.bin")))
    }

    func testTheSumFileIsFetchedFirst() throws {
        let right = try get([Self.nginx.url("right.bin"), "--checksum-url", Self.nginx.url("right.bin.sha256")])
        XCTAssertEqual(right.status, 0, right.stderr)
        XCTAssertFalse(right.stderr.contains("not verified"), right.stderr)
        let wrong = try get([Self.nginx.url("wrong.bin"), "--checksum-url", Self.nginx.url("wrong.bin.sha256")])
        XCTAssertEqual(wrong.status, 1, wrong.stderr)
        XCTAssertTrue(wrong.stderr.contains("checksum mismatch"), wrong.stderr)
        let missing = try get([Self.nginx.url("right.bin"), "--checksum-url", Self.nginx.url("nothing.sha256")])
        XCTAssertEqual(missing.status, 2, missing.stderr)
        XCTAssertTrue(missing.stderr.contains("404"), missing.stderr)
    }

    func testAria2sSpellingInAnInputFile() throws {
        let input = downloads.file("../\(UUID().uuidString).txt")
        defer { try? FileManager.default.removeItem(atPath: input) }
        try "\(Self.nginx.url("right.bin"))\n  checksum=sha-256=\(try Processes.sha256(ofFile: Self.site.file("right.bin")))\n"
            .write(toFile: input, atomically: true, encoding: .utf8)
        let result = try get(["-i", input])
        XCTAssertEqual(result.status, 0, result.stderr)
    }
}
