import Foundation
import TDLTestSupport
import XCTest

/// `a` on the screen with an input file's options after the URL: a bad one is the input
/// file's one-line message on the message line and adds nothing; good ones name the file.
final class AddPromptOptionsTests: XCTestCase {
    let source = TemporaryDirectory(), downloads = TemporaryDirectory(), home = TemporaryDirectory()
    let elsewhere = TemporaryDirectory(), work = TemporaryDirectory("tdl-screen")

    func testTheAddPromptTakesOptionsAfterTheURL() throws {
        try TestFiles.make(source.file("a.bin"), size: 1_500, seed: 5)
        let url = "file://" + source.file("a.bin")
        let script = ["a", ":type \(url) split=99", "<Enter>", ":save-display \(work.file("refused.txt"))",
                      "a", ":type \(url) out=named.bin dir=\(elsewhere.path) queue=night", "<Enter>", ":wait-idle 30", "q"]
        try script.joined(separator: "\n").write(toFile: work.file("script"), atomically: true, encoding: .utf8)
        XCTAssertEqual(try Processes.tdl(["queue", "add", "night"], home: home.path).status, 0)
        let run = try Processes.tdl(["-d", downloads.path], home: home.path,
                                    environment: ["TDL_SCRIPT": work.file("script"), "TDL_SCRIPT_SIZE": "100x20",
                                                  "LC_ALL": "C.UTF-8", "NO_COLOR": "1"],
                                    timeout: 60)
        XCTAssertEqual(run.status, 0, run.stderr)
        let refused = try String(contentsOfFile: work.file("refused.txt"), encoding: .utf8)
        let lines = refused.split(separator: "\n")
        XCTAssertEqual(lines.last.map(String.init), "split must be a number of connections from 1 to 32", refused)
        XCTAssertTrue(refused.contains("No downloads yet"), "nothing added:\n\(refused)")
        XCTAssertEqual(try Processes.sha256(ofFile: elsewhere.file("named.bin")), try Processes.sha256(ofFile: source.file("a.bin")))
        XCTAssertFalse(FileManager.default.fileExists(atPath: downloads.file("a.bin")))
        let list = try Processes.tdl(["list", "--json"], home: home.path)
        XCTAssertTrue(list.stdout.contains(elsewhere.file("named.bin")), list.stdout)
    }
}
