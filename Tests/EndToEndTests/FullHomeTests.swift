import Foundation
import TDLCore
import TDLTestSupport
import XCTest

/// A home whose disk fills up: a download starts only after the session committed its name,
/// so a run that cannot save starts nothing more, exits 5 with the path and the reason, and
/// the same command after space returns finishes the same names, with no `name (1)` copy and
/// no orphaned part file. Each test mounts a small tmpfs in a private mount namespace.
final class FullHomeTests: XCTestCase {
    static let site = TemporaryDirectory("tdl-full-home-site")
    /// Made once for the class, kept behind a lock (its tests may run on other threads).
    static var nginx: LoopbackNginx! { get { nginxStore.get() } set { nginxStore.set(newValue) } }
    private static let nginxStore = Locked<LoopbackNginx?>(nil)
    static let count = 200

    override class func setUp() {
        do {
            for i in 1...count { try TestFiles.make(site.file("f\(i).bin"), size: 3_000, seed: UInt64(i)) }
            nginx = try LoopbackNginx(root: site.path)
        } catch {
            XCTFail("\(error)")
        }
    }

    override class func tearDown() { nginx = nil }

    func unshare() throws -> String {
        guard let unshare = Processes.which("unshare"),
              try Processes.run(unshare, ["--user", "--map-root-user", "--mount", "true"]).status == 0 else {
            throw XCTSkip("this kernel does not allow a private user and mount namespace")
        }
        return unshare
    }

    /// Mounts a 16 MiB tmpfs on `$1` (the home is `$1/home`), makes the session, fills the disk up to
    /// `room` 4 KiB blocks, runs `body`, then frees the disk and runs `body` again.
    func runTwice(_ body: String, downloadsOnTheHomeDisk: Bool, room: Int = 30) throws -> Processes.Result {
        let unshare = try unshare()
        let home = TemporaryDirectory(), downloads = TemporaryDirectory(), input = TemporaryDirectory()
        let urls = (1...Self.count).map { Self.nginx.url("f\($0).bin") }
        try (urls.joined(separator: "\n") + "\n").write(toFile: input.file("urls.txt"), atomically: true, encoding: .utf8)
        let script = """
            mount -t tmpfs -o size=16m tdl-test "$1" || exit 99
            # The home is a folder of the disk, not the disk: downloads never go into the home.
            mkdir -m 700 "$1/home"
            export TDL_HOME="$1/home" TDL="$2" URLS="$3" DL="$4"
            [ "$5" = same ] && DL="$1/dl" && mkdir "$DL"
            "$TDL" add http://127.0.0.1:9/x.bin >/dev/null && "$TDL" rm --purge http://127.0.0.1:9/x.bin >/dev/null || exit 98
            dd if=/dev/zero of="$1/filler" bs=4k 2>/dev/null; rm "$1/filler"
            dd if=/dev/zero of="$1/filler" bs=4k count=$(( $(df -k --output=avail "$1" | tail -1) / 4 - \(room) )) 2>/dev/null
            run() { \(body); }
            run; echo "first=$?"
            echo "after first: $(ls "$DL" | grep -c ' (1)') copies, $(ls "$DL" | wc -l) entries"
            rm "$1/filler"
            run; echo "second=$?"
            echo "after second: $(ls "$DL" | grep -c ' (1)') copies, $(ls "$DL" | grep -c '\\.part$') parts, $(ls "$DL" | grep -c '\\.bin$') files"
            cmp -s "$DL/f7.bin" "$6/f7.bin" && echo same-bytes
            """
        return try Processes.run(unshare, ["--user", "--map-root-user", "--mount", "sh", "-c", script, "sh", home.path,
                                           Processes.tdlBinary, input.file("urls.txt"), downloads.path,
                                           downloadsOnTheHomeDisk ? "same" : "apart", Self.site.path], timeout: 240)
    }

    func assertSecondRunFinishedEverything(_ run: Processes.Result, file: StaticString = #filePath, line: UInt = #line) {
        let text = run.stdout + run.stderr
        XCTAssertTrue(run.stdout.contains("first=5\n"), "a run that cannot save exits 5: " + text, file: file, line: line)
        XCTAssertTrue(run.stderr.contains("/session.sqlite: database or disk is full"), "path and reason: " + text, file: file, line: line)
        XCTAssertTrue(run.stdout.contains("second=0\n"), text, file: file, line: line)
        XCTAssertTrue(run.stdout.contains("after second: 0 copies, 0 parts, \(Self.count) files\n"), text, file: file, line: line)
        XCTAssertTrue(run.stdout.contains("same-bytes"), text, file: file, line: line)
    }

