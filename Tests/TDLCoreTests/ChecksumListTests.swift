import XCTest
import TDLCore

final class ChecksumListTests: XCTestCase {
    let sha256 = String(repeating: "ab", count: 32), md5 = String(repeating: "0f", count: 16)

    func testAria2SpellingsAreAccepted() {
        XCTAssertEqual(Checksum("sha-256=" + sha256), Checksum("sha256=" + sha256))
        XCTAssertEqual(Checksum("SHA-1=" + String(repeating: "1", count: 40))?.algorithm, .sha1)
        XCTAssertEqual(Checksum("sha-512=" + String(repeating: "2", count: 128))?.description, "sha512=" + String(repeating: "2", count: 128))
        XCTAssertEqual(Checksum("md5=" + md5)?.algorithm, .md5)
        XCTAssertNil(Checksum("sha-256=" + md5))
    }

    func testCoreutilsAndBSDFormats() {
        let list = ChecksumList(text: """
            \(sha256)  plain.iso
            \(sha256) *binary.iso
            \(md5)  ./sub/dir/md5.txt
            SHA256 (bsd.tar.gz) = \(sha256)
            # a comment

            not a line at all
            """)
        XCTAssertEqual(list.checksum(forFileName: "plain.iso"), Checksum("sha256=" + sha256))
        XCTAssertEqual(list.checksum(forFileName: "binary.iso"), Checksum("sha256=" + sha256))
        XCTAssertEqual(list.checksum(forFileName: "md5.txt"), Checksum("md5=" + md5))
        XCTAssertEqual(list.checksum(forFileName: "bsd.tar.gz"), Checksum("sha256=" + sha256))
        XCTAssertNil(list.checksum(forFileName: "other.iso"))
        XCTAssertEqual(list.problems, ["line 7: not a checksum line"])
        XCTAssertNil(list.unnamed)
    }

    func testADigestAloneHasNoName() {
        let list = ChecksumList(text: sha256 + "\n")
        XCTAssertEqual(list.unnamed, Checksum("sha256=" + sha256))
        XCTAssertFalse(list.isEmpty)
    }
}
