import XCTest
@testable import TDLCore

final class RequestHeaderTests: XCTestCase {
    func testSecretsAreMaskedAndTheRestShown() {
        XCTAssertEqual(RequestHeader.masked("Authorization: Bearer abc.def"), "Authorization: Bearer ***")
        XCTAssertEqual(RequestHeader.masked("Cookie: session=abc; theme=dark"), "Cookie: session=***; theme=***")
        XCTAssertEqual(RequestHeader.masked("X-Api-Key: 1234"), "X-Api-Key: ***")
        XCTAssertEqual(RequestHeader.masked("x-csrf-token: 99"), "x-csrf-token: ***")
        XCTAssertEqual(RequestHeader.masked("Accept: */*"), "Accept: */*")
        XCTAssertEqual(RequestHeader.masked("Bearer secret without a colon"), "***")
    }

    func testOnlyHeadersTdlCanSendPass() {
        XCTAssertNil(RequestHeader.problem(with: "X-Requested-With: tdl"))
        XCTAssertNotNil(RequestHeader.problem(with: "no colon here"))
        XCTAssertNotNil(RequestHeader.problem(with: "Bad Name: x"))
        XCTAssertNotNil(RequestHeader.problem(with: "Range: bytes=0-10"))
        XCTAssertNotNil(RequestHeader.problem(with: "X-A: b\r\nX-B: c"))
    }

    func testAnEntrysHeaderReplacesTheCommandsOfTheSameName() {
        XCTAssertEqual(RequestHeader.merged(["Accept: */*", "Cookie: a=1"], ["cookie: b=2"]), ["Accept: */*", "cookie: b=2"])
        XCTAssertEqual(RequestHeader.merged(nil, ["X: 1"]), ["X: 1"])
        XCTAssertEqual(RequestHeader.merged(["X: 1"], nil), ["X: 1"])
    }

    func testOriginIsSchemeHostAndPortWithoutCredentials() {
        XCTAssertEqual(RequestHeader.origin(of: "http://u:p@Example.com/x"), "http://example.com:80")
        XCTAssertEqual(RequestHeader.origin(of: "https://example.com:8443?q"), "https://example.com:8443")
        XCTAssertEqual(RequestHeader.origin(of: "http://[::1]:81/"), "http://[::1]:81")
        XCTAssertEqual(RequestHeader.origin(of: "http://[::1]/x:y"), "http://[::1]:80")
        XCTAssertEqual(RequestHeader.origin(of: "FTP://Host"), "ftp://host:21")
        XCTAssertEqual(RequestHeader.origin(of: "sftp://host/a"), "sftp://host")
        XCTAssertNil(RequestHeader.origin(of: "file:/etc/passwd"))
        XCTAssertNil(RequestHeader.origin(of: "http:/"))
        XCTAssertEqual(RequestHeader.origin(of: "HTTP://ÄBC.Example:8080/"), "http://äbc.example:8080")
        XCTAssertEqual(RequestHeader.origin(of: "https://a@b@Host?x=@y"), "https://host:443")
        XCTAssertNotEqual(RequestHeader.origin(of: "http://127.0.0.1:1/"), RequestHeader.origin(of: "http://127.0.0.1:2/"))
    }

    func testTheDetailsShowTheOptionsMasked() {
        let options = DownloadOptions(headers: ["Authorization: Basic eHg6eXk="], userAgent: "Mozilla/5.0",
                                      referer: "https://u:pw@shop.example/", cookieFile: "/home/me/cookies.txt")
        XCTAssertEqual(options.requestDetailLines, [
            "Header:        Authorization: Basic ***",
            "User-Agent:    Mozilla/5.0",
            "Referer:       https://u:***@shop.example/",
            "Cookies from:  /home/me/cookies.txt",
        ])
    }
}
