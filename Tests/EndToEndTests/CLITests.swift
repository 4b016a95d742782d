import Foundation
import TDLCore
import TDLTestSupport
import XCTest

/// The real `tdl` binary, end to end, against loopback servers.
final class CLITests: XCTestCase {
    static let site = TemporaryDirectory("tdl-cli-site")
    /// Made once for the class, kept behind a lock (its tests may run on other threads).
    static var nginx: LoopbackNginx! { get { nginxStore.get() } set { nginxStore.set(newValue) } }
    private static let nginxStore = Locked<LoopbackNginx?>(nil)

    override class func setUp() {
        do {
            try TestFiles.make(site.file("one.bin"), size: 2_000_000, seed: 11)
            try TestFiles.make(site.file("two.zip"), size: 500_000, seed: 12)
            for (index, name) in ["a.bin", "b.bin", "c.bin", "d.bin", "e.bin"].enumerated() {
                try TestFiles.make(site.file(name), size: 50_000 + index * 1_000, seed: UInt64(70 + index))
            }
            nginx = try LoopbackNginx(root: site.path)
        } catch {
            XCTFail("\(error)")
        }
    }

    override class func tearDown() { nginx = nil }

    func testGetDownloadsAndListShowsTheTask() throws {
        let home = TemporaryDirectory(), downloads = TemporaryDirectory()
        let url = Self.nginx.url("one.bin")
        let get = try Processes.tdl(["get", "-q", "-d", downloads.path, url], home: home.path)
        XCTAssertEqual(get.status, 0, get.stderr)
        XCTAssertEqual(try Processes.sha256(ofFile: downloads.file("one.bin")), try Processes.sha256(ofFile: Self.site.file("one.bin")))
        let list = try Processes.tdl(["list"], home: home.path)
        XCTAssertEqual(list.status, 0)
        XCTAssertTrue(list.stdout.contains("done\tone.bin\t2.0 MB\t\(url)"), list.stdout)
    }

    func testSameURLTwiceIsOneTask() throws {
        let home = TemporaryDirectory(), downloads = TemporaryDirectory()
        let url = Self.nginx.url("two.zip")
        XCTAssertEqual(try Processes.tdl(["add", "-d", downloads.path, url, url], home: home.path).status, 0)
        let again = try Processes.tdl(["add", url], home: home.path)
        XCTAssertTrue(again.stdout.contains("already in the list"), again.stdout)
        let json = try Processes.tdl(["list", "--json"], home: home.path)
        let objects = try JSONSerialization.jsonObject(with: Data(json.stdout.utf8)) as? [[String: Any]]
        XCTAssertEqual(objects?.count, 1)
        XCTAssertEqual(objects?.first?["state"] as? String, "waiting")
    }

    /// What an input file asks of each URL is kept by the session: the tdl that downloads them
    /// later (here `get --all`) still names and verifies each file as asked.
    func testAnInputFilesOptionsOutliveTheCommandThatAddedThem() throws {
        let home = TemporaryDirectory(), downloads = TemporaryDirectory(), inputs = TemporaryDirectory()
        let wrong = "sha256=" + String(repeating: "0", count: 64)
        let right = "sha256=" + (try Processes.sha256(ofFile: Self.site.file("b.bin")))
        let input = inputs.file("urls.txt")
        try """
            \(Self.nginx.url("a.bin"))
              checksum=\(wrong)
            \(Self.nginx.url("b.bin"))
              out=mine.bin
              checksum=\(right)
              split=2
            """.write(toFile: input, atomically: true, encoding: .utf8)
        let add = try Processes.tdl(["add", "-d", downloads.path, "-i", input], home: home.path)
        XCTAssertEqual(add.status, 0, add.stderr)

        let get = try Processes.tdl(["get", "-q", "--all"], home: home.path)
        XCTAssertEqual(get.status, 1, get.stderr)
        XCTAssertTrue(get.stderr.contains("\(Self.nginx.url("a.bin")): checksum mismatch (expected 000000000000…"), get.stderr)
        try assertIdentical(downloads.file("mine.bin"), to: "b.bin")
        XCTAssertFalse(FileManager.default.fileExists(atPath: downloads.file("a.bin")), "a file that fails its check is not left as if done")
    }

    /// tdl's version, then the libcurl and OpenSSL built into it: those of the libcurl4-openssl-dev
    /// it was built with (curl-config names its libcurl).
    func testVersionIsPrintedWithTheLibrariesBuiltIn() throws {
        let result = try Processes.tdl(["--version"], home: TemporaryDirectory().path)
        XCTAssertEqual(result.status, 0, result.stderr)
        XCTAssertTrue(result.stdout.range(of: #"^\d+\.\d+\.\d+\nlibcurl \d+\.\d+\.\d+ with OpenSSL/\d\S*\n$"#,
                                          options: .regularExpression) != nil, result.stdout)
        let curlConfig = try Processes.run("/usr/bin/curl-config", ["--version"])
        XCTAssertTrue(result.stdout.contains(curlConfig.stdout.trimmingCharacters(in: .whitespacesAndNewlines) + " with "),
                      "\(result.stdout) against \(curlConfig.stdout)")
    }

