import Foundation
import TDLTestSupport
import XCTest

/// `tdl get` with Metalink documents (a file, a URL, a line of an input file) against the
/// fault server and nginx on 127.0.0.1: a dead first URL falls to the next, the hash decides
/// whether the file is done, and a hostile name stays inside the download folder.
final class MetalinkDownloadTests: FaultServerTestCase {
    let home = TemporaryDirectory(), work = TemporaryDirectory()
    /// The download folder, two levels down: a name climbing out of it would land in `work`.
    var downloads: String { work.file("a/b") }

    override func setUpWithError() throws {
        try super.setUpWithError()
        try server.reset()
        try FileManager.default.createDirectory(atPath: downloads, withIntermediateDirectories: true)
    }

    static let size = 300_000

    func get(_ arguments: [String]) throws -> Processes.Result {
        try Processes.tdl(["get", "-q", "-d", downloads] + arguments, home: home.path, environment: ["TDL_RETRY_BASE": "0.05"])
    }

    /// A Metalink 4 document of one file; `urls` in priority order (XML-escaped here).
    static func document(name: String, size: Int? = MetalinkDownloadTests.size, sha256: String?, urls: [String]) -> String {
        let escape = { (text: String) in text.replacingOccurrences(of: "&", with: "&amp;").replacingOccurrences(of: "\"", with: "&quot;") }
        var lines = ["<?xml version=\"1.0\" encoding=\"UTF-8\"?>", "<metalink xmlns=\"urn:ietf:params:xml:ns:metalink\">",
                     "  <file name=\"\(escape(name))\">"]
        if let size { lines.append("    <size>\(size)</size>") }
        if let sha256 { lines.append("    <hash type=\"sha-256\">\(sha256)</hash>") }
        for (index, url) in urls.enumerated() { lines.append("    <url priority=\"\(index + 1)\">\(escape(url))</url>") }
        lines += ["  </file>", "</metalink>"]
        return lines.joined(separator: "\n") + "\n"
    }

    func write(_ text: String, _ name: String) throws -> String {
        let path = work.file(name)
        try text.write(toFile: path, atomically: true, encoding: .utf8)
        return path
    }

    func fileURL(_ name: String, seed: Int) -> String { server.url("/file/\(name)?size=\(Self.size)&seed=\(seed)") }

    func testADeadFirstURLFallsToTheMirrorAndTheFileIsCheckedByItsHash() throws {
        let sha = try server.sha256(name: "one.bin", size: Self.size, seed: 5)
        let dead = "http://127.0.0.1:\(RefusingPort.make())/one.bin"
        let doc = try write(Self.document(name: "one.bin", sha256: sha, urls: [dead, fileURL("one.bin", seed: 5)]), "one.meta4")
        let result = try get([doc])
        XCTAssertEqual(result.status, 0, result.stderr)
        XCTAssertEqual(try Processes.sha256(ofFile: downloads + "/one.bin"), sha)
        // The task is the best URL's.
        let list = try Processes.tdl(["list"], home: home.path)
        XCTAssertTrue(list.stdout.contains(dead), list.stdout)
    }

    func testAWrongHashFailsWithAClearMessage() throws {
        let other = try server.sha256(name: "two.bin", size: Self.size, seed: 6)
        let doc = try write(Self.document(name: "two.bin", sha256: other, urls: [fileURL("two.bin", seed: 5)]), "two.metalink")
        let result = try get([doc])
        XCTAssertNotEqual(result.status, 0, result.stderr)
        XCTAssertTrue(result.stderr.contains("checksum mismatch"), result.stderr)
        XCTAssertFalse(FileManager.default.fileExists(atPath: downloads + "/two.bin"))
    }

    func testAnotherSizeThanTheDocumentsFailsBeforeAByteIsWritten() throws {
        let doc = try write(Self.document(name: "three.bin", size: Self.size + 1, sha256: nil, urls: [fileURL("three.bin", seed: 5)]), "three.meta4")
        let result = try get([doc])
        XCTAssertNotEqual(result.status, 0, result.stderr)
        XCTAssertTrue(result.stderr.contains("the Metalink says \(Self.size + 1)"), result.stderr)
        XCTAssertFalse(FileManager.default.fileExists(atPath: downloads + "/three.bin"))
    }

