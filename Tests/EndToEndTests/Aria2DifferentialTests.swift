import Foundation
import TDLTestSupport
import XCTest

/// The same calls to Debian's `aria2c --enable-rpc` and to `tdl serve`, both on 127.0.0.1 and
/// downloading from one local nginx; the answers are compared call by call: HTTP status,
/// errors (code and message, GIDs masked), and results by their keys and value types (or their
/// values, where both must agree), never GIDs or times. A change on either side shows here.
final class Aria2DifferentialTests: XCTestCase {
    /// What still differs, on purpose or not yet: an active download has no `bitfield` (tdl
    /// keeps byte ranges, not aria2's pieces), and a URL still in a queue added again is one
    /// download in tdl, its old GID removed (aria2 keeps two downloads of the file).
    static let knownDifferences: Set<String> = ["tellActive shape", "re-add in a queue: old"]

    func testTdlAnswersAsAria2cDoes() throws {
        let site = TemporaryDirectory("tdl-diff-site")
        _ = try TestFiles.make(site.file("big.bin"), size: 3_000_000, seed: 21)
        _ = try TestFiles.make(site.file("small.bin"), size: 200_000, seed: 22)
        let nginx = try LoopbackNginx(root: site.path, rateLimit: "256k")
        let both = try Aria2SideBySide()
        defer { both.stop() }
        let tdlFolder = both.tdlFolder, aria2Folder = both.aria2Folder
        let script = site.file("differ.py")
        try Self.script.write(toFile: script, atomically: true, encoding: .utf8)
        // Each side downloads into its own folder: the folder is given as each one's own.
        let run = try Processes.run("/usr/bin/python3", [script, both.tdlEndpoint, both.aria2Endpoint,
                                                         nginx.url("big.bin"), tdlFolder.path, aria2Folder.path], timeout: 120)
        XCTAssertEqual(run.status, 0, run.stderr)
        let differences = run.stdout.split(separator: "\n").map(String.init)
        XCTAssertGreaterThan(run.stderr.count, 0, "the script tells how many calls it compared")
        for line in differences {
            let call = (try? JSONSerialization.jsonObject(with: Data(line.utf8)) as? [String: Any])?["call"] as? String ?? line
            XCTAssertTrue(Self.knownDifferences.contains(call), "tdl and aria2c differ: \(line)")
        }
    }