    func testInvalidURLGetsOneLineNamingIt() throws {
        let home = TemporaryDirectory(), downloads = TemporaryDirectory()
        let result = try Processes.tdl(["get", "-d", downloads.path, "htp:/nonsense", "gopher://x/y"], home: home.path)
        XCTAssertEqual(result.status, 2)
        XCTAssertTrue(result.stderr.contains("htp:/nonsense:"), result.stderr)
        XCTAssertTrue(result.stderr.contains("gopher://x/y: unsupported scheme \"gopher\""), result.stderr)
    }

    func testUnreachableServerFailsWithReasonAndStatus1() throws {
        let home = TemporaryDirectory(), downloads = TemporaryDirectory()
        let result = try Processes.tdl(["get", "-q", "-d", downloads.path, "http://127.0.0.1:9/x.bin"], home: home.path,
                                       environment: ["TDL_RETRY_BASE": "0.05"])
        XCTAssertEqual(result.status, 1)
        XCTAssertTrue(result.stderr.contains("http://127.0.0.1:9/x.bin: couldn't connect to server"), result.stderr)
    }

    func testUnwritableFolderIsReportedBeforeAnythingStarts() throws {
        let home = TemporaryDirectory(), parent = TemporaryDirectory()
        let blocked = parent.file("file-not-folder")
        try "x".write(toFile: blocked, atomically: true, encoding: .utf8)
        let result = try Processes.tdl(["get", "-d", blocked, Self.nginx.url("one.bin")], home: home.path)
        XCTAssertEqual(result.status, 4)
        XCTAssertTrue(result.stderr.contains("cannot use the folder \(blocked): it is a file, not a folder"), result.stderr)
        XCTAssertEqual(try String(contentsOfFile: blocked, encoding: .utf8), "x")
    }

    /// A disk that fills up while tdl writes: a 1 MiB tmpfs mounted in a private mount
    /// namespace (`unshare`, no root needed), and a file of unknown size (chunked) so the
    /// free-space check cannot see it coming. The download fails with "disk full", the partial
    /// stays, it holds the server's bytes, and the session keeps no more progress than that.
    func testDiskFullWhileWritingFailsWithTheReasonAndKeepsThePartial() throws {
        guard let unshare = Processes.which("unshare"),
              try Processes.run(unshare, ["--user", "--map-root-user", "--mount", "true"]).status == 0 else {
            throw XCTSkip("this kernel does not allow a private mount namespace")
        }
        let server = try FaultServer()
        let home = TemporaryDirectory(), small = TemporaryDirectory(), kept = TemporaryDirectory()
        let url = server.url("/file/full.bin?size=3000000&seed=7&chunked=1")
        // The tmpfs lives only as long as the namespace: the partial is copied out before it ends.
        let script = """
            mount -t tmpfs -o size=1m tdl-test "$1" || exit 99
            TDL_HOME="$2" "$3" get -q -d "$1" "$4"
            echo "exit=$?"
            cp "$1/full.bin.part" "$5/full.bin.part"
            """
        let inside = try Processes.run(unshare, ["--user", "--map-root-user", "--mount", "sh", "-c", script, "sh",
                                                 small.path, home.path, Processes.tdlBinary, url, kept.path])
        XCTAssertTrue(inside.stdout.contains("exit=1"), "a failed download exits with 1: " + inside.stdout + inside.stderr)
        XCTAssertTrue(inside.stderr.contains("disk full"), inside.stderr)

        let partial = try Data(contentsOf: URL(fileURLWithPath: kept.file("full.bin.part")))
        XCTAssertGreaterThan(partial.count, 500_000, "the bytes that fit are kept")
        let whole = kept.file("whole.bin")
        try Processes.run(Processes.which("curl") ?? "/usr/bin/curl", ["-s", "-o", whole, server.url("/file/full.bin?size=3000000&seed=7")])
        let source = try Data(contentsOf: URL(fileURLWithPath: whole))
        XCTAssertEqual(partial, source.prefix(partial.count), "the partial holds the server's bytes")

        let list = try Processes.tdl(["list"], home: home.path)
        XCTAssertTrue(list.stdout.contains("disk full"), list.stdout)
    }

