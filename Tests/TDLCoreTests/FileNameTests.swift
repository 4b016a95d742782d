import TDLCore
import XCTest

/// Names guessed from URLs: what a user sees in the list and on disk.
final class FileNameTests: XCTestCase {
    func testTheLastPathSegmentIsTheName() {
        XCTAssertEqual(URLCheck.suggestedFileName(for: "https://example.com/pub/linux-6.1.tar.xz"), "linux-6.1.tar.xz")
        XCTAssertEqual(URLCheck.suggestedFileName(for: "http://127.0.0.1:8080/a/b.iso?token=x/y.zip#part"), "b.iso")
        XCTAssertEqual(URLCheck.suggestedFileName(for: "file:///srv/data/report.pdf"), "report.pdf")
        XCTAssertEqual(URLCheck.suggestedFileName(for: "ftp://user:pw@ftp.example.org/dir/file.bin"), "file.bin")
        XCTAssertEqual(URLCheck.suggestedFileName(for: "https://example.com/dir/sub//"), "sub")
        XCTAssertEqual(URLCheck.suggestedFileName(for: "https://example.com/a?next=https://other.org/b.zip"), "a")
    }

    func testNoPathGivesDownload() {
        XCTAssertEqual(URLCheck.suggestedFileName(for: "https://example.com"), "download")
        XCTAssertEqual(URLCheck.suggestedFileName(for: "https://example.com/"), "download")
        XCTAssertEqual(URLCheck.suggestedFileName(for: "https://example.com/?q=1"), "download")
        XCTAssertEqual(URLCheck.suggestedFileName(for: "http://127.0.0.1:8080#top"), "download")
    }

    func testPercentEncodingIsDecodedExactlyOnce() {
        XCTAssertEqual(URLCheck.suggestedFileName(for: "https://example.com/my%20file.txt"), "my file.txt")
        XCTAssertEqual(URLCheck.suggestedFileName(for: "https://example.com/%E4%B8%8B%E8%BD%BD.zip"), "下载.zip")
        XCTAssertEqual(URLCheck.suggestedFileName(for: "https://example.com/100%2525.txt"), "100%25.txt")
    }

    func testHostileSegmentsBecomeSafeNames() {
        // An encoded slash cannot climb out of the folder; control characters and leading dots go.
        XCTAssertEqual(URLCheck.suggestedFileName(for: "https://example.com/..%2F..%2Fetc%2Fpasswd"), "passwd")
        XCTAssertEqual(URLCheck.suggestedFileName(for: "https://example.com/%1B%5B2J.bashrc"), "[2J.bashrc")
        XCTAssertEqual(URLCheck.suggestedFileName(for: "https://example.com/..hidden"), "hidden")
        XCTAssertEqual(URLCheck.suggestedFileName(for: "https://example.com/%20%20name.txt%20"), "name.txt")
        XCTAssertEqual(URLCheck.suggestedFileName(for: "https://example.com/%2E%2E"), "download")
    }

    func testAPasswordInAURLIsNotShown() {
        XCTAssertEqual(URLCheck.withoutPassword("https://bob:hunter2@example.com/a.iso"), "https://bob:***@example.com/a.iso")
        XCTAssertEqual(URLCheck.withoutPassword("ftp://bob:p@ss:w@127.0.0.1:21/x?y=a:b@c"), "ftp://bob:***@127.0.0.1:21/x?y=a:b@c")
        XCTAssertEqual(URLCheck.withoutPassword("http://bob@example.com/a"), "http://bob@example.com/a", "no password")
        XCTAssertEqual(URLCheck.withoutPassword("http://example.com/a?mail=me@x.org:1"), "http://example.com/a?mail=me@x.org:1")
        XCTAssertEqual(URLCheck.withoutPassword("not a url"), "not a url")
    }
}
