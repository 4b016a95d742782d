import XCTest
import TDLCore
import TDLSession

final class InputFileTests: XCTestCase {
    func parse(_ text: String) -> InputFile { InputFile(bytes: Array(text.utf8)) }

    /// Read a line at a time and cut before every line that names downloads (as `tdl add -i`
    /// reads a long file in parts), a file asks for what it asks for read whole: options stay
    /// with their URL, a URL a bad checksum leaves out stays out, line numbers run on.
    func testAFileCutBeforeItsURLLinesAsksForTheSame() {
        let text = """
            https://a.example/one.iso
              out=first.iso
            # a comment between a URL and its options
              split=4
            https://a.example/two.iso https://a.example/three.iso
              checksum=nonsense
            	https://a.example/mirror-less.iso
            https://a.example/four.iso	https://b.example/four.iso

              unknown=1
            https://a.example/five.iso
            """
        let whole = parse(text)
        var read = InputFile()
        var entries: [DownloadRequest] = []
        var cuts = 0
        for line in Array(text.utf8).split(separator: UInt8(ascii: "\n"), omittingEmptySubsequences: false) {
            if InputFile.namesDownloads(line) {
                entries += read.takeEntries()
                cuts += 1
            }
            read.read(line: line)
        }
        entries += read.takeEntries()
        XCTAssertEqual(cuts, 4)
        XCTAssertEqual(entries, whole.entries)
        XCTAssertEqual(read.problems, whole.problems)
        XCTAssertEqual(whole.entries.map(\.url), ["https://a.example/one.iso", "https://a.example/two.iso", "https://a.example/four.iso",
                                                  "https://a.example/five.iso"])
        XCTAssertEqual(whole.entries[0].options.fileName, "first.iso")
        XCTAssertEqual(whole.entries[0].options.connections, 4)
        XCTAssertEqual(whole.problems.count, 3, "\(whole.problems)")
    }

    func testOptionsUnderAURLApplyToThatURLOnly() {
        let input = parse("""
            https://a.example/one.iso
              dir=/srv/isos
              out=first.iso
              checksum=sha256=\(String(repeating: "ab", count: 32))
              max-download-limit=500K
              split=4
            https://a.example/two.iso
            """)
        XCTAssertEqual(input.problems, [])
        XCTAssertEqual(input.entries.map(\.url), ["https://a.example/one.iso", "https://a.example/two.iso"])
        XCTAssertEqual(input.entries[0].options, DownloadOptions(
            directory: "/srv/isos", fileName: "first.iso", checksum: Checksum("sha256=" + String(repeating: "ab", count: 32)),
            rateLimit: 500_000, connections: 4))
        XCTAssertEqual(input.entries[1].options, DownloadOptions())
    }

    func testByteOrderMarkIsNotPartOfTheFirstURL() {
        let input = InputFile(bytes: [0xEF, 0xBB, 0xBF] + Array("https://a.example/x\n".utf8))
        XCTAssertEqual(input.entries.map(\.url), ["https://a.example/x"])
    }

    func testWindowsLineEndsSplitLinesAndLeaveNoCarriageReturn() {
        let input = parse("https://a.example/1\r\n  out=one.bin\r\nhttps://a.example/2\r\n")
        XCTAssertEqual(input.entries.map(\.url), ["https://a.example/1", "https://a.example/2"])
        XCTAssertEqual(input.entries[0].options.fileName, "one.bin")
        XCTAssertEqual(input.problems, [])
    }

    func testCommentsAndBlankLinesAreSkipped() {
        let input = parse("# a list\n\nhttps://a.example/1\n   # an indented comment\n\t\n#https://a.example/not\n")
        XCTAssertEqual(input.entries.map(\.url), ["https://a.example/1"])
        XCTAssertEqual(input.problems, [])
    }

    func testATabIndentsAnOptionLineAndSeparatesMirrors() {
        let input = parse("https://a.example/1\thttps://b.example/1\thttps://c.example/1 https://a.example/2\n\tdir=/tmp/x\n")
        XCTAssertEqual(input.entries.map(\.url), ["https://a.example/1", "https://a.example/2"])
        XCTAssertEqual(input.entries[0].options.mirrors, ["https://b.example/1", "https://c.example/1"])
        XCTAssertNil(input.entries[1].options.mirrors)
        // The option applies to the URL above it: the last one on that line.
        XCTAssertNil(input.entries[0].options.directory)
        XCTAssertEqual(input.entries[1].options.directory, "/tmp/x")
    }

    func testProblemsNameTheirLineAndTheRestIsStillUsed() {
        let input = parse("""
              dir=/nowhere
            https://a.example/1
              colour=blue
              no-equals-sign
              max-download-limit=fast
              split=33
              out=kept.bin
            https://a.example/2
              checksum=sha256=abc
            """)
        XCTAssertEqual(input.entries.map(\.url), ["https://a.example/1"], "a file that cannot be verified is left out")
        XCTAssertEqual(input.entries[0].options, DownloadOptions(fileName: "kept.bin"))
        XCTAssertEqual(input.problems, [
            "line 1: an option line with no URL above it",
            "line 3: unknown option \"colour\"",
            "line 4: expected key=value, got \"no-equals-sign\"",
            "line 5: max-download-limit: \"fast\" is not a rate: give a number with K, M or G, e.g. 500K, 2M or 1048576",
            "line 6: split must be a number of connections from 1 to 32",
            "line 9: checksum must look like \(Checksum.expectedForm); https://a.example/2 is left out",
        ])
    }

    func testAValueMayHoldAnEqualsSign() {
        let input = parse("https://a.example/1\n  out=a=b.bin\n")
        XCTAssertEqual(input.entries[0].options.fileName, "a=b.bin")
    }

    func testARelativeFolderIsMadeAbsoluteWhereTheFileIsRead() {
        // The tdl carrying the request out has another working directory.
        let input = parse("https://a.example/1\n  dir=relative/dir\n")
        XCTAssertEqual(input.entries[0].options.directory,
                       (FileManager.default.currentDirectoryPath as NSString).appendingPathComponent("relative/dir"))
    }

    func testTheEntrysOwnOptionsWinOverTheCommandsAndTheCommandsFillTheRest() {
        let own = DownloadOptions(directory: "/own", checksum: Checksum("md5=" + String(repeating: "0", count: 32)), rateLimit: 10)
        let command = DownloadOptions(directory: "/cmd", checksum: Checksum("sha1=" + String(repeating: "1", count: 40)),
                                      rateLimit: 99, connections: 2)
        XCTAssertEqual(own.filling(from: command), DownloadOptions(directory: "/own", checksum: own.checksum, rateLimit: 10, connections: 2))
        XCTAssertEqual(DownloadOptions().filling(from: command), command)
    }

    func testRequestOptionLines() {
        let input = parse("""
            https://a.example/x
              header=Authorization: Bearer T
              header=X-Requested-With: tdl
              user-agent=Mozilla/5.0 (X11)
              referer=https://a.example/
              load-cookies=/tmp/cookies.txt
              header=Range: bytes=0-1
            """)
        XCTAssertEqual(input.entries[0].options, DownloadOptions(
            headers: ["Authorization: Bearer T", "X-Requested-With: tdl"], userAgent: "Mozilla/5.0 (X11)",
            referer: "https://a.example/", cookieFile: "/tmp/cookies.txt"))
        XCTAssertEqual(input.problems, ["line 7: header Range: bytes=0-1: tdl sets Range itself"])
    }
}
