@testable import TDLTransfer
import XCTest

/// Header lines read on their bytes say what the general (String) reading said.
final class HeaderLineTests: XCTestCase {
    private func read(_ text: String) -> HeaderLine? {
        Array(text.utf8).withUnsafeBytes { HeaderLine.ascii($0) }
    }

    func testStatusLines() {
        XCTAssertEqual(read("HTTP/1.1 200 OK\r\n"), .status(200))
        XCTAssertEqual(read("HTTP/2 206\r\n"), .status(206))
        XCTAssertEqual(read("  HTTP/1.0   404   Not Found\r\n"), .status(404), "spaces between words count once")
        XCTAssertEqual(read("HTTP/1.1\r\n"), .status(0))
        XCTAssertEqual(read("HTTP/1.1 abc\r\n"), .status(0))
    }

    func testFieldsAreLowercasedAndTrimmed() {
        XCTAssertEqual(read("Content-Length: 102400\r\n"), .field(name: "content-length", value: "102400"))
        XCTAssertEqual(read("ETag:\t\"abc\"  \r\n"), .field(name: "etag", value: "\"abc\""))
        XCTAssertEqual(read("X-Empty:\r\n"), .field(name: "x-empty", value: ""))
        XCTAssertEqual(read("Location: http://h/a:b\r\n"), .field(name: "location", value: "http://h/a:b"), "the first colon splits")
        XCTAssertEqual(read("Odd Name : v\r\n"), .field(name: "odd name ", value: "v"), "the name is not trimmed, as before")
    }

    func testOtherLinesAndNonASCII() {
        XCTAssertEqual(read("\r\n"), .other)
        XCTAssertEqual(read("no colon here\r\n"), .other)
        XCTAssertNil(read("Content-Disposition: attachment; filename=\"caf\u{E9}.txt\"\r\n"), "non-ASCII goes the general way")
    }
}
