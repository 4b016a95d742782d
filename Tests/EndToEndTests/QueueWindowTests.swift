import Foundation
import TDLTestSupport
import XCTest

/// A real tdl across a real window edge: at the next minute boundary (local time) one queue
/// closes and another opens. The download of the closing queue goes back to waiting with its
/// bytes; the waiting download of the opening queue starts on its own. tdl's wall clock is
/// moved to seven seconds before a minute (`ClockShift`), so the edge comes in seconds rather
/// than up to a minute; without a C compiler for that, the test waits for a real minute.
final class QueueWindowTests: FaultServerTestCase {
    /// "HH:MM" of a minute of the day (1440 is "24:00").
    static func clock(_ minute: Int) -> String {
        minute == 1440 ? "24:00" : String(format: "%02d:%02d", (minute / 60) % 24, minute % 60)
    }

    /// The hour-long window that opens two hours after `hour` ("23:00-24:00" from 21:00).
    static func hourLongWindow(twoHoursAfter hour: Int) -> String {
        let start = (hour + 2) % 24 * 60
        return clock(start) + "-" + clock(start + 60)
    }

    /// What moves tdl's clock ahead, for every tdl the test runs; empty when it stays.
    var clock: [String: String] = [:]

    func rows(_ home: TemporaryDirectory) throws -> [String: [String: Any]] {
        let list = try Processes.tdl(["list", "--json"], home: home.path, environment: clock)
        let rows = (try? JSONSerialization.jsonObject(with: Data(list.stdout.utf8))) as? [[String: Any]] ?? []
        var byName: [String: [String: Any]] = [:]
        for row in rows { if let name = row["name"] as? String { byName[name] = row } }
        return byName
    }

    func testAWindowOpensAndAnotherClosesAtTheMinute() throws {
        let home = TemporaryDirectory(), downloads = TemporaryDirectory()
        // tdl's clock seven seconds before a minute; `now` and `boundary` are on tdl's clock.
        let calendar = Calendar.current
        let real = Date()
        let second = real.timeIntervalSince(calendar.dateInterval(of: .minute, for: real)!.start)
        let ahead = (113 - second).truncatingRemainder(dividingBy: 60)
        if let shifted = ClockShift.environment(ahead: ahead) { clock = shifted }
        let now = real.addingTimeInterval(clock.isEmpty ? 0 : ahead)
        // The boundary: the next minute, or the one after when the next is too close to set up.
        let parts = calendar.dateComponents([.hour, .minute, .second], from: now)
        let nowMinute = parts.hour! * 60 + parts.minute!
        var boundaryMinute = nowMinute + 1
        if 60 - parts.second! < 6 { boundaryMinute += 1 }
        let boundary = calendar.date(bySettingHour: 0, minute: 0, second: 0, of: now)!.addingTimeInterval(Double(boundaryMinute) * 60)
            .addingTimeInterval(clock.isEmpty ? 0 : -ahead)  // on this process's clock
        let closing = "\(Self.clock(nowMinute))-\(Self.clock(min(boundaryMinute, 1440)))"
        let opening = "\(Self.clock(boundaryMinute % 1440))-\(Self.clock(boundaryMinute % 1440 + 1))"
        for arguments in [["queue", "add", "day", "--window", closing], ["queue", "add", "next", "--window", opening]] {
            let made = try Processes.tdl(arguments, home: home.path, environment: clock)
            XCTAssertEqual(made.status, 0, made.stderr)
        }
        // 50 MB at 100 KB/s runs through the minute; the other file takes a second or two.
        let long = "http://127.0.0.1:\(server.port)/file/long.bin?size=50000000&seed=1&rate=100000"
        let short = "http://127.0.0.1:\(server.port)/file/short.bin?size=150000&seed=2&rate=100000"
        for (queue, url) in [("day", long), ("next", short)] {
            let added = try Processes.tdl(["add", "-d", downloads.path, "--queue", queue, url], home: home.path, environment: clock)
            XCTAssertEqual(added.status, 0, added.stderr)
        }
        let (serve, stderr) = try Processes.start(Processes.tdlBinary, ["serve", "-d", downloads.path, "--rpc-listen-port",
                                                                        String(RefusingPort.make())],
                                                  environment: clock.merging(["TDL_HOME": home.path]) { $1 })
        defer {
            if serve.isRunning { serve.terminate() }
            serve.waitUntilExit()
        }
        XCTAssertTrue(Processes.waitUntil(timeout: 10) { (try? rows(home)["long.bin"]?["state"] as? String) == "downloading" },
                      "the open queue's download runs")
        // Until the boundary the next queue's download waits.
        var receivedBefore = 0
        while Date() < boundary.addingTimeInterval(-1) {
            let now = try rows(home)
            XCTAssertEqual(now["short.bin"]?["state"] as? String, "waiting", "\(now)")
            XCTAssertEqual(now["long.bin"]?["state"] as? String, "downloading", "\(now)")
            receivedBefore = now["long.bin"]?["received"] as? Int ?? 0
            usleep(500_000)
        }
        XCTAssertTrue(Processes.waitUntil(timeout: 10) { (try? rows(home)["short.bin"]?["state"] as? String) == "done" },
                      "the opened queue's download starts on its own and finishes: \(String(describing: try? rows(home)))")
        XCTAssertGreaterThanOrEqual(Date(), boundary, "not before its window")
        XCTAssertEqual(try Processes.sha256(ofFile: downloads.file("short.bin")), try server.sha256(name: "short.bin", size: 150_000, seed: 2))
        let held = try rows(home)["long.bin"]
        XCTAssertEqual(held?["state"] as? String, "waiting", "the closed queue's download waits for its next window: \(String(describing: held))")
        XCTAssertGreaterThan(receivedBefore, 0)
        XCTAssertGreaterThanOrEqual(held?["received"] as? Int ?? 0, receivedBefore, "its bytes are kept")
        XCTAssertTrue(FileManager.default.fileExists(atPath: downloads.file("long.bin.part")))
        serve.terminate()
        serve.waitUntilExit()
        _ = stderr.fileHandleForReading.readDataToEndOfFile()
    }
}
