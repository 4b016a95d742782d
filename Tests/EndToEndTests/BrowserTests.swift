import Foundation
import XCTest
import TDLTestSupport

/// A real browser (headless Chromium) opens a page served from another loopback port whose
/// script calls `tdl serve` as a hostile page would — a text/plain POST, which needs no
/// preflight, and a WebSocket — even knowing the secret, and writes what happened into the
/// page; `--dump-dom` prints it. Refused by default; answered for an origin the user allowed.
final class BrowserTests: XCTestCase {
    var site: TemporaryDirectory!
    var home: TemporaryDirectory!
    var downloads: TemporaryDirectory!
    /// The page's server: Python's, which names .html as text/html.
    var pages: Process?
    var pagePort = 0
    var chromium = ""
    var port = 0

    override func setUpWithError() throws {
        chromium = try XCTUnwrap(Processes.which("chromium"), "chromium is missing (run make test-deps)")
        site = TemporaryDirectory("tdl-browser-site")
        home = TemporaryDirectory()
        downloads = TemporaryDirectory()
        pagePort = RefusingPort.make()
        pages = try Processes.start(try XCTUnwrap(Processes.which("python3")),
                                    ["-m", "http.server", String(pagePort), "--bind", "127.0.0.1", "--directory", site.path]).0
        XCTAssertTrue(Processes.waitUntil(timeout: 10) { LoopbackNginx.canConnect(pagePort) }, "the page server did not listen")
        port = RefusingPort.make()
    }

    override func tearDown() {
        pages?.terminate()
        pages?.waitUntilExit()
    }

    /// The page's origin, as the browser names it.
    var pageOrigin: String { "http://127.0.0.1:\(pagePort)" }

    func writePage(secret: String) throws {
        try """
            <!doctype html><html><body><pre id="out">running</pre><script>
            const rpc = "127.0.0.1:\(port)/jsonrpc", token = "token:\(secret)", results = {};
            function done(key, text) {
              if (results[key] !== undefined) return;
              results[key] = text;
              if (results.post !== undefined && results.ws !== undefined)
                document.getElementById("out").textContent = "POST " + results.post + "\\nWS " + results.ws;
            }
            fetch("http://" + rpc, {method: "POST", headers: {"Content-Type": "text/plain"},
                  body: JSON.stringify({jsonrpc: "2.0", id: 1, method: "aria2.addUri", params: [token, ["http://127.0.0.1:1/from-page"]]})})
              .then(r => r.text()).then(t => done("post", "answered " + t), e => done("post", "failed " + e));
            const ws = new WebSocket("ws://" + rpc);
            ws.onopen = () => ws.send(JSON.stringify({jsonrpc: "2.0", id: 2, method: "aria2.getVersion", params: [token]}));
            // The answer, not a notification of the POST's download.
            ws.onmessage = m => { if (JSON.parse(m.data).id === 2) done("ws", "answered " + m.data); };
            ws.onerror = () => done("ws", "failed");
            ws.onclose = () => done("ws", "failed (closed)");
            </script></body></html>
            """.write(toFile: site.file("page.html"), atomically: true, encoding: .utf8)
    }

    /// What the page wrote into its `out` once its script ran. Virtual time does not wait for a
    /// WebSocket's messages, so on a busy machine the DOM can be printed before the answers
    /// came: that run says nothing ("running") and the page is opened again, a few times.
    func openPage() throws -> String {
        var shown = ""
        for _ in 1...5 {
            shown = try openPageOnce()
            if shown != "running" { break }
        }
        return shown
    }

    func openPageOnce() throws -> String {
        let profile = TemporaryDirectory("tdl-chromium")
        let result = try Processes.run(chromium, ["--headless=new", "--no-sandbox", "--disable-gpu", "--no-first-run",
                                                  "--user-data-dir=\(profile.path)", "--virtual-time-budget=5000",
                                                  "--dump-dom", pageOrigin + "/page.html"], timeout: 60)
        XCTAssertEqual(result.status, 0, result.stderr)
        let dom = result.stdout
        guard let start = dom.range(of: "<pre id=\"out\">"), let end = dom.range(of: "</pre>", range: start.upperBound ..< dom.endIndex) else {
            return dom
        }
        return String(dom[start.upperBound ..< end.lowerBound]).replacingOccurrences(of: "&quot;", with: "\"")
    }

    func serve(_ extra: [String]) throws -> (Process, Pipe) {
        let started = try Processes.start(Processes.tdlBinary, ["serve", "-d", downloads.path, "--rpc-listen-port", String(port)] + extra,
                                          environment: ["TDL_HOME": home.path])
        XCTAssertTrue(Processes.waitUntil(timeout: 10) { LoopbackNginx.canConnect(port) }, "tdl serve did not listen")
        return started
    }

    func stop(_ serve: (Process, Pipe)) {
        serve.0.terminate()
        serve.0.waitUntilExit()
    }

    func listedURLs() throws -> [String] {
        let json = try Processes.tdl(["list", "--json"], home: home.path)
        let rows = try JSONSerialization.jsonObject(with: Data(json.stdout.utf8)) as? [[String: Any]] ?? []
        return rows.compactMap { $0["url"] as? String }
    }

    func testAPageOfAnotherOriginCannotCallEvenWithTheSecretAnAllowedOneCan() throws {
        let refused = try serve(["--rpc-secret", "sesame"])
        try writePage(secret: "sesame")
        let dom = try openPage()
        stop(refused)
        XCTAssertTrue(dom.contains("POST failed"), dom)
        XCTAssertTrue(dom.contains("WS failed"), dom)
        XCTAssertFalse(dom.contains("answered"), dom)
        XCTAssertTrue(try listedURLs().isEmpty, "the page's POST added nothing")

        let allowed = try serve(["--rpc-secret", "sesame", "--rpc-allow-origin", pageOrigin])
        let answered = try openPage()
        stop(allowed)
        XCTAssertTrue(answered.contains("POST answered {\"id\":1,\"jsonrpc\":\"2.0\",\"result\":"), answered)
        XCTAssertTrue(answered.contains("WS answered") && answered.contains("\"enabledFeatures\":["), answered)
        XCTAssertEqual(try listedURLs(), ["http://127.0.0.1:1/from-page"])
    }
}
