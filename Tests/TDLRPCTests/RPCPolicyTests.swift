import Foundation
import XCTest
import TDLCore
@testable import TDLRPC

/// Who may reach the JSON-RPC (Host, Origin), from headers alone.
final class RPCAccessTests: XCTestCase {
    func testOnlyAllowedOriginsAndLoopbackNamesAreAnswered() {
        let access = RPCAccess(allowedOrigins: ["http://localhost:8080/"], port: 6800)
        // Programs send no Origin: they go on to the secret.
        XCTAssertEqual(access.verdict(host: "127.0.0.1:6800", origin: nil), .allowed(allowOrigin: nil))
        XCTAssertEqual(access.verdict(host: nil, origin: nil), .allowed(allowOrigin: nil))
        // A page of an allowed origin gets its own origin back, never "*".
        XCTAssertEqual(access.verdict(host: "localhost:6800", origin: "http://localhost:8080"), .allowed(allowOrigin: "http://localhost:8080"))
        XCTAssertEqual(access.verdict(host: "localhost:6800", origin: "HTTP://LOCALHOST:8080"), .allowed(allowOrigin: "HTTP://LOCALHOST:8080"))
        for origin in ["http://evil.example", "http://localhost:8081", "https://localhost:8080", "null", "garbage"] {
            guard case .refused = access.verdict(host: "127.0.0.1:6800", origin: origin) else { return XCTFail(origin) }
        }
        // websocket-client (aria2p's listener) names the server's own address as its origin.
        XCTAssertEqual(access.verdict(host: "127.0.0.1:6800", origin: "http://127.0.0.1:6800"), .allowed(allowOrigin: "http://127.0.0.1:6800"))
        guard case .refused = access.verdict(host: "127.0.0.1:6800", origin: "http://evil.example:6800") else { return XCTFail() }
        // DNS rebinding: a name of the attacker's, whatever it resolves to.
        for host in ["evil.example:6800", "evil.example", "127.0.0.1.evil.example:6800", "10.0.0.5:6800"] {
            guard case .refused = access.verdict(host: host, origin: nil) else { return XCTFail(host) }
        }
        for host in ["localhost", "LOCALHOST:6800", "127.0.0.1", "127.0.0.2:6800", "[::1]:6800", "localhost.:6800"] {
            XCTAssertEqual(access.verdict(host: host, origin: nil), .allowed(allowOrigin: nil), host)
        }
    }

    func testEveryAddressAnswersAddressLiteralsAndEveryOriginOnlyWhenAsked() {
        let all = RPCAccess(allowsEveryOrigin: true, listenAll: true, port: 6800)
        XCTAssertEqual(all.verdict(host: "192.168.1.20:6800", origin: "http://anything.example"), .allowed(allowOrigin: "*"))
        XCTAssertEqual(all.verdict(host: "[fe80::1]:6800", origin: nil), .allowed(allowOrigin: nil))
        guard case .refused = all.verdict(host: "evil.example:6800", origin: nil) else { return XCTFail() }
    }

    func testOriginsAreNormalized() {
        XCTAssertEqual(RPCAccess.normalizedOrigin("http://Example.org:80/"), "http://example.org")
        XCTAssertEqual(RPCAccess.normalizedOrigin("https://example.org:443"), "https://example.org")
        XCTAssertEqual(RPCAccess.normalizedOrigin("http://127.0.0.1:8080"), "http://127.0.0.1:8080")
        XCTAssertEqual(RPCAccess.normalizedOrigin("null"), "null")
        for bad in ["example.org", "http://example.org/page", "http://user@example.org", "://x", ""] {
            XCTAssertNil(RPCAccess.normalizedOrigin(bad), bad)
        }
    }
}

/// What a caller may ask for even with the secret: schemes, folders, names, no commands.
final class RPCPolicyTests: XCTestCase {
    var base: String!

    override func setUpWithError() throws {
        base = (NSTemporaryDirectory() as NSString).appendingPathComponent("tdl-policy-\(UUID().uuidString)")
        for folder in ["downloads/sub", "outside", "allowed"] {
            try FileManager.default.createDirectory(atPath: base + "/" + folder, withIntermediateDirectories: true)
        }
        try FileManager.default.createSymbolicLink(atPath: base + "/downloads/escape", withDestinationPath: base + "/outside")
        try FileManager.default.createSymbolicLink(atPath: base + "/downloads/inner", withDestinationPath: base + "/downloads/sub")
    }

    override func tearDown() { try? FileManager.default.removeItem(atPath: base) }

    func testFoldersStayInsideTheRootsAsTheSystemResolvesThem() throws {
        let policy = RPCPolicy(roots: [base + "/downloads", base + "/allowed"])
        XCTAssertEqual(try policy.folder(base + "/downloads"), base.resolvingSymlinksInPath + "/downloads")
        XCTAssertEqual(try policy.folder(base + "/downloads/sub"), base.resolvingSymlinksInPath + "/downloads/sub")
        XCTAssertEqual(try policy.folder(base + "/downloads/new/deeper"), base.resolvingSymlinksInPath + "/downloads/new/deeper")
        XCTAssertEqual(try policy.folder(base + "/downloads/inner"), base.resolvingSymlinksInPath + "/downloads/sub")
        XCTAssertEqual(try policy.folder(base + "/allowed/x"), base.resolvingSymlinksInPath + "/allowed/x")
        let base: String = self.base
        let outsides: [String] = ["/outside", "/downloads/../outside", "/downloads/sub/../../outside/x", "/downloads/escape",
                                  "/downloads/escape/new", "/downloads-not"].map { base + $0 }
        for outside in outsides + ["/", NSHomeDirectory() + "/.config/autostart", ""] {
            XCTAssertThrowsError(try policy.folder(outside), outside) { error in
                XCTAssertEqual((error as? RPCFault)?.code, 1)
            }
        }
    }

    func testOnlyNetworkURLsPlainNamesAndNoCommands() {
        let policy = RPCPolicy(roots: [base])
        for uri in ["http://h/f", "HTTPS://h/f", "ftp://h/f", "ftps://h/f", "sftp://h/f"] {
            XCTAssertNoThrow(try policy.check(uri: uri), uri)
        }
        for uri in ["file:///etc/passwd", "FILE:///etc/passwd", "/etc/passwd", "gopher://h/", "scp://h/f", "dict://h/"] {
            XCTAssertThrowsError(try policy.check(uri: uri), uri)
        }
        XCTAssertNoThrow(try policy.check(name: "file.iso"))
        for name in ["../x", "a/b", "/etc/x", "..", ".", ""] {
            XCTAssertThrowsError(try policy.check(name: name), name)
        }
        for option in ["on-download-complete", "on-download-error", "on-download-start", "on-complete"] {
            XCTAssertThrowsError(try RPCPolicy.refuseCommand(option: option), option)
        }
        XCTAssertNoThrow(try RPCPolicy.refuseCommand(option: "dir"))
    }
}

extension String {
    var resolvingSymlinksInPath: String { URL(fileURLWithPath: self).resolvingSymlinksInPath().path }
}
