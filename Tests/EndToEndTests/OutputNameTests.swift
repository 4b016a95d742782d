import Foundation
import TDLTestSupport
import XCTest

/// `-o sub/x.bin` saves into `sub` under the download folder (made if missing), as aria2
/// takes a relative `out` under `dir`; `..` and absolute paths are refused with the reason.
final class OutputNameTests: XCTestCase {
    let source = TemporaryDirectory(), downloads = TemporaryDirectory(), home = TemporaryDirectory()

    func testANameWithAFolderSavesIntoItUnderTheDownloadFolder() throws {
        try TestFiles.make(source.file("a.bin"), size: 2_000, seed: 9)
        let get = try Processes.tdl(["get", "-q", "-d", downloads.path, "-o", "sub/deeper/x.bin", "file://" + source.file("a.bin")],
                                    home: home.path)
        XCTAssertEqual(get.status, 0, get.stderr)
        XCTAssertEqual(try Processes.sha256(ofFile: downloads.file("sub/deeper/x.bin")), try Processes.sha256(ofFile: source.file("a.bin")))
        XCTAssertFalse(FileManager.default.fileExists(atPath: downloads.file("x.bin")), "not the last part alone")
    }

    /// `-o sub/` names the folder only: the file keeps its own name there (it once became a
    /// file named `sub`).
    func testAFolderAloneKeepsTheFilesOwnName() throws {
        try TestFiles.make(source.file("a.bin"), size: 2_000, seed: 3)
        let get = try Processes.tdl(["get", "-q", "-d", downloads.path, "-o", "sub/", "file://" + source.file("a.bin")], home: home.path)
        XCTAssertEqual(get.status, 0, get.stderr)
        XCTAssertEqual(try Processes.sha256(ofFile: downloads.file("sub/a.bin")), try Processes.sha256(ofFile: source.file("a.bin")))
        var isFolder: ObjCBool = false
        XCTAssertTrue(FileManager.default.fileExists(atPath: downloads.file("sub"), isDirectory: &isFolder) && isFolder.boolValue,
                      "sub is the folder, not the file")
    }

    func testANameThatLeavesTheFolderIsRefused() throws {
        for name in ["../x.bin", "sub/../../x.bin", "/tmp/x.bin"] {
            let add = try Processes.tdl(["get", "-q", "-d", downloads.path, "-o", name, "http://127.0.0.1:9/\(name.count).bin"], home: home.path)
            XCTAssertEqual(add.status, 2, name + ": " + add.stderr)
            XCTAssertTrue(add.stderr.contains("the file name \(name): "), add.stderr)
        }
        let list = try Processes.tdl(["list"], home: home.path)
        XCTAssertEqual(list.stdout, "", "nothing added")
    }
}
