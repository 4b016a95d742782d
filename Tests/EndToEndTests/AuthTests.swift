import Foundation
import TDLTestSupport
import XCTest

/// Credentials from the URL or ~/.netrc, Basic and Digest, against the fault server's
/// protected paths; a wrong password fails once, and a redirect to another server gets none.
final class AuthTests: FaultServerTestCase {
    /// HOME for the run: a ~/.netrc of the machine's own must not answer for these tests.
    let home = TemporaryDirectory("tdl-auth-home")
    let tdlHome = TemporaryDirectory(), downloads = TemporaryDirectory()

    func get(_ url: String) throws -> Processes.Result {
        try Processes.tdl(["get", "-q", "-d", downloads.path, url], home: tdlHome.path,
                          environment: ["HOME": home.path, "TDL_RETRY_BASE": "0.05"])
    }

    /// The fault server's URL with `user:password@` in it.
    func url(_ pathAndQuery: String, user: String, password: String) -> String {
        server.url(pathAndQuery).replacingOccurrences(of: "http://", with: "http://\(user):\(password)@")
    }

    func assertDownloaded(_ name: String, size: Int, seed: Int, line: UInt = #line) throws {
        XCTAssertEqual(try Processes.sha256(ofFile: downloads.file(name)), try server.sha256(name: name, size: size, seed: seed), line: line)
    }

    func testBasicAuthWithCredentialsInTheURL() throws {
        let result = try get(url("/auth/basic/alice/s3cret/file/basic.bin?size=1500000&seed=31", user: "alice", password: "s3cret"))
        XCTAssertEqual(result.status, 0, result.stderr)
        try assertDownloaded("basic.bin", size: 1_500_000, seed: 31)
    }

    /// A password in a URL is never printed: messages and `tdl list` show "***" for it, while
    /// `list --json` keeps the whole URL, which is how scripts name the task.
    func testAPasswordInTheURLIsNotShown() throws {
        let secret = url("/file/gone.bin?status=404", user: "dave", password: "t0psecret")
        let result = try get(secret)
        XCTAssertEqual(result.status, 1, result.stderr)
        XCTAssertTrue(result.stderr.contains("dave:***@"), result.stderr)
        XCTAssertFalse(result.stderr.contains("t0psecret"), result.stderr)
        let list = try Processes.tdl(["list"], home: tdlHome.path)
        XCTAssertTrue(list.stdout.contains("dave:***@"), list.stdout)
        XCTAssertFalse(list.stdout.contains("t0psecret"), list.stdout)
        let json = try Processes.tdl(["list", "--json"], home: tdlHome.path)
        XCTAssertTrue(json.stdout.replacingOccurrences(of: "\\/", with: "/").contains(secret), json.stdout)
    }

    func testDigestAuthWithCredentialsInTheURL() throws {
        let result = try get(url("/auth/digest/carol/pa55/file/digest.bin?size=2500000&seed=32", user: "carol", password: "pa55"))
        XCTAssertEqual(result.status, 0, result.stderr)
        try assertDownloaded("digest.bin", size: 2_500_000, seed: 32)
    }

    func testCredentialsFromNetrc() throws {
        let netrc = home.file(".netrc")
        try "machine 127.0.0.1 login bob password hunter2\n".write(toFile: netrc, atomically: true, encoding: .utf8)
        chmod(netrc, 0o600)
        let result = try get(server.url("/auth/basic/bob/hunter2/file/netrc.bin?size=1000000&seed=33"))
        XCTAssertEqual(result.status, 0, result.stderr)
        try assertDownloaded("netrc.bin", size: 1_000_000, seed: 33)
    }

    func testWrongPasswordFailsWith401WithoutRetrying() throws {
        let path = "/auth/basic/dave/right/file/denied.bin"
        let target = url(path + "?size=1000000&seed=34", user: "dave", password: "wrong")
        let result = try get(target)
        XCTAssertEqual(result.status, 1)
        let shown = target.replacingOccurrences(of: "dave:wrong@", with: "dave:***@")
        XCTAssertTrue(result.stderr.contains("\(shown): 401 Unauthorized"), result.stderr)
        // One exchange: the unauthenticated probe and the one try with the password.
        XCTAssertLessThanOrEqual(try server.requests(to: path).total, 2)
        XCTAssertEqual(try FileManager.default.contentsOfDirectory(atPath: downloads.path), [])
    }

    func testRedirectToAnotherServerCarriesNoCredentials() throws {
        let other = try FaultServer()
        let destination = other.url("/file/elsewhere.bin?size=1200000&seed=35")
        let query = "to=" + destination.addingPercentEncoding(withAllowedCharacters: .alphanumerics)!
        let result = try get(url("/auth/basic/erin/t0ken/abs-redirect?" + query, user: "erin", password: "t0ken"))
        XCTAssertEqual(result.status, 0, result.stderr)
        XCTAssertEqual(try Processes.sha256(ofFile: downloads.file("elsewhere.bin")), try other.sha256(name: "elsewhere.bin", size: 1_200_000, seed: 35))
        XCTAssertGreaterThan(try server.requests(to: "/auth/basic/erin/t0ken/abs-redirect").authorized, 0, "the first server got the password")
        let arrived = try other.requests(to: "/file/elsewhere.bin")
        XCTAssertGreaterThan(arrived.total, 0)
        XCTAssertEqual(arrived.authorized, 0, "the server on another port never saw an Authorization header")
    }
}
