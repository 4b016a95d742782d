import Foundation
import TDLCore
import TDLTestSupport
import XCTest

/// file:// copies through libcurl, which cannot pause them.
final class FileURLDownloadTests: XCTestCase {
    /// A copy longer than the loop's turn (30 ms) was paused by it, and curl failed it with
    /// "Failed writing received data to disk/application".
    func testACopyLongerThanATurnEndsIdentical() throws {
        let source = TemporaryDirectory("tdl-source")
        let path = source.file("large.bin")
        var bytes = Data(count: 200_000_000)
        bytes.withUnsafeMutableBytes { buffer in
            for k in stride(from: 0, to: buffer.count, by: 4096) { buffer[k] = UInt8(truncatingIfNeeded: k / 4096) }
        }
        try bytes.write(to: URL(fileURLWithPath: path))
        let harness = EngineHarness(connections: 1)
        let task = harness.download(["file://" + path]).first
        XCTAssertEqual(task?.state, .finished, "\(String(describing: task?.failReason))")
        XCTAssertEqual(try Processes.sha256(ofFile: harness.downloads.file("large.bin")), try Processes.sha256(ofFile: path))
    }
}
