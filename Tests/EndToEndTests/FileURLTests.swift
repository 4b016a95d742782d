import Foundation
import TDLTestSupport
import XCTest

/// `tdl get file://…` copies a local file the same careful way.
final class FileURLTests: XCTestCase {
    func testFileURLDownloadIsByteIdentical() throws {
        let source = TemporaryDirectory("tdl-file-source")
        let path = try TestFiles.make(source.file("local.bin"), size: 1_500_000, seed: 43)
        let home = TemporaryDirectory(), downloads = TemporaryDirectory()
        let result = try Processes.tdl(["get", "-q", "-d", downloads.path, "file://" + path], home: home.path)
        XCTAssertEqual(result.status, 0, result.stderr)
        XCTAssertEqual(try Processes.sha256(ofFile: downloads.file("local.bin")), try Processes.sha256(ofFile: path))
    }
}
