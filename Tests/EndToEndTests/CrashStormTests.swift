import Foundation
import TDLCore
import TDLTestSupport
import XCTest

/// `kill -9` at seeded random moments, many times, then one clean run of the same command: the
/// folder holds exactly one file per download, each identical to the server's, no `name (1)`
/// copy and no `.part` left, and the server sent at most half as much again as the files hold.
final class CrashStormTests: FaultServerTestCase {
    func testKillsDuringManySmallFilesLeaveExactlyTheFiles() throws {
        try storm(files: 400, size: 102_400, options: ["-j", "8"], query: "", kills: 20, seed: 18, pause: 0.05...0.5)
    }

    /// Segmented downloads, throttled so that every kill lands in the middle of transfers (the
    /// clean run after the kills is served at full speed).
    func testKillsDuringSegmentedBigFilesLeaveExactlyTheFiles() throws {
        try storm(files: 4, size: 4 << 20, options: ["-j", "4", "-x", "4"], query: "&rate=24000", kills: 20, seed: 4,
                  pause: 1.0...2.5)
    }

    private func storm(files: Int, size: Int, options: [String], query: String, kills: Int, seed: UInt64,
                       pause: ClosedRange<Double>) throws {
        try server.reset()
        let home = TemporaryDirectory("tdl-storm-home"), downloads = TemporaryDirectory("tdl-storm")
        let names = (0..<files).map { "f\($0).bin" }
        let list = home.file("urls.txt")
        try names.enumerated().map { server.url("/file/\($1)?size=\(size)&seed=\($0)\(query)") }
            .joined(separator: "\n").write(toFile: list, atomically: true, encoding: .utf8)
        let arguments = ["get", "-d", downloads.path, "-i", list] + options
        var random = SeededRandom(seed: seed)
        var moments: [String] = [], served: [String] = []
        for _ in 0..<kills {
            let after = Double.random(in: pause, using: &random)
            moments.append(String(format: "%.2f", after))
            Processes.runAndKill(Processes.tdlBinary, arguments, environment: ["TDL_HOME": home.path], after: after)
            served.append("\(try server.bodyBytesSent() * 100 / (files * size))%")
        }
        let context = "seed \(seed), killed after \(moments.joined(separator: " ")) s, "
            + "having served \(served.joined(separator: " ")) of the files' bytes"
        // The throttle is there for the kills; the clean run need not wait for it.
        try server.unthrottle()
        let clean = try Processes.tdl(arguments, home: home.path, timeout: 180)
        XCTAssertEqual(clean.status, 0, "\(context)\n\(clean.stderr)")
        let found = try FileManager.default.contentsOfDirectory(atPath: downloads.path).sorted()
        XCTAssertEqual(found, names.sorted(), context)
        for (k, name) in names.enumerated() where found.contains(name) {
            XCTAssertEqual(try Processes.sha256(ofFile: downloads.file(name)), try server.sha256(name: name, size: size, seed: k),
                           "\(name), \(context)")
        }
        let sent = try server.bodyBytesSent()
        XCTAssertLessThanOrEqual(sent, files * size * 3 / 2, "bytes served, \(context)")
        print("crash storm: \(kills) kills, \(sent) bytes served for \(files * size) (\(context))")
    }
}
