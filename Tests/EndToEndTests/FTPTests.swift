import Foundation
import TDLTestSupport
import XCTest

/// `tdl get ftp://…` against an FTP server the test starts on 127.0.0.1.
final class FTPTests: XCTestCase {
    let site = TemporaryDirectory("tdl-ftp-site")

    func testFTPDownloadIsByteIdentical() throws {
        try TestFiles.make(site.file("plain.bin"), size: 2_500_000, seed: 41)
        let ftp = try LoopbackFTP(root: site.path)
        let home = TemporaryDirectory(), downloads = TemporaryDirectory()
        let result = try Processes.tdl(["get", "-q", "-d", downloads.path, ftp.url("plain.bin")], home: home.path)
        XCTAssertEqual(result.status, 0, result.stderr)
        XCTAssertEqual(try Processes.sha256(ofFile: downloads.file("plain.bin")), try Processes.sha256(ofFile: site.file("plain.bin")))
        XCTAssertEqual(try FileManager.default.contentsOfDirectory(atPath: downloads.path), ["plain.bin"])
    }

    func testFTPResumeAfterKillContinuesFromTheSavedBytes() throws {
        let size = 6_000_000
        try TestFiles.make(site.file("slow.bin"), size: size, seed: 42)
        let ftp = try LoopbackFTP(root: site.path, rate: 1_000_000)
        let home = TemporaryDirectory(), downloads = TemporaryDirectory()
        let url = ftp.url("slow.bin")

        let process = Process()
        process.executableURL = URL(fileURLWithPath: Processes.tdlBinary)
        process.arguments = ["get", "-q", "-d", downloads.path, url]
        process.environment = Processes.baseEnvironment.merging(["TDL_HOME": home.path]) { $1 }
        process.standardError = FileHandle.nullDevice
        try process.run()
        // Kill it after a few checkpoints (twice a second), well before the end.
        var saved: Int64 = 0
        let gotSome = try Processes.waitUntil(timeout: 30, interval: 0.2) {
            saved = try received(url, home: home)
            return saved >= 2_500_000 || !process.isRunning
        }
        kill(process.processIdentifier, SIGKILL)
        process.waitUntilExit()
        XCTAssertTrue(gotSome)
        // While tdl ran, the list showed live bytes; now it shows what was durably saved.
        saved = try received(url, home: home)
        XCTAssertGreaterThan(saved, 0, "a checkpoint was saved before the kill")
        XCTAssertLessThan(saved, Int64(size), "killed before the end")
        XCTAssertTrue(FileManager.default.fileExists(atPath: downloads.file("slow.bin.part")))

        let again = try Processes.tdl(["get", "-q", "-d", downloads.path, url], home: home.path, timeout: 60)
        XCTAssertEqual(again.status, 0, again.stderr)
        XCTAssertEqual(try Processes.sha256(ofFile: downloads.file("slow.bin")), try Processes.sha256(ofFile: site.file("slow.bin")))
        XCTAssertEqual(try FileManager.default.contentsOfDirectory(atPath: downloads.path), ["slow.bin"])
        // The second run asked the server for the rest only (REST at the saved offset or later).
        XCTAssertGreaterThanOrEqual(ftp.resumeOffsets.max() ?? 0, saved, "resumed at \(ftp.resumeOffsets)")
    }

    /// Bytes of `url` as `tdl list` reports them: live from a running tdl, else as saved.
    func received(_ url: String, home: TemporaryDirectory) throws -> Int64 {
        let list = try Processes.tdl(["list", "--json"], home: home.path)
        let objects = (try? JSONSerialization.jsonObject(with: Data(list.stdout.utf8))) as? [[String: Any]] ?? []
        return (objects.first { $0["url"] as? String == url }?["received"] as? NSNumber)?.int64Value ?? 0
    }
}
