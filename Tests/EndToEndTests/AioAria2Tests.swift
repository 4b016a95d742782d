import Foundation
import TDLTestSupport
import XCTest

/// aioaria2 (an asyncio client from PyPI, in .build/aria2-clients): its HTTP client does what a
/// front end does and its WebSocket client hears the notifications, which must be what
/// Debian's aria2c sent for the same script.
final class AioAria2Tests: XCTestCase {
    override class func setUp() { Aria2tuiTests.setUp() }

    func testItsCallsAndNotificationsAreAria2cs() throws {
        let python = Aria2tuiTests.venv + "/bin/python"
        try XCTSkipUnless(FileManager.default.isExecutableFile(atPath: python),
                          "aioaria2 could not be installed (run scripts/install-deps.sh --aria2-clients, or make test-deps)")
        let site = TemporaryDirectory("tdl-aio-site"), home = TemporaryDirectory(), downloads = TemporaryDirectory()
        _ = try TestFiles.make(site.file("small.bin"), size: 200_000, seed: 51)
        _ = try TestFiles.make(site.file("big.bin"), size: 20_000_000, seed: 52)
        let nginx = try LoopbackNginx(root: site.path, rateLimit: "256k")
        let port = RefusingPort.make()
        let (serve, _) = try Processes.start(Processes.tdlBinary, ["serve", "-d", downloads.path, "--rpc-listen-port", String(port),
                                                                   "--rpc-secret", "sesame"], environment: ["TDL_HOME": home.path])
        defer {
            serve.terminate()
            serve.waitUntilExit()
        }
        XCTAssertTrue(Processes.waitUntil(timeout: 10) { LoopbackNginx.canConnect(port) }, "tdl serve did not listen")
        let script = site.file("aio.py")
        try Self.script.write(toFile: script, atomically: true, encoding: .utf8)
        let result = try Processes.run(python, [script, String(port), nginx.url("")], timeout: 60)
        XCTAssertEqual(result.status, 0, result.stdout + result.stderr)
        let report = try XCTUnwrap(try JSONSerialization.jsonObject(with: Data(result.stdout.utf8)) as? [String: Any], result.stdout)
        // What aria2c 1.37 answered and told for the same script.
        XCTAssertEqual(report["empty"] as? [[String]], [[], [], []])
        XCTAssertEqual(report["states"] as? [String], ["complete", "error", "paused", "active", "error", "removed"])
        XCTAssertEqual(report["stopped"] as? [String], ["complete", "error", "error"])
        XCTAssertEqual(report["purge"] as? String, "OK")
        XCTAssertEqual(report["after"] as? [[String]], [[], [], []])
        XCTAssertEqual(report["heard"] as? [String], [
            "onDownloadComplete small", "onDownloadError again", "onDownloadError missing", "onDownloadPause big",
            "onDownloadStart again", "onDownloadStart big", "onDownloadStart big", "onDownloadStart missing",
            "onDownloadStart small", "onDownloadStop big",
        ])
    }

    static let script = #"""
import asyncio, json, sys, time
import aioaria2
port, base = int(sys.argv[1]), sys.argv[2].rstrip("/")
async def main():
    out, heard, states = {}, [], []
    endpoint = f"http://127.0.0.1:{port}/jsonrpc"
    async with aioaria2.Aria2HttpClient(endpoint, token="sesame") as c:
        ws = await aioaria2.Aria2WebsocketClient.new(endpoint, token="sesame")
        for name in ["onDownloadStart", "onDownloadPause", "onDownloadStop", "onDownloadComplete", "onDownloadError"]:
            def make(n):
                async def on(trigger, data):
                    heard.append([n, data["params"][0]["gid"]])
                return on
            getattr(ws, name)(make(name))
        out["empty"] = [await c.tellActive(), await c.tellWaiting(0, 10), await c.tellStopped(0, 10)]
        async def status(gid): return (await c.tellStatus(gid, ["status"]))["status"]
        async def wait(gid, wanted):
            end = time.time() + 20
            while time.time() < end and await status(gid) not in wanted: await asyncio.sleep(0.05)
            states.append(await status(gid))
        big = await c.addUri([base + "/big.bin"])
        small = await c.addUri([base + "/small.bin"])
        missing = await c.addUri([base + "/missing.bin"])
        await wait(small, ["complete"])
        await wait(missing, ["error"])
        await c.pause(big)
        await wait(big, ["paused"])
        await c.unpause(big)
        await wait(big, ["active"])
        # A retry as front ends make one: the failed download's URIs and options, added again.
        uris = [u["uri"] for u in (await c.getFiles(missing))[0]["uris"]]
        options = await c.getOption(missing)
        again = await c.addUri(uris, {k: v for k, v in options.items() if k in ("dir", "out", "split")})
        await wait(again, ["error"])
        out["stopped"] = sorted(d["status"] for d in await c.tellStopped(0, 10, ["status"]))
        await c.remove(big)
        await wait(big, ["removed"])
        await c.removeDownloadResult(big)
        out["purge"] = await c.purgeDownloadResult()
        out["after"] = [await c.tellActive(["gid"]), await c.tellWaiting(0, 10, ["gid"]), await c.tellStopped(0, 10, ["gid"])]
        await asyncio.sleep(0.5)
        names = {big: "big", small: "small", missing: "missing", again: "again"}
        out["heard"] = sorted(f"{n} {names.get(g, '?')}" for n, g in heard)
        out["states"] = states
        await ws.close()
    print(json.dumps(out))
asyncio.run(main())
"""#
}