    static let script = #"""
import time, json, re, sys, urllib.request, urllib.error

def call(endpoint, method, params, secret="sesame"):
    body = json.dumps({"jsonrpc": "2.0", "id": "d", "method": method,
                       "params": (["token:" + secret] if method.startswith("aria2.") else []) + params}).encode()
    req = urllib.request.Request(endpoint, body, {"Content-Type": "application/json"})
    try:
        with urllib.request.urlopen(req, timeout=10) as r:
            return r.status, json.loads(r.read())
    except urllib.error.HTTPError as e:
        return e.code, json.loads(e.read() or b"null")

# Options whose values differ on purpose; every other value of getOption and getGlobalOption
# must be aria2c's. Each side's own folder and port; tdl's own settings and their defaults
# (8 connections, 3 downloads at once, 3 retries, always resuming, tdl's User-Agent); the
# --quiet the side-by-side gives aria2c; "20K" (aria2 counts K as 1024, tdl as 1000).
OWN_VALUES = {"dir", "rpc-listen-port", "split", "max-connection-per-server", "max-concurrent-downloads",
              "max-tries", "continue", "user-agent", "quiet", "max-download-limit"}

def shape(v):
    if isinstance(v, dict): return {k: shape(x) for k, x in sorted(v.items())}
    if isinstance(v, list): return [shape(v[0])] if v else []
    return type(v).__name__

def session(endpoint, url, folder):
    out = []
    def rec(name, method, params, how="shape"):
        status, answer = call(endpoint, method, params)
        if "error" in answer:
            msg = re.sub(r"[0-9a-f]{16}", "GID", answer["error"]["message"])
            out.append((name, status, {"code": answer["error"]["code"], "message": msg}))
        else:
            r = answer["result"]
            out.append((name, status, shape(r) if how == "shape" else r if how == "value" else sorted(r) if how == "keys"
                        else {k: v for k, v in r.items() if k not in OWN_VALUES} if how == "options" else None))
        return answer.get("result")
    rec("getVersion", "aria2.getVersion", [], "keys")
    rec("getGlobalOption keys", "aria2.getGlobalOption", [], "keys")
    rec("getGlobalOption values", "aria2.getGlobalOption", [], "options")
    gid = rec("addUri", "aria2.addUri", [[url], {"pause": "true", "dir": folder, "max-download-limit": "20K"}])
    rec("tellStatus", "aria2.tellStatus", [gid])
    rec("tellStatus keys", "aria2.tellStatus", [gid, ["status", "totalLength", "errorCode"]], "value")
    rec("getUris", "aria2.getUris", [gid])
    rec("getFiles", "aria2.getFiles", [gid])
    rec("getPeers", "aria2.getPeers", [gid], "value")
    rec("tellWaiting", "aria2.tellWaiting", [0, 10, ["status"]], "value")
    rec("tellActive", "aria2.tellActive", [["status"]], "value")
    rec("getGlobalStat", "aria2.getGlobalStat", [])
    rec("prefix", "aria2.tellStatus", [gid[:6], ["status"]], "value")
    rec("bad gid", "aria2.tellStatus", ["zz"])
    rec("unknown gid", "aria2.tellStatus", ["0123456789abcdef"])
    rec("unknown method", "aria2.makeHamburger", [])
    rec("changeOption", "aria2.changeOption", [gid, {"max-tries": "4"}], "value")
    rec("getOption max-tries", "aria2.getOption", [gid], None)
    rec("getOption keys", "aria2.getOption", [gid], "keys")
    rec("getOption values", "aria2.getOption", [gid], "options")
    rec("unpause", "aria2.unpause", [gid])
    time.sleep(1.5)
    rec("active", "aria2.tellStatus", [gid, ["status"]], "value")
    rec("tellActive shape", "aria2.tellActive", [])
    rec("getServers", "aria2.getServers", [gid])
    rec("remove", "aria2.remove", [gid])
    time.sleep(1)
    rec("removed", "aria2.tellStatus", [gid, ["status", "errorCode"]], "value")
    rec("tellStopped", "aria2.tellStopped", [0, 10, ["status", "errorCode"]], "value")
    rec("remove again", "aria2.remove", [gid])
    rec("removeDownloadResult", "aria2.removeDownloadResult", [gid], "value")
    rec("gone", "aria2.tellStatus", [gid])
    rec("numStoppedTotal", "aria2.getGlobalStat", [], None)
    rec("empty multicall", "system.multicall", [[]], "value")
    rec("listNotifications", "system.listNotifications", [], "value")
    def wait(gid, wanted):
        end = time.time() + 20
        while time.time() < end and call(endpoint, "aria2.tellStatus", [gid, ["status"]])[1]["result"]["status"] not in wanted:
            time.sleep(0.1)
    # A failed download added again (aria2p's retry): a new GID; the old one stays as it ended.
    missing = url.rsplit("/", 1)[0] + "/missing.bin"
    old = rec("failing add", "aria2.addUri", [[missing], {"dir": folder}], None)
    wait(old, ["error"])
    new = rec("re-add", "aria2.addUri", [[missing], {"dir": folder}], None)
    out.append(("re-add gives a new GID", 200, new != old))
    wait(new, ["error"])
    rec("re-add: old", "aria2.tellStatus", [old, ["status", "errorCode"]], "value")
    rec("re-add: stopped", "aria2.tellStopped", [0, 10, ["status", "errorCode"]], "value")
    rec("re-add: remove old result", "aria2.removeDownloadResult", [old], "value")
    rec("re-add: new", "aria2.tellStatus", [new, ["status", "errorCode"]], "value")
    rec("re-add: stopped after", "aria2.tellStopped", [0, 10, ["status", "errorCode"]], "value")
    rec("re-add: purge", "aria2.purgeDownloadResult", [], "value")
    # A URL still in a queue added again.
    held = rec("held add", "aria2.addUri", [[url], {"pause": "true", "dir": folder}], None)
    rec("re-add in a queue", "aria2.addUri", [[url], {"pause": "true", "dir": folder}], None)
    rec("re-add in a queue: old", "aria2.tellStatus", [held, ["status"]], "value")
    # A wrong checksum: error 32 after one pass.
    small = url.rsplit("/", 1)[0] + "/small.bin"
    summed = rec("checksum add", "aria2.addUri", [[small], {"dir": folder, "checksum": "sha-256=" + "0" * 64}], None)
    wait(summed, ["error", "complete"])
    rec("checksum", "aria2.tellStatus", [summed, ["status", "errorCode"]], "value")
    return out

tdl, aria2, url, tdl_folder, aria2_folder = sys.argv[1:6]
a, b = session(tdl, url, tdl_folder), session(aria2, url, aria2_folder)
print("compared %d calls" % len(a), file=sys.stderr)
assert len(a) == len(b)
for (name, s1, r1), (_, s2, r2) in zip(a, b):
    if (s1, r1) != (s2, r2):
        print(json.dumps({"call": name, "tdl": [s1, r1], "aria2c": [s2, r2]}))
"""#
}
