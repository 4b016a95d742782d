import Foundation
import TDLTestSupport
import XCTest

/// libcurl is opened when a command transfers, not linked: without it, the commands that
/// transfer end with one clear line and status 69, and the others still work.
/// `TDL_LIBCURL` names the library to open instead of libcurl.so.4.
final class LibcurlLoadTests: XCTestCase {
    static let missing = ["TDL_LIBCURL": "/nonexistent/tdl-test/libcurl.so.4"]
    let url = "http://127.0.0.1:9/never-fetched.bin"

    func testGetWithoutLibcurlSaysSoAndExits69() throws {
        let home = TemporaryDirectory(), downloads = TemporaryDirectory()
        let get = try Processes.tdl(["get", "-q", "-d", downloads.path, url], home: home.path, environment: Self.missing)
        XCTAssertEqual(get.status, 69, get.stderr)
        XCTAssertTrue(get.stderr.hasPrefix("tdl: cannot load libcurl, which tdl needs to download ("), get.stderr)
        XCTAssertTrue(get.stderr.contains("/nonexistent/tdl-test/libcurl.so.4"), get.stderr)
        XCTAssertEqual(get.stderr.components(separatedBy: "\n").filter { !$0.isEmpty }.count, 1, get.stderr)
        XCTAssertEqual(try FileManager.default.contentsOfDirectory(atPath: downloads.path), [])
    }

    /// A `get` that ends at once (a bad config line, exit 2) while libcurl loads on its own
    /// thread: its exit must not meet libcurl's set-up. OpenSSL's clean-up, which it registers
    /// with atexit as it starts, once ran beside that set-up and crashed about 1 run in 70.
    func testACommandThatExitsAtOnceNeverCrashesTheLoad() throws {
        let home = TemporaryDirectory(), config = TemporaryDirectory()
        try FileManager.default.createDirectory(atPath: config.path + "/tdl", withIntermediateDirectories: true)
        try "max-connections-per-host=lots\n".write(toFile: config.path + "/tdl/tdl.conf", atomically: true, encoding: .utf8)
        var statuses: [Int32: Int] = [:]
        for _ in 0 ..< 300 {
            let get = try Processes.tdl(["get", "-q", url], home: home.path, environment: ["XDG_CONFIG_HOME": config.path])
            statuses[get.status, default: 0] += 1
            if get.status != 2 { XCTFail("exit \(get.status): \(get.stderr.prefix(300))") }
        }
        XCTAssertEqual(statuses, [2: 300])
    }

    /// `get` commits what it adds while libcurl loads, before it waits for the load: without
    /// libcurl the task stays in the session, waiting, for a later run; no file is made.
    func testGetWithoutLibcurlKeepsWhatItAddedWaiting() throws {
        let home = TemporaryDirectory(), downloads = TemporaryDirectory()
        let get = try Processes.tdl(["get", "-q", "-d", downloads.path, url], home: home.path, environment: Self.missing)
        XCTAssertEqual(get.status, 69, get.stderr)
        let list = try Processes.tdl(["list"], home: home.path, environment: Self.missing)
        XCTAssertEqual(list.status, 0, list.stderr)
        let row = list.stdout.components(separatedBy: "\n").first { $0.contains(url) }
        XCTAssertNotNil(row, list.stdout)
        XCTAssertTrue(row?.contains("waiting") == true, list.stdout)
        XCTAssertEqual(try FileManager.default.contentsOfDirectory(atPath: downloads.path), [])
    }

    /// To standard output the stream is read without a session: the same line and status.
    /// `get --all` resumes the session's downloads as it opens: it asks for libcurl first, so
    /// it ends with the same one line, and the session keeps what it had, nothing half-started.
    func testGetAllWithoutLibcurlSaysSoAndKeepsTheList() throws {
        let home = TemporaryDirectory(), downloads = TemporaryDirectory()
        let add = try Processes.tdl(["add", "-d", downloads.path, url], home: home.path, environment: Self.missing)
        XCTAssertEqual(add.status, 0, add.stderr)
        let get = try Processes.tdl(["get", "--all", "-q", "-d", downloads.path], home: home.path, environment: Self.missing)
        XCTAssertEqual(get.status, 69, get.stderr)
        XCTAssertTrue(get.stderr.hasPrefix("tdl: cannot load libcurl, which tdl needs to download ("), get.stderr)
        XCTAssertEqual(get.stderr.components(separatedBy: "\n").filter { !$0.isEmpty }.count, 1, get.stderr)
        let list = try Processes.tdl(["list"], home: home.path, environment: Self.missing)
        let row = list.stdout.components(separatedBy: "\n").first { $0.contains(url) }
        XCTAssertTrue(row?.contains("waiting") == true, list.stdout)
        XCTAssertEqual(try FileManager.default.contentsOfDirectory(atPath: downloads.path), [])
    }