    func testAHostileNameStaysInTheDownloadFolderWithoutEscapes() throws {
        let doc = try write(Self.document(name: "../../x\u{1B}[31m\u{1B}]0;t\u{07}.bin", sha256: nil, urls: [fileURL("x.bin", seed: 5)]), "evil.meta4")
        let result = try get([doc])
        XCTAssertEqual(result.status, 0, result.stderr)
        let names = try FileManager.default.contentsOfDirectory(atPath: downloads)
        XCTAssertEqual(names, ["x[31m]0;t.bin"])
        XCTAssertEqual(try FileManager.default.contentsOfDirectory(atPath: work.file("a")), ["b"])
        XCTAssertFalse(FileManager.default.fileExists(atPath: work.file("x.bin")))
        XCTAssertFalse(result.stderr.contains("\u{1B}"), result.stderr)
    }

    func testADocumentThatIsNotOneIsReportedAndNothingAdded() throws {
        let doc = try write("<!DOCTYPE x [<!ENTITY a \"b\">]><metalink/>", "bad.meta4")
        let result = try get([doc, fileURL("fine.bin", seed: 5)])
        XCTAssertEqual(result.status, 2, result.stderr)
        XCTAssertTrue(result.stderr.contains("DOCTYPE and entity declarations are refused"), result.stderr)
        XCTAssertTrue(FileManager.default.fileExists(atPath: downloads + "/fine.bin"), "the other URL still downloads")
    }

    /// `--checksum` names one file: with a document of several it is refused (exit 2) and
    /// nothing is downloaded; a document of one file takes it.
    func testAChecksumGivenWithADocumentOfSeveralFilesIsRefused() throws {
        let sha = try server.sha256(name: "c1.bin", size: Self.size, seed: 11)
        let two = """
            <?xml version="1.0" encoding="UTF-8"?>
            <metalink xmlns="urn:ietf:params:xml:ns:metalink">
              <file name="c1.bin"><url>\(fileURL("c1.bin", seed: 11).replacingOccurrences(of: "&", with: "&amp;"))</url></file>
              <file name="c2.bin"><url>\(fileURL("c2.bin", seed: 12).replacingOccurrences(of: "&", with: "&amp;"))</url></file>
            </metalink>
            """
        let doc = try write(two, "two.meta4")
        let refused = try get(["--checksum", "sha-256=\(sha)", doc])
        XCTAssertEqual(refused.status, 2, refused.stderr)
        XCTAssertTrue(refused.stderr.contains("--checksum names one file, but \(doc) lists 2 files"), refused.stderr)
        XCTAssertEqual(try server.requests(to: "/file/c1.bin").total + server.requests(to: "/file/c2.bin").total, 0)
        XCTAssertEqual(try FileManager.default.contentsOfDirectory(atPath: downloads), [])
        let list = try Processes.tdl(["list"], home: home.path)
        XCTAssertFalse(list.stdout.contains("c1.bin") || list.stdout.contains("c2.bin"), list.stdout)
        // The same document without --checksum downloads both files.
        let plain = try get([doc])
        XCTAssertEqual(plain.status, 0, plain.stderr)
        XCTAssertEqual(try Processes.sha256(ofFile: downloads + "/c1.bin"), sha)
        // One file: the checksum is that file's, and a wrong one fails it.
        let one = try write(Self.document(name: "c3.bin", sha256: nil, urls: [fileURL("c3.bin", seed: 11)]), "one.meta4")
        let wrong = try get(["--checksum", "sha-256=" + String(repeating: "0", count: 64), one])
        XCTAssertEqual(wrong.status, 1, wrong.stderr)
        XCTAssertTrue(wrong.stderr.contains("checksum mismatch"), wrong.stderr)
        let right = try get(["--checksum", "sha-256=\(sha)", one])
        XCTAssertEqual(right.status, 0, right.stderr)
        XCTAssertEqual(try Processes.sha256(ofFile: downloads + "/c3.bin"), sha)
    }

