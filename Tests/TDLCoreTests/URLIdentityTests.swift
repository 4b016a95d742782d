import XCTest
@testable import TDLCore

/// One spelling per download: the scheme and host in lower case, no default port, no fragment.
final class URLIdentityTests: XCTestCase {
    func testSpellingsOfOneURLAreOne() {
        let same = ["HTTP://Example.ORG/a/B.iso", "http://example.org:80/a/B.iso", "http://example.org/a/B.iso#part-2",
                    "Http://EXAMPLE.org:80/a/B.iso#x"]
        for text in same { XCTAssertEqual(URLIdentity.normalized(text), "http://example.org/a/B.iso", text) }
        XCTAssertEqual(URLIdentity.normalized("https://Example.org:443/x?Q=1#f"), "https://example.org/x?Q=1")
        XCTAssertEqual(URLIdentity.normalized("ftp://HOST:21/f"), "ftp://host/f")
        XCTAssertEqual(URLIdentity.normalized("HTTP://[FE80::1]:80/x#y"), "http://[fe80::1]/x")
    }

    func testWhatAServerTellsApartStays() {
        for text in ["http://example.org/A.iso", "http://example.org:8080/a?B=C", "https://example.org:80/x",
                     "http://user:Pass@example.org/x", "file:///tmp/X.bin", "http://127.0.0.1:9/a.bin",
                     "http://example.org/%zz?%", "http://[::1]:8080/A"] {
            XCTAssertEqual(URLIdentity.normalized(text), text.replacingOccurrences(of: "#", with: ""), text)
        }
    }

    func testTheManagerAddsOneTaskForTwoSpellings() {
        let manager = DownloadManager(identifier: "t", defaultDirectory: NSTemporaryDirectory())
        let first = manager.add(["HTTP://Example.org:80/file.bin"])
        XCTAssertEqual(first.added, ["http://example.org/file.bin"])
        let again = manager.add(["http://example.org/file.bin#top"])
        XCTAssertEqual(again.added, [])
        XCTAssertEqual(again.existing, ["http://example.org/file.bin"])
        XCTAssertEqual(manager.taskCount, 1)
    }
}