    func testGetToStandardOutputWithoutLibcurlSaysSo() throws {
        let home = TemporaryDirectory()
        let get = try Processes.tdl(["get", "-q", "-o", "-", url], home: home.path, environment: Self.missing)
        XCTAssertEqual(get.status, 69, get.stderr)
        XCTAssertTrue(get.stderr.hasPrefix("tdl: cannot load libcurl"), get.stderr)
        XCTAssertEqual(get.stdout, "")
    }

    /// A library that is not libcurl (no curl_multi_poll and the rest) is refused by name.
    func testALibraryThatIsNotLibcurlIsRefused() throws {
        let home = TemporaryDirectory(), downloads = TemporaryDirectory()
        let get = try Processes.tdl(["get", "-q", "-d", downloads.path, url], home: home.path,
                                    environment: ["TDL_LIBCURL": "libz.so.1"])
        XCTAssertEqual(get.status, 69, get.stderr)
        XCTAssertTrue(get.stderr.contains("cannot use libz.so.1: it has no curl_"), get.stderr)
    }

    /// Commands that do not transfer never open it.
    func testAddListAndVersionNeedNoLibcurl() throws {
        let home = TemporaryDirectory(), downloads = TemporaryDirectory()
        let add = try Processes.tdl(["add", "-d", downloads.path, url], home: home.path, environment: Self.missing)
        XCTAssertEqual(add.status, 0, add.stderr)
        let list = try Processes.tdl(["list"], home: home.path, environment: Self.missing)
        XCTAssertEqual(list.status, 0, list.stderr)
        XCTAssertTrue(list.stdout.contains(url), list.stdout)
        let version = try Processes.tdl(["--version"], home: home.path, environment: Self.missing)
        XCTAssertEqual(version.status, 0, version.stderr)
    }

    /// libcurl's loading thread starts off main's CPU when the process may use another; a tdl
    /// allowed one CPU (taskset, as a container may allow) has none to give it, loads beside
    /// main there and downloads all the same. (On two CPUs or more every other `get` here
    /// takes the other path.)
    func testGetOnOneCPUDownloads() throws {
        guard let taskset = Processes.which("taskset") else { throw XCTSkip("no taskset") }
        // The first CPU this process may use: CPU 0 may not be one of them.
        let status = try String(contentsOfFile: "/proc/self/status", encoding: .utf8)
        let allowed = try XCTUnwrap(status.split(separator: "\n").first { $0.hasPrefix("Cpus_allowed_list:") })
        let cpu = String(allowed.dropFirst("Cpus_allowed_list:".count).trimmingCharacters(in: .whitespaces)
            .prefix { $0.isNumber })
        let server = try FaultServer()
        let downloads = TemporaryDirectory()
        let url = server.url("/file/one-cpu.bin?size=200000&seed=3")
        for run in 0 ..< 20 {
            let home = TemporaryDirectory()
            let get = try Processes.run(taskset, ["-c", cpu, Processes.tdlBinary, "get", "-q", "-d", downloads.path, "-o", "\(run).bin", url],
                                        environment: ["TDL_HOME": home.path])
            XCTAssertEqual(get.status, 0, get.stderr)
        }
        let whole = downloads.file("whole.bin")
        try Processes.run(Processes.which("curl") ?? "/usr/bin/curl", ["-s", "-o", whole, url])
        let expected = try Data(contentsOf: URL(fileURLWithPath: whole))
        XCTAssertEqual(expected.count, 200_000)
        for run in 0 ..< 20 {
            XCTAssertEqual(try Data(contentsOf: URL(fileURLWithPath: downloads.file("\(run).bin"))), expected, "run \(run)")
        }
    }
}
