import Foundation
import TDLTestSupport
import XCTest

/// `tdl get -i`: aria2c-style lists of URLs, as people write them by hand or on Windows.
final class InputFileTests: XCTestCase {
    static let site = TemporaryDirectory("tdl-input-site")
    static var nginx: LoopbackNginx!
    static var setUpError: Error?
    let home = TemporaryDirectory(), downloads = TemporaryDirectory(), inputs = TemporaryDirectory()

    override class func setUp() {
        do {
            for (index, name) in ["a.bin", "b.bin", "c.bin", "d.bin", "e.bin"].enumerated() {
                try TestFiles.make(site.file(name), size: 50_000 + index * 1_000, seed: UInt64(70 + index))
            }
            nginx = try LoopbackNginx(root: site.path)
        } catch {
            setUpError = error
        }
    }

    override func setUpWithError() throws {
        if let error = Self.setUpError { throw error }
    }

    override class func tearDown() { nginx = nil }

    func assertIdentical(_ path: String, to name: String, line: UInt = #line) throws {
        XCTAssertEqual(try Processes.sha256(ofFile: path), try Processes.sha256(ofFile: Self.site.file(name)), line: line)
    }

    /// A byte order mark, line ends of "\r\n", a comment, blank lines, options under a URL and
    /// two URLs on one line: every file lands where its lines say, and the unknown option is
    /// named.
    func testAWindowsStyleFileWithCommentsAndOptions() throws {
        let other = downloads.file("other")
        try FileManager.default.createDirectory(atPath: other, withIntermediateDirectories: true)
        let lines = [
            "\u{FEFF}" + Self.nginx.url("a.bin"),
            "  out=renamed.bin",
            "# files for the weekend",
            "",
            Self.nginx.url("b.bin"),
            "\tdir=\(other)",
            "\(Self.nginx.url("c.bin")) \(Self.nginx.url("d.bin"))",
            "  colour=blue",
            Self.nginx.url("e.bin"),
        ]
        let input = inputs.file("urls.txt")
        try Data((lines.joined(separator: "\r\n") + "\r\n").utf8).write(to: URL(fileURLWithPath: input))

        let result = try Processes.tdl(["get", "-q", "-d", downloads.path, "-i", input], home: home.path)

        XCTAssertEqual(result.status, 0, result.stderr)
        XCTAssertTrue(result.stderr.contains("line 8: unknown option \"colour\""), result.stderr)
        try assertIdentical(downloads.file("renamed.bin"), to: "a.bin")
        try assertIdentical((other as NSString).appendingPathComponent("b.bin"), to: "b.bin")
        for name in ["c.bin", "d.bin", "e.bin"] { try assertIdentical(downloads.file(name), to: name) }
        let left = try FileManager.default.contentsOfDirectory(atPath: downloads.path).sorted()
        XCTAssertEqual(left, ["c.bin", "d.bin", "e.bin", "other", "renamed.bin"])
    }
}