    func testResumeAfterKillIsByteIdenticalAndFetchesLittleTwice() throws {
        let server = try FaultServer()
        let home = TemporaryDirectory(), downloads = TemporaryDirectory()
        let size = 10_000_000
        let urls = (1...3).map { server.url("/file/crash\($0).bin?size=\(size)&seed=\($0)&rate=500000") }
        var rounds = 0, kills = 0
        while rounds < 12 {
            rounds += 1
            let process = Process()
            process.executableURL = URL(fileURLWithPath: Processes.tdlBinary)
            process.arguments = ["get", "-q", "-x", "2", "-d", downloads.path] + urls
            process.environment = Processes.baseEnvironment.merging(["TDL_HOME": home.path]) { $1 }
            process.standardError = FileHandle.nullDevice
            try process.run()
            usleep(UInt32.random(in: 2_500_000...4_000_000))
            if !process.isRunning {
                XCTAssertEqual(process.terminationStatus, 0, "tdl get ended by itself with a failure")
                break
            }
            kill(process.processIdentifier, SIGKILL)
            process.waitUntilExit()
            kills += 1
        }
        // Two at least: how far each run gets depends on the machine's load.
        XCTAssertGreaterThanOrEqual(kills, 2, "the downloads were killed mid-way more than once")
        let final = try Processes.tdl(["get", "-q", "-d", downloads.path] + urls, home: home.path, timeout: 120)
        XCTAssertEqual(final.status, 0, final.stderr)
        for k in 1...3 {
            XCTAssertEqual(try Processes.sha256(ofFile: downloads.file("crash\(k).bin")), try server.sha256(name: "crash\(k).bin", size: size, seed: k))
        }
        XCTAssertEqual(try FileManager.default.contentsOfDirectory(atPath: downloads.path).sorted(), ["crash1.bin", "crash2.bin", "crash3.bin"])
        // Bytes written after the last checkpoint are fetched again; starting over would double the total.
        let sent = try server.bodyBytesSent()
        XCTAssertLessThan(sent, Int(Double(3 * size) * 1.6), "sent \(sent) bytes in \(rounds) rounds")
    }

    func testFileChangedOnTheServerBetweenRunsIsNotAppendedTo() throws {
        let site = TemporaryDirectory("tdl-changing")
        try TestFiles.make(site.file("v.bin"), size: 8_000_000, seed: 1)
        let nginx = try LoopbackNginx(root: site.path, rateLimit: "2m")
        let home = TemporaryDirectory(), downloads = TemporaryDirectory()
        let process = Process()
        process.executableURL = URL(fileURLWithPath: Processes.tdlBinary)
        process.arguments = ["get", "-q", "-x", "1", "-d", downloads.path, nginx.url("v.bin")]
        process.environment = Processes.baseEnvironment.merging(["TDL_HOME": home.path]) { $1 }
        try process.run()
        usleep(2_000_000)
        kill(process.processIdentifier, SIGKILL)
        process.waitUntilExit()
        // A new version: same name and size, other bytes, another time stamp (so another ETag).
        try TestFiles.make(site.file("v.bin"), size: 8_000_000, seed: 2)
        let later = Date().addingTimeInterval(60)
        try FileManager.default.setAttributes([.modificationDate: later], ofItemAtPath: site.file("v.bin"))
        let again = try Processes.tdl(["get", "-q", "-d", downloads.path, nginx.url("v.bin")], home: home.path, timeout: 120)
        XCTAssertEqual(again.status, 0, again.stderr)
        XCTAssertEqual(try Processes.sha256(ofFile: downloads.file("v.bin")), try Processes.sha256(ofFile: site.file("v.bin")))
    }

    // MARK: - Input files (`tdl get -i`), as people write them by hand or on Windows

    func assertIdentical(_ path: String, to name: String, line: UInt = #line) throws {
        XCTAssertEqual(try Processes.sha256(ofFile: path), try Processes.sha256(ofFile: Self.site.file(name)), line: line)
    }

    /// A byte order mark, line ends of "\r\n", a comment, blank lines, options under a URL and
    /// two URLs on one line: every file lands where its lines say, and the unknown option is
    /// named.
    func testAWindowsStyleFileWithCommentsAndOptions() throws {
        let home = TemporaryDirectory(), downloads = TemporaryDirectory(), inputs = TemporaryDirectory()
        let other = downloads.file("other")
        try FileManager.default.createDirectory(atPath: other, withIntermediateDirectories: true)
        let lines = [
            "\u{FEFF}" + Self.nginx.url("a.bin"),
            "  out=renamed.bin",
            "# files for the weekend",
            "",
            Self.nginx.url("b.bin"),
            "\tdir=\(other)",
            "\(Self.nginx.url("c.bin")) \(Self.nginx.url("d.bin"))",
            "  colour=blue",
            Self.nginx.url("e.bin"),
        ]
        let input = inputs.file("urls.txt")
        try Data((lines.joined(separator: "\r\n") + "\r\n").utf8).write(to: URL(fileURLWithPath: input))

        let result = try Processes.tdl(["get", "-q", "-d", downloads.path, "-i", input], home: home.path)

        // Everything usable is downloaded; the status still tells a script that a line was not understood.
        XCTAssertEqual(result.status, 2, result.stderr)
        XCTAssertTrue(result.stderr.contains("line 8: unknown option \"colour\""), result.stderr)
        try assertIdentical(downloads.file("renamed.bin"), to: "a.bin")
        try assertIdentical((other as NSString).appendingPathComponent("b.bin"), to: "b.bin")
        for name in ["c.bin", "d.bin", "e.bin"] { try assertIdentical(downloads.file(name), to: name) }
        let left = try FileManager.default.contentsOfDirectory(atPath: downloads.path).sorted()
        XCTAssertEqual(left, ["c.bin", "d.bin", "e.bin", "other", "renamed.bin"])
    }
}
