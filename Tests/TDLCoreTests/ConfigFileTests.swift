import Foundation
import XCTest
@testable import TDLCore

final class ConfigFileTests: XCTestCase {
    func read(_ text: String) throws -> ConfigFile {
        try ConfigFile(text: text, path: "/home/u/.config/tdl/tdl.conf", home: "/home/u")
    }

    func problem(_ text: String) -> String? {
        do {
            _ = try read(text)
            return nil
        } catch {
            return "\(error)"
        }
    }

    func testKeysValuesCommentsAndLineNumbers() throws {
        let config = try read("""
        # downloads
        dir = ~/Downloads
        user-agent=Mozilla/5.0 (X11)

        \theader=X-A: 1
        header=X-B: 2\r
        max-connections-per-host=4
        insecure=yes
        dir=/srv/dl
        """)
        XCTAssertEqual(config.value("dir")?.value, "/srv/dl", "the last line wins")
        XCTAssertEqual(config.value("dir")?.line, 9)
        XCTAssertEqual(config.values("dir").first?.value, "/home/u/Downloads", "~ is the home folder")
        XCTAssertEqual(config.value("user-agent")?.value, "Mozilla/5.0 (X11)")
        XCTAssertEqual(config.values("header").map(\.value), ["X-A: 1", "X-B: 2"])
        XCTAssertEqual(config.values("header").map(\.line), [5, 6])
        XCTAssertEqual(config.value("insecure")?.value, "true")
        XCTAssertNil(config.value("referer"))
    }

    func testABadLineNamesTheFileTheLineAndTheProblem() {
        let file = "/home/u/.config/tdl/tdl.conf"
        XCTAssertEqual(problem("dir=/a\nspeed=2M"), "\(file):2: unknown key \"speed\"")
        XCTAssertEqual(problem("\n\njust words"), "\(file):3: \"just words\" is not key=value")
        XCTAssertEqual(problem("limit-rate=fast"),
                       "\(file):1: limit-rate: \"fast\" is not a rate: give a number with K, M or G, e.g. \(RateText.example)")
        XCTAssertEqual(problem("dir=relative/path"), "\(file):1: dir: \"relative/path\" is not an absolute path (or ~/…)")
        XCTAssertEqual(problem("max-connections-per-host=0"), "\(file):1: max-connections-per-host: \"0\" is not a number from 1 to 1000")
        XCTAssertEqual(problem("insecure=maybe"), "\(file):1: insecure: \"maybe\" is not true or false")
        XCTAssertEqual(problem("dir="), "\(file):1: dir has no value")
        XCTAssertEqual(problem("interrupted=later"), "\(file):1: interrupted: \"later\" is not one of resume, wait")
        XCTAssertNotNil(problem("header=Range: bytes=0-"))
        XCTAssertNotNil(problem("queue.night.speed=1"))
        XCTAssertNotNil(problem("queue.bad name.max=1"))
        XCTAssertNotNil(problem("queue.night.window=22:00"))
        XCTAssertNotNil(problem("category.video.ext="))
        XCTAssertNotNil(problem("rate-schedule=2M"))
        XCTAssertEqual(problem("session=other"), "\(file):1: \"session\" is not a config key: the file holds for every session; choose one with --session")
        XCTAssertEqual(problem("rpc-listen-port=80"), "\(file):1: rpc-listen-port: \"80\" is not a number from 1024 to 65535")
        XCTAssertEqual(problem("load-cookies=/nonexistent/cookies.txt"), "\(file):1: load-cookies: cannot read /nonexistent/cookies.txt")
        XCTAssertNil(problem("# only a comment\n\n   \n"))
    }

