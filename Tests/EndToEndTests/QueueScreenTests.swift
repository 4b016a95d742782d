import Foundation
import TDLTestSupport
import XCTest

/// Queues on the real screen (a script of keys, as `ScreenTests`): a download moved to a queue
/// with `Q` (an unknown name said, the move kept by the session), the list sorted and sectioned
/// by queue (kept for the next launch), and the queues' view (`W`).
final class QueueScreenTests: XCTestCase {
    func screens(_ script: [String], home: TemporaryDirectory, downloads: TemporaryDirectory) throws -> [String] {
        let work = TemporaryDirectory("tdl-queue-screen")
        var lines: [String] = [], saved: [String] = []
        for line in script {
            if line == ":save" {
                saved.append(work.file("screen\(saved.count).txt"))
                lines.append(":save-display \(saved.last!)")
            } else {
                lines.append(line)
            }
        }
        try lines.joined(separator: "\n").write(toFile: work.file("script"), atomically: true, encoding: .utf8)
        let env = ["TDL_SCRIPT": work.file("script"), "TDL_SCRIPT_SIZE": "110x24", "NO_COLOR": "1", "LC_ALL": "C.UTF-8",
                   "XDG_CONFIG_HOME": work.path]
        let result = try Processes.tdl(["-d", downloads.path], home: home.path, environment: env, timeout: 60)
        XCTAssertEqual(result.status, 0, result.stderr)
        return try saved.map { try String(contentsOfFile: $0, encoding: .utf8) }
    }

    func testMoveToAQueueSortByQueueAndTheQueuesView() throws {
        let home = TemporaryDirectory(), downloads = TemporaryDirectory()
        // Both queues closed for the next hours: nothing starts, the rows stay as added.
        let now = Date(), calendar = Calendar.current
        let hour = calendar.component(.hour, from: now)
        let later = QueueWindowTests.hourLongWindow(twoHoursAfter: hour)
        for arguments in [["queue", "add", "default", "--window", later], ["queue", "add", "night", "--max", "2", "--limit", "500K", "--window", later]] {
            let made = try Processes.tdl(arguments, home: home.path)
            XCTAssertEqual(made.status, 0, made.stderr)
        }
        let added = try Processes.tdl(["add", "-d", downloads.path, "http://127.0.0.1:9/alpha.bin", "http://127.0.0.1:9/beta.bin",
                                       "http://127.0.0.1:9/gamma.bin"], home: home.path)
        XCTAssertEqual(added.status, 0, added.stderr)

        let shots = try screens([
            "g", "j", "Q", ":type night", "<Enter>", ":save",
            "s", "s", "s", "s", ":save",
            "W", ":save", "q",
            "Q", ":type nosuch", "<Enter>", ":save",
        ], home: home, downloads: downloads)
        XCTAssertTrue(shots[0].contains("moved 1 download to queue night"), shots[0])
        XCTAssertTrue(ScreenDump.taskRows(shots[0]).contains { $0.contains("beta.bin") && $0.contains("[night]") }, shots[0])

        // By queue: the default queue's section, then night's with beta in it.
        XCTAssertTrue(shots[1].contains("sort: queue ↑"), shots[1])
        let lines = shots[1].split(separator: "\n").map(String.init)
        let defaultHeader = try XCTUnwrap(lines.firstIndex { $0.contains("default") && !$0.contains("[") && !$0.hasPrefix("tdl ·") }, shots[1])
        let nightHeader = try XCTUnwrap(lines.firstIndex { $0.contains("night") && !$0.contains("[") }, shots[1])
        let beta = try XCTUnwrap(lines.firstIndex { $0.contains("beta.bin") }, shots[1])
        let alpha = try XCTUnwrap(lines.firstIndex { $0.contains("alpha.bin") }, shots[1])
        XCTAssertTrue(defaultHeader < alpha && alpha < nightHeader && nightHeader < beta, shots[1])

        // The queues' view: each queue's limits, hours and when it opens.
        XCTAssertTrue(shots[2].contains("Queues"), shots[2])
        // Two hours from 22:00 or later is tomorrow, which tdl names by its day.
        try XCTSkipUnless(calendar.isDate(Date(), inSameDayAs: now), "midnight passed during the test")
        let tomorrow = hour + 2 >= 24
        let day = try XCTUnwrap(calendar.date(byAdding: .day, value: tomorrow ? 1 : 0, to: now))
        let dayName = ["Sun", "Mon", "Tue", "Wed", "Thu", "Fri", "Sat"][calendar.component(.weekday, from: day) - 1]
        let opens = "closed, opens " + (tomorrow ? dayName + " " : "") + later.prefix(5)
        XCTAssertTrue(shots[2].contains("night     2 at once · 500.0 KB/s · \(later) · \(opens)"), shots[2])
        XCTAssertTrue(shots[2].contains("default   no own limit at once · no own rate cap · \(later) · \(opens)"), shots[2])

        XCTAssertTrue(shots[3].contains("no queue \"nosuch\": the queues are default, night"), shots[3])

        // The move and the sort are the session's: the next launch shows them.
        let again = try screens([":save"], home: home, downloads: downloads)
        XCTAssertTrue(again[0].contains("sort: queue ↑"), again[0])
        XCTAssertTrue(ScreenDump.taskRows(again[0]).contains { $0.contains("beta.bin") && $0.contains("[night]") }, again[0])
        let list = try Processes.tdl(["list", "--json"], home: home.path)
        XCTAssertTrue(list.stdout.contains("night"), list.stdout)
    }
}
