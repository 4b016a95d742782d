import Foundation
import TDLTestSupport
import XCTest

/// `e` on the screen renames the download's file on disk, and `tdl list --json` agrees.
final class RenameOnScreenTests: XCTestCase {
    let source = TemporaryDirectory(), downloads = TemporaryDirectory(), home = TemporaryDirectory()

    func runScreen(_ lines: [String]) throws {
        let work = TemporaryDirectory("tdl-screen")
        try lines.joined(separator: "\n").write(toFile: work.file("script"), atomically: true, encoding: .utf8)
        let run = try Processes.tdl(["-d", downloads.path], home: home.path,
                                    environment: ["TDL_SCRIPT": work.file("script"), "TDL_SCRIPT_SIZE": "100x20", "LC_ALL": "C.UTF-8"],
                                    timeout: 60)
        XCTAssertEqual(run.status, 0, run.stderr)
    }

    func testRenamingAFinishedDownloadRenamesItsFile() throws {
        try TestFiles.make(source.file("a.bin"), size: 1_500, seed: 3)
        try TestFiles.make(downloads.file("taken.bin"), size: 10, seed: 4)
        let get = try Processes.tdl(["get", "-q", "-d", downloads.path, "file://" + source.file("a.bin")], home: home.path)
        XCTAssertEqual(get.status, 0, get.stderr)
        // A name another file has is refused; then a free one is taken.
        try runScreen(["e", "<^U>", ":type taken.bin", "<Enter>", "e", "<^U>", ":type renamed.bin", "<Enter>", ":sleep 100", "q"])
        XCTAssertEqual(try Processes.sha256(ofFile: downloads.file("renamed.bin")), try Processes.sha256(ofFile: source.file("a.bin")))
        XCTAssertFalse(FileManager.default.fileExists(atPath: downloads.file("a.bin")))
        XCTAssertEqual(try Data(contentsOf: URL(fileURLWithPath: downloads.file("taken.bin"))).count, 10, "never over another file")
        let list = try Processes.tdl(["list", "--json"], home: home.path)
        XCTAssertTrue(list.stdout.contains(downloads.file("renamed.bin")), list.stdout)
    }
}
