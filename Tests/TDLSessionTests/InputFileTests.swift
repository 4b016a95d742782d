import XCTest
import TDLSession

final class InputFileTests: XCTestCase {
    func parse(_ text: String) -> InputFile { InputFile(bytes: Array(text.utf8)) }

    func testOptionsUnderAURLApplyToThatURLOnly() {
        let input = parse("""
            https://a.example/one.iso
              dir=/srv/isos
              out=first.iso
              checksum=sha256=\(String(repeating: "ab", count: 32))
              max-download-limit=500K
            https://a.example/two.iso
            """)
        XCTAssertEqual(input.problems, [])
        XCTAssertEqual(input.entries.map(\.url), ["https://a.example/one.iso", "https://a.example/two.iso"])
        let first = input.entries[0]
        XCTAssertEqual(first.dir, "/srv/isos")
        XCTAssertEqual(first.out, "first.iso")
        XCTAssertEqual(first.checksum, "sha256=" + String(repeating: "ab", count: 32))
        XCTAssertEqual(first.maxDownloadLimit, 500 * 1024)
        let second = input.entries[1]
        XCTAssertNil(second.dir)
        XCTAssertNil(second.out)
        XCTAssertNil(second.checksum)
        XCTAssertNil(second.maxDownloadLimit)
    }

    func testByteOrderMarkIsNotPartOfTheFirstURL() {
        let input = InputFile(bytes: [0xEF, 0xBB, 0xBF] + Array("https://a.example/x\n".utf8))
        XCTAssertEqual(input.entries.map(\.url), ["https://a.example/x"])
    }

    func testWindowsLineEndsSplitLinesAndLeaveNoCarriageReturn() {
        let input = parse("https://a.example/1\r\n  out=one.bin\r\nhttps://a.example/2\r\n")
        XCTAssertEqual(input.entries.map(\.url), ["https://a.example/1", "https://a.example/2"])
        XCTAssertEqual(input.entries[0].out, "one.bin")
        XCTAssertEqual(input.problems, [])
    }

    func testCommentsAndBlankLinesAreSkipped() {
        let input = parse("# a list\n\nhttps://a.example/1\n   # an indented comment\n\t\n#https://a.example/not\n")
        XCTAssertEqual(input.entries.map(\.url), ["https://a.example/1"])
        XCTAssertEqual(input.problems, [])
    }

    func testATabIndentsAnOptionLineAndSeparatesURLs() {
        let input = parse("https://a.example/1\thttps://a.example/2\n\tdir=/tmp/x\n")
        XCTAssertEqual(input.entries.map(\.url), ["https://a.example/1", "https://a.example/2"])
        // The option applies to the URL above it: the last one on that line.
        XCTAssertNil(input.entries[0].dir)
        XCTAssertEqual(input.entries[1].dir, "/tmp/x")
    }

    func testProblemsNameTheirLineAndTheRestIsStillUsed() {
        let input = parse("""
              dir=/nowhere
            https://a.example/1
              colour=blue
              no-equals-sign
              max-download-limit=fast
              out=kept.bin
            """)
        XCTAssertEqual(input.entries.map(\.url), ["https://a.example/1"])
        XCTAssertEqual(input.entries[0].out, "kept.bin")
        XCTAssertNil(input.entries[0].maxDownloadLimit)
        XCTAssertEqual(input.problems, [
            "line 1: an option line with no URL above it",
            "line 3: unknown option \"colour\"",
            "line 4: expected key=value, got \"no-equals-sign\"",
            "line 5: max-download-limit must look like 500K, 2M or 1048576",
        ])
    }

    func testAValueMayHoldAnEqualsSign() {
        let input = parse("https://a.example/1\n  out=a=b.bin\n")
        XCTAssertEqual(input.entries[0].out, "a=b.bin")
    }

    func testAnItemTakesTheCommandsOptionsOnlyWhereTheEntryGivesNone() {
        let own = InputFile.Entry(url: "https://a.example/1", dir: "/own", checksum: "md5=" + String(repeating: "0", count: 32),
                                  maxDownloadLimit: 10)
        let item = ControlRequest.Item(own, folder: "/cmd", checksum: "sha1=" + String(repeating: "1", count: 40), limit: 99)
        XCTAssertEqual(item.dir, "/own")
        XCTAssertEqual(item.checksum, own.checksum)
        XCTAssertEqual(item.maxDownloadLimit, 10)
        let bare = ControlRequest.Item(InputFile.Entry(url: "https://a.example/2"), folder: "relative/dir", limit: 99)
        // Made absolute here: the tdl carrying the request out has another working directory.
        XCTAssertEqual(bare.dir, (FileManager.default.currentDirectoryPath as NSString).appendingPathComponent("relative/dir"))
        XCTAssertEqual(bare.maxDownloadLimit, 99)
        XCTAssertNil(bare.checksum)
    }
}
