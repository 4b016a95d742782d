import Foundation
import TDLTestSupport
import XCTest

/// Input that is not a list of URLs: a line longer than 64 KiB (or input with no line end at
/// all) is refused by its number before anything is added; a URL that is not valid UTF-8 is
/// refused rather than fetched as another URL, from an input file and from the command line.
final class InputLimitsTests: XCTestCase {
    let home = TemporaryDirectory(), inputs = TemporaryDirectory()

    func listed() throws -> [Substring] {
        let list = try Processes.tdl(["list"], home: home.path)
        XCTAssertEqual(list.status, 0, list.stderr)
        return list.stdout.split(separator: "\n")
    }

    func testEndlessInputIsRefusedAtItsFirstLine() throws {
        let add = try Processes.tdl(["add", "-i", "/dev/zero"], home: home.path, timeout: 20)
        XCTAssertEqual(add.status, 2, add.stderr)
        XCTAssertTrue(add.stderr.contains("/dev/zero: line 1 is longer than 64 KiB; nothing was added from it"), add.stderr)
        XCTAssertEqual(try listed(), [])
    }

    func testALongLineRefusesTheWholeFileForAddAndGet() throws {
        let file = inputs.file("urls.txt")
        let good = (1...3).map { "http://127.0.0.1:9/\($0).bin" }.joined(separator: "\n")
        try (good + "\nhttp://127.0.0.1:9/" + String(repeating: "x", count: 100_000) + "\n").write(toFile: file, atomically: true, encoding: .utf8)
        for command in ["add", "get"] {
            let run = try Processes.tdl([command, "-i", file], home: home.path, timeout: 20)
            XCTAssertEqual(run.status, 2, command + ": " + run.stderr)
            XCTAssertTrue(run.stderr.contains("urls.txt: line 4 is longer than 64 KiB"), command + ": " + run.stderr)
            XCTAssertEqual(try listed(), [], command)
        }
    }

    /// An add in parts keeps what it committed before the line, and says so.
    func testALongLineInALaterPartSaysThePartsBeforeWereAdded() throws {
        let file = inputs.file("urls.txt")
        let good = (1...5).map { "http://127.0.0.1:9/\($0).bin" }.joined(separator: "\n")
        try (good + "\n" + String(repeating: "y", count: 70_000) + "\n").write(toFile: file, atomically: true, encoding: .utf8)
        let add = try Processes.tdl(["add", "-i", file], home: home.path, environment: ["TDL_ADD_PART": "2"])
        XCTAssertEqual(add.status, 2, add.stderr)
        XCTAssertTrue(add.stderr.contains("urls.txt: line 6 is longer than 64 KiB; the parts before it were added"), add.stderr)
        XCTAssertEqual(add.stdout.split(separator: "\n").count, try listed().count, "each URL said added is in the list")
    }

    func testAURLThatIsNotUTF8IsRefusedByLineAndTheRestAdded() throws {
        let file = inputs.file("urls.txt")
        var bytes = Array("http://127.0.0.1:9/a".utf8) + [0xFF] + Array("b.bin\n  out=bad.bin\nhttp://127.0.0.1:9/good.bin\n".utf8)
        try Data(bytes).write(to: URL(fileURLWithPath: file))
        let add = try Processes.tdl(["add", "-i", file], home: home.path)
        XCTAssertEqual(add.status, 2, add.stderr)
        XCTAssertTrue(add.stderr.contains("line 1: not valid UTF-8; the URL is left out"), add.stderr)
        let rows = try listed()
        XCTAssertEqual(rows.count, 1, "\(rows)")
        XCTAssertTrue(rows.first?.contains("good.bin\t") == true, "its out= is not another URL's: \(rows)")
        bytes = []
    }

    func testACommandLineURLThatIsNotUTF8IsRefused() throws {
        let script = #"TDL_HOME="$1" "$2" add "$(printf 'http://127.0.0.1:9/a\377b.bin')""#
        let run = try Processes.run("/bin/sh", ["-c", script, "sh", home.path, Processes.tdlBinary])
        XCTAssertEqual(run.status, 2, run.stderr)
        XCTAssertTrue(run.stderr.contains("argument 2 (http://127.0.0.1:9/a"), run.stderr)
        XCTAssertTrue(run.stderr.contains("is not valid UTF-8"), run.stderr)
        XCTAssertEqual(try listed(), [])
    }
}