    /// `tdl add` reads the document too: its files are what the session holds.
    func testTdlAddAddsTheFilesOfADocument() throws {
        let url = fileURL("added.bin", seed: 9)
        let doc = try write(Self.document(name: "added.bin", sha256: nil, urls: [url]), "added.meta4")
        let result = try Processes.tdl(["add", "-d", downloads, doc], home: home.path)
        XCTAssertEqual(result.status, 0, result.stderr)
        let list = try Processes.tdl(["list"], home: home.path)
        XCTAssertTrue(list.stdout.contains("added.bin") && list.stdout.contains(url), list.stdout)
        XCTAssertFalse(list.stdout.contains("meta4"), list.stdout)
    }

    /// Typed at the screen's add prompt, a document's path adds its file, under its name.
    func testAMetalinkAtTheAddPrompt() throws {
        let sha = try server.sha256(name: "p.bin", size: Self.size, seed: 8)
        let doc = try write(Self.document(name: "prompted.bin", sha256: sha, urls: [fileURL("p.bin", seed: 8)]), "p.meta4")
        let screen = work.file("screen.txt"), script = work.file("script")
        try ["a", ":type \(doc)", "<Enter>", ":wait-idle 20", ":save-display \(screen)", "q"].joined(separator: "\n")
            .write(toFile: script, atomically: true, encoding: .utf8)
        let result = try Processes.tdl(["-d", downloads], home: home.path,
                                       environment: ["TDL_SCRIPT": script, "TDL_SCRIPT_SIZE": "100x20", "NO_COLOR": "1", "LC_ALL": "C.UTF-8"],
                                       timeout: 60)
        XCTAssertEqual(result.status, 0, result.stderr)
        let shown = try String(contentsOfFile: screen, encoding: .utf8)
        XCTAssertTrue(shown.contains("prompted.bin"), shown)
        XCTAssertEqual(try Processes.sha256(ofFile: downloads + "/prompted.bin"), sha)
    }

    /// A document typed at the add prompt is fetched off the loop: while the server holds it
    /// back, the message line says so and keys are answered (here a second add prompt, typed
    /// into); its file is added when it arrives. The test releases the document only after the
    /// keys took effect, so no timing is assumed.
    func testASlowMetalinkAtTheAddPromptLeavesTheScreenAnswering() throws {
        let sha = try server.sha256(name: "slow.bin", size: Self.size, seed: 13)
        let site = TemporaryDirectory("tdl-metalink-site")
        try Self.document(name: "slowly.bin", sha256: sha, urls: [fileURL("slow.bin", seed: 13)])
            .write(toFile: site.file("slow.meta4"), atomically: true, encoding: .utf8)
        let release = site.file("release"), portFile = site.file("port")
        let holder = try Self.holdingServer(serving: site.file("slow.meta4"), until: release, portFile: portFile)
        defer { holder.terminate(); holder.waitUntilExit() }
        XCTAssertTrue(Processes.waitUntil(timeout: 15) { FileManager.default.fileExists(atPath: portFile) }, "the holding server did not start")
        let port = try String(contentsOfFile: portFile, encoding: .utf8).trimmingCharacters(in: .whitespacesAndNewlines)
        let first = work.file("first.txt"), typed = work.file("typed.txt"), last = work.file("last.txt"), script = work.file("script")
        try ["a", ":type http://127.0.0.1:\(port)/slow.meta4", "<Enter>", ":save-display \(first)", "a", ":type meanwhile",
             ":save-display \(typed)", "<Esc>", ":wait-idle 40", ":save-display \(last)", "q"].joined(separator: "\n")
            .write(toFile: script, atomically: true, encoding: .utf8)
        let (tdl, stderr) = try Processes.start(Processes.tdlBinary, ["-d", downloads],
                                                environment: ["TDL_HOME": home.path, "TDL_SCRIPT": script, "TDL_SCRIPT_SIZE": "100x20",
                                                              "NO_COLOR": "1", "LC_ALL": "C.UTF-8"])
        defer { if tdl.isRunning { tdl.terminate() } }
        // The second prompt is shown and typed into while the document is still held back.
        let answered = Processes.waitUntil(timeout: 30) { FileManager.default.fileExists(atPath: typed) }
        XCTAssertTrue(answered, "the keys waited for the fetch")
        XCTAssertTrue(tdl.isRunning)
        if answered {
            let during = try String(contentsOfFile: first, encoding: .utf8)
            XCTAssertTrue(during.contains("fetching http://127.0.0.1:"), during)
            XCTAssertFalse(during.contains("slowly.bin"), during)
            let prompt = try String(contentsOfFile: typed, encoding: .utf8)
            XCTAssertTrue(prompt.contains("Add URL(s): meanwhile"), prompt)
        }
        XCTAssertTrue(FileManager.default.createFile(atPath: release, contents: Data()))
        XCTAssertTrue(Processes.waitUntil(timeout: 60) { !tdl.isRunning }, "tdl did not end")
        XCTAssertEqual(tdl.terminationStatus, 0, String(decoding: stderr.fileHandleForReading.readDataToEndOfFile(), as: UTF8.self))
        let after = try String(contentsOfFile: last, encoding: .utf8)
        XCTAssertTrue(after.contains("slowly.bin"), after)
        XCTAssertEqual(try Processes.sha256(ofFile: downloads + "/slowly.bin"), sha)
    }

