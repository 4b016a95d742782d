import XCTest
@testable import TDLCore

/// Renaming a download renames its file: the finished file where it lies (never over
/// another), a running download's part file, which then goes on under the new name.
final class RenameFileTests: XCTestCase {
    func testAFinishedFileIsRenamedOnDisk() {
        let f = Fixture()
        let url = f.add(["a.bin"])[0]
        f.finish(url)
        XCTAssertNil(f.manager.renameFile(of: url, to: "b.bin"))
        XCTAssertFalse(f.exists(f.folder + "/a.bin"))
        XCTAssertTrue(f.exists(f.folder + "/b.bin"))
        XCTAssertEqual(f.manager.task(url)?.filePath, f.folder + "/b.bin")
        XCTAssertEqual(f.manager.displayName(of: url), "b.bin")
    }

    func testANameTakenOnDiskIsRefusedAndNothingMoves() {
        let f = Fixture()
        let url = f.add(["a.bin"])[0]
        f.finish(url)
        f.writeFile("taken.bin", size: 3)
        XCTAssertEqual(f.manager.renameFile(of: url, to: "taken.bin"), "cannot rename to taken.bin: a file of that name exists")
        XCTAssertEqual(f.manager.task(url)?.fileName, "a.bin")
        XCTAssertTrue(f.exists(f.folder + "/a.bin"))
        XCTAssertEqual(try Data(contentsOf: URL(fileURLWithPath: f.folder + "/taken.bin")).count, 3, "the other file is untouched")
        XCTAssertNotNil(f.manager.renameFile(of: url, to: "sub/x.bin"), "a name, not a path")
    }

    func testARunningDownloadMovesItsPartFileAndGoesOn() {
        let f = Fixture()
        let url = f.add(["a.bin"])[0]
        XCTAssertEqual(f.manager.state(of: url), .downloading)
        f.engine.resolve(url, name: "a.bin", size: 100)
        f.writeFile("a.bin.part", size: 40)
        XCTAssertNil(f.manager.renameFile(of: url, to: "c.bin"))
        XCTAssertTrue(f.exists(f.folder + "/c.bin.part"))
        XCTAssertFalse(f.exists(f.folder + "/a.bin.part"))
        XCTAssertEqual(f.manager.state(of: url), .downloading)
        XCTAssertEqual(f.engine.jobs.last?.fileName, "c.bin", "started again under the new name")
    }
}
