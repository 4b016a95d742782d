import Foundation
@testable import TDLCore
import XCTest

/// The byte check that skips `URLComponents` for plain http(s) URLs must never accept what the
/// full check refuses: random URLs made of every character class near its rules are checked
/// both ways.
final class PlainWebURLTests: XCTestCase {
    /// The full check alone, as `URLCheck.problem` runs it without the byte check.
    func fullCheckAccepts(_ text: String) -> Bool {
        guard let components = URLComponents(string: text), let scheme = components.scheme?.lowercased(),
              URLCheck.supportedSchemes.contains(scheme), scheme != "file",
              let host = components.percentEncodedHost, !host.isEmpty else { return false }
        return !text.unicodeScalars.contains { $0.value < 0x20 || $0.value == 0x7F || $0 == " " }
    }

    func testEveryURLTheByteCheckAcceptsTheFullCheckAcceptsToo() {
        var generator = SystemRandomNumberGenerator()
        let schemes = ["http://", "https://", "HTTP://", "http:/", "ftp://", "http//", ""]
        let hostParts = ["example.com", "a-b.c", "127.0.0.1", "", ".", "-", "xn--bcher-kva.de", "ex_ample", "[::1]", "u:p@h", "h%41"]
        let ports = ["", ":80", ":", ":65535", ":99999", ":123456", ":8a"]
        let pieces = ["/", "a", "Z", "9", "%20", "%zz", "%4", "%", "?", "#", "&", "=", ";", "~", "'", "(", "*", "@", ":", "[", "]",
                      "|", "\\", "^", "`", "{", "\"", "<", " ", "\t", "é", "%E2%82%AC", "//", ".."]
        var accepted = 0
        for _ in 0..<100_000 {
            var url = schemes.randomElement(using: &generator)! + hostParts.randomElement(using: &generator)!
                + ports.randomElement(using: &generator)!
            for _ in 0..<Int.random(in: 0...6, using: &generator) { url += pieces.randomElement(using: &generator)! }
            if PlainWebURL.matches(url) {
                accepted += 1
                XCTAssertTrue(fullCheckAccepts(url), "the byte check accepts \(url.debugDescription), the full check refuses it")
            }
        }
        XCTAssertGreaterThan(accepted, 1_000, "the byte check takes the common URLs")
    }

    func testCommonURLsTakeTheByteCheckAndOthersTheLongWay() {
        for url in ["http://127.0.0.1:9/files/1/file-0000001.bin", "https://example.com/a%20b.tar.gz?x=1&y=2", "https://h"] {
            XCTAssertTrue(PlainWebURL.matches(url), url)
            XCTAssertNil(URLCheck.problem(with: url), url)
        }
        for url in ["https://user:pw@example.com/a", "http://[::1]/a", "https://example.com/a#part", "ftp://example.com/a"] {
            XCTAssertFalse(PlainWebURL.matches(url), url)
            XCTAssertNil(URLCheck.problem(with: url), "the long way still accepts \(url)")
        }
        XCTAssertEqual(URLCheck.problem(with: "http://"), "no host")
        XCTAssertEqual(URLCheck.problem(with: "http://a b"), "contains spaces or control characters")
    }
}
