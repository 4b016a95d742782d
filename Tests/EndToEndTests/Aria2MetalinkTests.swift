import Foundation
import TDLTestSupport
import XCTest

/// aria2.addMetalink sent to `tdl serve` and to Debian's `aria2c --enable-rpc` alike, both
/// downloading from one nginx on 127.0.0.1: the same GIDs' count, the same end of each
/// download (complete, or failed on its checksum), the same files, the same errors' codes.
final class Aria2MetalinkTests: XCTestCase {
    func testAddMetalinkEndsAsAria2csDoes() throws {
        let site = TemporaryDirectory("tdl-metalink-site")
        try TestFiles.make(site.file("good.bin"), size: 400_000, seed: 31)
        try TestFiles.make(site.file("bad.bin"), size: 100_000, seed: 32)
        let goodSum = try Processes.sha256(ofFile: site.file("good.bin"))
        let nginx = try LoopbackNginx(root: site.path)
        let dead = "http://127.0.0.1:\(RefusingPort.make())"
        // The first file's best URL is dead; the second's hash is another file's.
        let document = """
            <?xml version="1.0" encoding="UTF-8"?>
            <metalink xmlns="urn:ietf:params:xml:ns:metalink">
              <file name="good.bin"><size>400000</size><hash type="sha-256">\(goodSum)</hash>
                <url priority="1">\(dead)/good.bin</url><url priority="2">\(nginx.url("good.bin"))</url></file>
              <file name="bad.bin"><size>100000</size><hash type="sha-256">\(String(repeating: "ab", count: 32))</hash>
                <url priority="1">\(nginx.url("bad.bin"))</url></file>
            </metalink>
            """
        let both = try Aria2SideBySide(aria2Arguments: ["--max-tries", "2", "--retry-wait", "0"], tdlEnvironment: ["TDL_RETRY_BASE": "0.05"])
        defer { both.stop() }
        let tdlFolder = both.tdlFolder, aria2Folder = both.aria2Folder
        let script = site.file("metalink.py")
        try Self.script.write(toFile: script, atomically: true, encoding: .utf8)
        let run = try Processes.run("/usr/bin/python3", [script, both.tdlEndpoint, both.aria2Endpoint,
                                                         Data(document.utf8).base64EncodedString()], timeout: 90)
        XCTAssertEqual(run.status, 0, run.stderr)
        guard let answers = try JSONSerialization.jsonObject(with: Data(run.stdout.utf8)) as? [String: Any],
              let tdl = answers["tdl"] as? [String: Any], let aria2 = answers["aria2c"] as? [String: Any] else {
            return XCTFail("no answers: \(run.stdout) \(run.stderr)")
        }
        for key in ["gids", "ends", "names", "not a metalink"] {
            XCTAssertEqual(String(describing: tdl[key] ?? "-"), String(describing: aria2[key] ?? "-"), "\(key): tdl \(tdl), aria2c \(aria2)")
        }
        XCTAssertEqual(tdl["ends"] as? [String], ["complete", "error"], "\(tdl)")
        // aria2c says 32 for a checksum error; tdl says a failure (its own code may differ).
        XCTAssertEqual((aria2["codes"] as? [String])?.last, "32", "\(aria2)")
        XCTAssertNotEqual((tdl["codes"] as? [String])?.last ?? "0", "0", "\(tdl)")
        XCTAssertEqual(try Processes.sha256(ofFile: tdlFolder.file("good.bin")), goodSum)
        XCTAssertEqual(try Processes.sha256(ofFile: aria2Folder.file("good.bin")), goodSum)
    }

    static let script = #"""
import time, json, sys, os, urllib.request, urllib.error

def call(endpoint, method, params):
    body = json.dumps({"jsonrpc": "2.0", "id": "m", "method": method, "params": ["token:sesame"] + params}).encode()
    req = urllib.request.Request(endpoint, body, {"Content-Type": "application/json"})
    try:
        with urllib.request.urlopen(req, timeout=10) as r:
            return json.loads(r.read())
    except urllib.error.HTTPError as e:
        return json.loads(e.read() or b"null")

def session(endpoint, document):
    out = {}
    gids = call(endpoint, "aria2.addMetalink", [document])["result"]
    out["gids"] = len(gids)
    ends, codes = [], []
    for gid in gids:
        for _ in range(300):
            s = call(endpoint, "aria2.tellStatus", [gid, ["status", "errorCode", "files"]])["result"]
            if s["status"] in ("complete", "error", "removed"):
                break
            time.sleep(0.1)
        ends.append(s["status"])
        codes.append(s.get("errorCode", "0"))
    out["ends"] = ends
    out["codes"] = codes
    names = []
    for gid in gids:
        files = call(endpoint, "aria2.getFiles", [gid])["result"]
        names.append(os.path.basename(files[0]["path"]))
    out["names"] = names
    garbage = call(endpoint, "aria2.addMetalink", ["bm90IGEgbWV0YWxpbms="])
    out["not a metalink"] = garbage.get("error", {}).get("code")
    return out

tdl, aria2, document = sys.argv[1:4]
print(json.dumps({"tdl": session(tdl, document), "aria2c": session(aria2, document)}))
"""#
}