    /// Quitting while a typed document is still being read drops it: once the screen is gone,
    /// stderr says that nothing was added from it.
    func testQuittingWhileAMetalinkIsReadSaysNothingWasAddedFromIt() throws {
        let site = TemporaryDirectory("tdl-metalink-site")
        try Self.document(name: "never.bin", sha256: nil, urls: [fileURL("never.bin", seed: 2)])
            .write(toFile: site.file("never.meta4"), atomically: true, encoding: .utf8)
        let portFile = site.file("port")
        let holder = try Self.holdingServer(serving: site.file("never.meta4"), until: site.file("release"), portFile: portFile)
        defer { holder.terminate(); holder.waitUntilExit() }
        XCTAssertTrue(Processes.waitUntil(timeout: 15) { FileManager.default.fileExists(atPath: portFile) }, "the holding server did not start")
        let port = try String(contentsOfFile: portFile, encoding: .utf8).trimmingCharacters(in: .whitespacesAndNewlines)
        let script = work.file("script")
        try ["a", ":type http://127.0.0.1:\(port)/never.meta4", "<Enter>", "q"].joined(separator: "\n")
            .write(toFile: script, atomically: true, encoding: .utf8)
        let result = try Processes.tdl(["-d", downloads], home: home.path,
                                       environment: ["TDL_SCRIPT": script, "TDL_SCRIPT_SIZE": "100x20", "NO_COLOR": "1", "LC_ALL": "C.UTF-8"],
                                       timeout: 60)
        XCTAssertEqual(result.status, 0, result.stderr)
        XCTAssertTrue(result.stderr.contains("a Metalink document was still being read: nothing was added from it"), result.stderr)
        let listed = try Processes.tdl(["list"], home: home.path, timeout: 30)
        XCTAssertFalse(listed.stdout.contains("never.bin"), listed.stdout)
    }

    /// An HTTP server that answers every request with `document` only once `release` exists;
    /// it writes its port to `portFile` when it listens.
    static func holdingServer(serving document: String, until release: String, portFile: String) throws -> Process {
        let code = """
            import http.server, os, sys, time
            document, release, port_file = sys.argv[1:4]
            class Held(http.server.BaseHTTPRequestHandler):
                def do_GET(self):
                    while not os.path.exists(release):
                        time.sleep(0.05)
                    body = open(document, "rb").read()
                    self.send_response(200)
                    self.send_header("Content-Type", "application/metalink4+xml")
                    self.send_header("Content-Length", str(len(body)))
                    self.end_headers()
                    self.wfile.write(body)
                def log_message(self, *args):
                    pass
            server = http.server.ThreadingHTTPServer(("127.0.0.1", 0), Held)
            with open(port_file + ".new", "w") as f:
                f.write(str(server.server_address[1]))
            os.rename(port_file + ".new", port_file)
            server.serve_forever()
            """
        let process = Process()
        process.executableURL = URL(fileURLWithPath: Processes.which("python3") ?? "/usr/bin/python3")
        process.arguments = ["-c", code, document, release, portFile]
        process.standardOutput = FileHandle.nullDevice
        try process.run()
        return process
    }