    func testGetWithTheHomeFullStartsNothingUnrecordedAndTheSameCommandFinishes() throws {
        let run = try runTwice(#""$TDL" get -q -j 4 -d "$DL" -i "$URLS""#, downloadsOnTheHomeDisk: false)
        assertSecondRunFinishedEverything(run)
        XCTAssertFalse(run.stderr.contains("disk full"), "the downloads' own disk had room: " + run.stderr)
    }

    func testGetWithTheHomeAndTheDownloadsOnOneFullDiskLeavesNoOrphans() throws {
        let run = try runTwice(#""$TDL" get -q -j 4 -d "$DL" -i "$URLS""#, downloadsOnTheHomeDisk: true)
        assertSecondRunFinishedEverything(run)
    }

    /// `add -i` says "added" only for what a commit added: with the home full, nothing.
    func testAddFromAFileIntoAFullHomeSaysNothingWasAdded() throws {
        let run = try runTwice(#""$TDL" add -d "$DL" -i "$URLS" > "$1/../out-$$" 2>&1; s=$?; echo "added=$(grep -c '^added' "$1/../out-$$")"; return $s"#,
                               downloadsOnTheHomeDisk: false, room: 12)
        let text = run.stdout + run.stderr
        XCTAssertTrue(run.stdout.contains("added=0\nfirst=5\n"), "no added line, exit 5: " + text)
        XCTAssertTrue(run.stdout.contains("added=\(Self.count)\nsecond=0\n"), "every URL added once there is room: " + text)
    }

    /// The full-screen list on a full home: 200 URLs pasted wait, none starts, the message
    /// line says why; once there is room they all download under their own names.
    func testTheScreenHoldsStillUntilTheSessionCanBeSaved() throws {
        let unshare = try unshare()
        let home = TemporaryDirectory(), downloads = TemporaryDirectory(), work = TemporaryDirectory("tdl-screen")
        let urls = (1...Self.count).map { Self.nginx.url("f\($0).bin") }
        try ["a", ":paste " + urls.joined(separator: "\\n"), "<Enter>", ":sleep 1500", ":save-display \(work.file("held.txt"))",
             ":sleep 2000", ":wait-idle 60", ":save-display \(work.file("done.txt"))", "q"]
            .joined(separator: "\n").write(toFile: work.file("script"), atomically: true, encoding: .utf8)
        let script = """
            mount -t tmpfs -o size=16m tdl-test "$1" || exit 99
            export TDL_HOME="$1"
            "$2" add http://127.0.0.1:9/x.bin >/dev/null && "$2" rm --purge http://127.0.0.1:9/x.bin >/dev/null || exit 98
            dd if=/dev/zero of="$1/filler" bs=4k 2>/dev/null; rm "$1/filler"
            dd if=/dev/zero of="$1/filler" bs=4k count=$(( $(df -k --output=avail "$1" | tail -1) / 4 - 30 )) 2>/dev/null
            (sleep 2.5; rm "$1/filler") &
            TDL_SCRIPT="$4/script" TDL_SCRIPT_SIZE=100x20 NO_COLOR=1 LC_ALL=C.UTF-8 "$2" -d "$3"; echo "screen=$?"
            wait
            echo "files: $(ls "$3" | grep -c '\\.bin$'), copies: $(ls "$3" | grep -c ' (1)'), parts: $(ls "$3" | grep -c part)"
            """
        let run = try Processes.run(unshare, ["--user", "--map-root-user", "--mount", "sh", "-c", script, "sh", home.path,
                                              Processes.tdlBinary, downloads.path, work.path], timeout: 120)
        let text = run.stdout + run.stderr
        XCTAssertTrue(run.stdout.contains("screen=0\n"), text)
        XCTAssertTrue(run.stdout.contains("files: \(Self.count), copies: 0, parts: 0"), text)
        let held = try String(contentsOfFile: work.file("held.txt"), encoding: .utf8)
        XCTAssertTrue(held.contains("could not save the session"), held)
        XCTAssertFalse(held.contains("Done"), "nothing finished while the session could not be saved: " + held)
        let done = try String(contentsOfFile: work.file("done.txt"), encoding: .utf8)
        XCTAssertTrue(done.contains("\(Self.count) done"), done)
    }
}
