import Foundation
import TDLTestSupport
import XCTest

/// System calls of the real binary fail (strace's fault injection, nothing of ours in the way):
/// each fault ends in a clear failure with the partial kept, never in a success for a file that
/// is not identical, and a normal run afterwards finishes every file byte-identical.
final class FaultInjectionTests: FaultServerTestCase {
    struct Fault {
        let syscall: String
        let error: String
        /// Only calls on this path (a file, or "." for the download folder) fail; nil: every call.
        let path: String?
        /// strace's `when`: "3+" fails the third call and every one after it.
        var when: String? = nil
    }

    // MARK: - Many small files (the batched finish: one syncfs, renames, one folder fsync)

    func testAFailedSyncfsFailsTheFilesItCovered() throws {
        try smallFiles(Fault(syscall: "syncfs", error: "EIO", path: nil))
    }

    func testAFailedFolderSyncFailsTheFilesRenamedInIt() throws {
        try smallFiles(Fault(syscall: "fsync", error: "EIO", path: "."))
    }

    func testAFailedRenameFailsTheFile() throws {
        try smallFiles(Fault(syscall: "renameat2", error: "EIO", path: nil))
    }

    func testAFailedWriteFailsThatFileAlone() throws {
        try smallFiles(Fault(syscall: "pwrite64", error: "EIO", path: "f3.bin.part"), failing: ["f3.bin"])
    }

    func testAPartFileThatCannotBeCreatedFailsWithItsPath() throws {
        try smallFiles(Fault(syscall: "openat", error: "EACCES", path: "f5.bin.part"), failing: ["f5.bin"],
                       says: "f5.bin.part: Permission denied")
    }

    // MARK: - A big file (checkpoints: fdatasync before the offsets are recorded)

    func testAFailedDataSyncKeepsThePartialAndAFailedRunResumes() throws {
        try bigFile(Fault(syscall: "fdatasync", error: "EIO", path: "big.bin.part"), says: "Input/output error")
    }

    func testAFullDiskOnWriteKeepsThePartial() throws {
        try bigFile(Fault(syscall: "pwrite64", error: "ENOSPC", path: "big.bin.part", when: "3+"), says: "disk full")
    }

    // MARK: -

    private func smallFiles(_ fault: Fault, failing: [String]? = nil, says: String? = nil, line: UInt = #line) throws {
        let home = TemporaryDirectory("tdl-inject-home"), downloads = TemporaryDirectory("tdl-inject")
        let names = (0..<60).map { "f\($0).bin" }
        let list = home.file("urls.txt")
        try names.enumerated().map { server.url("/file/\($1)?size=100000&seed=\($0 + 100)") }
            .joined(separator: "\n").write(toFile: list, atomically: true, encoding: .utf8)
        let arguments = ["get", "-j", "8", "-d", downloads.path, "-i", list]
        let faulty = try runUnder(fault, arguments, home: home, downloads: downloads)
        XCTAssertEqual(faulty.status, 1, "a fault must fail the run\n\(faulty.stderr)", line: line)
        if let says { XCTAssertTrue(faulty.stderr.contains(says), faulty.stderr, line: line) }
        try assertOnlyIdentical(downloads, names: names, seedBase: 100, size: 100_000, line: line)
        if let failing {
            for name in failing {
                XCTAssertFalse(FileManager.default.fileExists(atPath: downloads.file(name)), "\(name) finished under the fault", line: line)
            }
        }
        let normal = try Processes.tdl(arguments, home: home.path)
        XCTAssertEqual(normal.status, 0, normal.stderr, line: line)
        XCTAssertEqual(try FileManager.default.contentsOfDirectory(atPath: downloads.path).sorted(), names.sorted(), line: line)
        try assertOnlyIdentical(downloads, names: names, seedBase: 100, size: 100_000, line: line)
    }

    private func bigFile(_ fault: Fault, says: String, line: UInt = #line) throws {
        let home = TemporaryDirectory("tdl-inject-home"), downloads = TemporaryDirectory("tdl-inject")
        let size = 3_000_000
        let arguments = ["get", "-x", "2", "-d", downloads.path, server.url("/file/big.bin?size=\(size)&seed=7&rate=1000000")]
        let faulty = try runUnder(fault, arguments, home: home, downloads: downloads)
        XCTAssertEqual(faulty.status, 1, faulty.stderr, line: line)
        XCTAssertTrue(faulty.stderr.contains(says), faulty.stderr, line: line)
        XCTAssertFalse(FileManager.default.fileExists(atPath: downloads.file("big.bin")), "finished under the fault", line: line)
        XCTAssertTrue(FileManager.default.fileExists(atPath: downloads.file("big.bin.part")), "the partial was not kept", line: line)
        let normal = try Processes.tdl(arguments, home: home.path)
        XCTAssertEqual(normal.status, 0, normal.stderr, line: line)
        XCTAssertEqual(try FileManager.default.contentsOfDirectory(atPath: downloads.path), ["big.bin"], line: line)
        XCTAssertEqual(try Processes.sha256(ofFile: downloads.file("big.bin")), try server.sha256(name: "big.bin", size: size, seed: 7),
                       line: line)
    }

    /// tdl under strace, with `fault` injected into every matching call. strace only injects
    /// into calls it traces, so the call is traced too (and with a path, only calls on it).
    private func runUnder(_ fault: Fault, _ arguments: [String], home: TemporaryDirectory,
                          downloads: TemporaryDirectory) throws -> Processes.Result {
        guard let strace = Processes.which("strace") else { throw XCTSkip("strace is not installed") }
        var options = ["-f", "-o", "/dev/null", "--seccomp-bpf", "-e", "trace=\(fault.syscall)",
                       "-e", "inject=\(fault.syscall):error=\(fault.error)" + (fault.when.map { ":when=\($0)" } ?? "")]
        if let path = fault.path { options += ["-P", path == "." ? downloads.path : downloads.file(path)] }
        return try Processes.run(strace, options + ["--", Processes.tdlBinary] + arguments,
                                 environment: ["TDL_HOME": home.path], timeout: 120)
    }

    /// Every file named like a download is the server's file, byte for byte.
    private func assertOnlyIdentical(_ downloads: TemporaryDirectory, names: [String], seedBase: Int, size: Int, line: UInt) throws {
        for (k, name) in names.enumerated() where FileManager.default.fileExists(atPath: downloads.file(name)) {
            XCTAssertEqual(try Processes.sha256(ofFile: downloads.file(name)),
                           try server.sha256(name: name, size: size, seed: k + seedBase), name, line: line)
        }
    }
}