    /// A document served over HTTP, named in an input file with its own folder: both files of
    /// it arrive, in that folder.
    func testAMetalinkURLInAnInputFile() throws {
        let site = TemporaryDirectory("tdl-metalink-site")
        try TestFiles.make(site.file("a.bin"), size: 200_000, seed: 3)
        try TestFiles.make(site.file("b.bin"), size: 100_000, seed: 4)
        let nginx = try LoopbackNginx(root: site.path)
        let doc = """
            <?xml version="1.0" encoding="utf-8"?>
            <metalink version="3.0" xmlns="http://www.metalinker.org/">
              <files>
                <file name="a.bin"><size>200000</size>
                  <verification><hash type="sha256">\(try Processes.sha256(ofFile: site.file("a.bin")))</hash></verification>
                  <resources><url type="http" preference="10">\(nginx.url("a.bin"))</url>
                    <url type="http" preference="100">http://127.0.0.1:\(RefusingPort.make())/a.bin</url></resources>
                </file>
                <file name="b.bin"><resources><url type="http">\(nginx.url("b.bin"))</url></resources></file>
              </files>
            </metalink>
            """
        try doc.write(toFile: site.file("list.meta4"), atomically: true, encoding: .utf8)
        let input = try write(nginx.url("list.meta4") + "\n  dir=\(work.file("mine"))\n", "input.txt")
        let result = try get(["-i", input])
        XCTAssertEqual(result.status, 0, result.stderr)
        XCTAssertEqual(try Processes.sha256(ofFile: work.file("mine/a.bin")), try Processes.sha256(ofFile: site.file("a.bin")))
        XCTAssertEqual(try Processes.sha256(ofFile: work.file("mine/b.bin")), try Processes.sha256(ofFile: site.file("b.bin")))
    }

    /// A Metalink's URLs are the document's choice: the user's Authorization given for the
    /// document goes to none of the files on another host, nor to any a file on disk lists.
    func testTheUsersHeadersGoOnlyToTheDocumentsOwnHost() throws {
        let sha = try server.sha256(name: "far.bin", size: Self.size, seed: 7)
        let site = TemporaryDirectory("tdl-metalink-site")
        let nginx = try LoopbackNginx(root: site.path)
        try Self.document(name: "far.bin", sha256: sha, urls: [fileURL("far.bin", seed: 7)])
            .write(toFile: site.file("far.meta4"), atomically: true, encoding: .utf8)
        let local = try write(Self.document(name: "near.bin", sha256: nil, urls: [fileURL("near.bin", seed: 7)]), "near.meta4")
        let header = "\n  header=Authorization: Bearer s3cret\n  header=X-Api-Key: k3y\n"
        let input = try write(nginx.url("far.meta4") + header + local + header, "input.txt")
        let result = try get(["-i", input])
        XCTAssertEqual(result.status, 0, result.stderr)
        XCTAssertEqual(try Processes.sha256(ofFile: downloads + "/far.bin"), sha)
        for path in ["/file/far.bin", "/file/near.bin"] {
            XCTAssertGreaterThan(try server.requests(to: path).total, 0, path)
            XCTAssertEqual(try server.requests(to: path, carrying: "Authorization"), 0, path)
            XCTAssertEqual(try server.requests(to: path, carrying: "X-Api-Key"), 0, path)
        }
        XCTAssertTrue(result.stderr.contains("not sent for far.bin: it is downloaded from another host than the document's"), result.stderr)
        XCTAssertTrue(result.stderr.contains("not sent for near.bin: a document read from disk chose its hosts"), result.stderr)
        // The command's own -H is weighed the same way.
        let byFlag = try write(Self.document(name: "flag.bin", sha256: nil, urls: [fileURL("flag.bin", seed: 7)]), "flag.meta4")
        let flagged = try get(["-H", "Authorization: Bearer s3cret", byFlag])
        XCTAssertEqual(flagged.status, 0, flagged.stderr)
        XCTAssertGreaterThan(try server.requests(to: "/file/flag.bin").total, 0)
        XCTAssertEqual(try server.requests(to: "/file/flag.bin", carrying: "Authorization"), 0)
    }
}
