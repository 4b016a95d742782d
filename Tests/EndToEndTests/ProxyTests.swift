import Foundation
import TDLTestSupport
import XCTest

/// Proxies come from the usual environment variables (libcurl reads them): the fault server
/// in proxy mode relays and counts, nginx serves the file.
final class ProxyTests: XCTestCase {
    let site = TemporaryDirectory("tdl-proxy-site")
    let home = TemporaryDirectory(), downloads = TemporaryDirectory()

    func download(through proxy: FaultServer, noProxy: String) throws -> (result: Processes.Result, sameBytes: Bool) {
        try TestFiles.make(site.file("proxied.bin"), size: 2_500_000, seed: 51)
        let nginx = try LoopbackNginx(root: site.path)
        let environment = ["http_proxy": "http://127.0.0.1:\(proxy.port)", "no_proxy": noProxy, "NO_PROXY": noProxy]
        let result = try Processes.tdl(["get", "-q", "-d", downloads.path, nginx.url("proxied.bin")], home: home.path, environment: environment)
        let same = try Processes.sha256(ofFile: downloads.file("proxied.bin")) == Processes.sha256(ofFile: site.file("proxied.bin"))
        return (result, same)
    }

    func testHTTPProxyFromTheEnvironmentIsUsed() throws {
        let proxy = try FaultServer()
        let (result, same) = try download(through: proxy, noProxy: "")
        XCTAssertEqual(result.status, 0, result.stderr)
        XCTAssertTrue(same)
        XCTAssertGreaterThan(try proxy.proxiedRequests(), 0, "the download went through the proxy")
    }

    func testNoProxyIsRespected() throws {
        let proxy = try FaultServer()
        let (result, same) = try download(through: proxy, noProxy: "127.0.0.1")
        XCTAssertEqual(result.status, 0, result.stderr)
        XCTAssertTrue(same)
        XCTAssertEqual(try proxy.proxiedRequests(), 0)
    }
}