    func testQueuesTheScheduleAndCategories() throws {
        let config = try read("""
        queue.night.window=22:00-06:00
        queue.night.max=2
        queue.night.limit=500K
        queue.night.days=mon-fri
        queue.night.window=12:00-13:00
        queue.weekend.days=sat,sun
        rate-schedule=2M mon-fri 08:00-22:00
        category.video.dir=~/Videos
        category.books.ext=epub, mobi
        category.books.dir=/srv/books
        """)
        let night = try XCTUnwrap(config.queues["night"])
        XCTAssertEqual(night.maxActive, 2)
        XCTAssertEqual(night.rateLimit, 500_000)
        XCTAssertEqual(night.hours, OpenHours([try TimeWindow.parse("22:00-06:00", days: try Weekdays.parse("mon-fri")),
                                               try TimeWindow.parse("12:00-13:00", days: try Weekdays.parse("mon-fri"))]),
                       "days apply to every window of the queue, given before or after them")
        XCTAssertEqual(config.queues["weekend"]?.hours, OpenHours([TimeWindow(start: 0, end: 1440, days: try Weekdays.parse("sat,sun"))]))
        XCTAssertEqual(config.rateSchedule.entries, [try RateSchedule.Entry.parse("2M mon-fri 08:00-22:00")])
        XCTAssertEqual(config.categories.directory(forFileName: "a.mp4"), "/home/u/Videos")
        XCTAssertEqual(config.categories.directory(forFileName: "b.mobi"), "/srv/books")
        XCTAssertNil(config.categories.directory(forFileName: "c.mp3"))
    }

    func testTheFileIsFoundInTheConfigFolder() throws {
        XCTAssertEqual(ConfigFile.defaultPath(environment: ["XDG_CONFIG_HOME": "/x", "HOME": "/h"]), "/x/tdl/tdl.conf")
        XCTAssertEqual(ConfigFile.defaultPath(environment: ["XDG_CONFIG_HOME": "rel", "HOME": "/h"]), "/h/.config/tdl/tdl.conf")
        XCTAssertEqual(ConfigFile.defaultPath(environment: ["HOME": "/h"]), "/h/.config/tdl/tdl.conf")
        XCTAssertNil(ConfigFile.defaultPath(environment: [:]))
        let folder = NSTemporaryDirectory() + "tdl-config-\(UUID().uuidString)"
        defer { try? FileManager.default.removeItem(atPath: folder) }
        try FileManager.default.createDirectory(atPath: folder, withIntermediateDirectories: true)
        XCTAssertNil(try ConfigFile.load(path: folder + "/tdl.conf", home: nil), "no file: nothing set")
        try "\u{FEFF}dir=/a\nbogus=1\n".write(toFile: folder + "/tdl.conf", atomically: true, encoding: .utf8)
        XCTAssertThrowsError(try ConfigFile.load(path: folder + "/tdl.conf", home: nil)) { error in
            XCTAssertEqual("\(error)", "\(folder)/tdl.conf:2: unknown key \"bogus\"")
        }
    }
}

/// `tdl config`'s lines: the file's value and line, else the session's, else the default.
final class ConfigReportTests: XCTestCase {
    func testEachValueSaysWhereItComesFrom() throws {
        let config = try ConfigFile(text: "dir=/srv/dl\nheader=Authorization: Bearer abc\nrpc-secret=s3cret\nqueue.night.max=2\n",
                                    path: "/c/tdl.conf", home: nil)
        var session = SessionSettings()
        session.downloadDirectory = "/session/dl"
        session.globalRateLimit = 2_000_000
        session.queues = QueueList([QueueDefinition(name: "night", maxActive: 5), QueueDefinition(name: "day", maxActive: 1, rateLimit: 500_000)])
        let lines = ConfigReport.lines(config: config, session: session, defaults: ["user-agent": "tdl/1"])
        let text = Dictionary(lines.map { ($0.key, $0.text) }, uniquingKeysWith: { $0 + "\n" + $1 })
        XCTAssertEqual(text["dir"], "dir=/srv/dl  # /c/tdl.conf:1", "the file over the session")
        XCTAssertEqual(text["limit-rate"], "limit-rate=2M  # session")
        XCTAssertEqual(text["user-agent"], "user-agent=tdl/1  # default")
        XCTAssertEqual(text["referer"], "# referer  # not set")
        XCTAssertEqual(text["header"], "header=Authorization: Bearer ***  # /c/tdl.conf:2", "secrets are not printed")
        XCTAssertEqual(text["rpc-secret"], "rpc-secret=(set)  # /c/tdl.conf:3")
        XCTAssertEqual(text["queue.night.max"], "queue.night.max=2  # /c/tdl.conf:4", "the file's queue over the session's")
        XCTAssertEqual(text["queue.day.max"], "queue.day.max=1  # session")
        XCTAssertEqual(text["queue.day.limit"], "queue.day.limit=500K  # session")
        XCTAssertEqual(text["category.video.dir"], "# category.video.dir  # not set")
        XCTAssertNil(text["rpc-listen-port"].flatMap { $0.contains("session") ? $0 : nil }, "a default the session never changed is the default")
    }
}
