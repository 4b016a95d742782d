import XCTest
import TDLCore

/// The curl-command parser on command lines as Chromium's and Firefox's "Copy as cURL" write them.
final class CurlCommandTests: XCTestCase {
    /// Chromium 124 on Linux, "Copy as cURL (bash)": one option a line, lowercase headers, -b for cookies.
    static let chromium = #"""
        curl 'https://downloads.example.com/files/report-2024.pdf?id=42&sig=a1b2' \
          -H 'accept: text/html,application/xhtml+xml,application/xml;q=0.9,image/avif,image/webp,image/apng,*/*;q=0.8,application/signed-exchange;v=b3;q=0.7' \
          -H 'accept-language: en-US,en;q=0.9' \
          -b 'session=abc123; theme=dark; _ga=GA1.2.3' \
          -H 'referer: https://downloads.example.com/files/' \
          -H 'sec-ch-ua: "Chromium";v="124", "Google Chrome";v="124", "Not-A.Brand";v="99"' \
          -H 'sec-ch-ua-mobile: ?0' \
          -H 'sec-ch-ua-platform: "Linux"' \
          -H 'sec-fetch-dest: document' \
          -H 'sec-fetch-mode: navigate' \
          -H 'sec-fetch-site: same-origin' \
          -H 'sec-fetch-user: ?1' \
          -H 'upgrade-insecure-requests: 1' \
          -H 'user-agent: Mozilla/5.0 (X11; Linux x86_64) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/124.0.0.0 Safari/537.36'
        """#

    /// Firefox 125, "Copy as cURL (POSIX)": one line, capitalised headers, the cookie as a header.
    static let firefox = #"""
        curl 'https://mirror.example.org/iso/debian-12.5.0-amd64-netinst.iso' --compressed -H 'User-Agent: Mozilla/5.0 (X11; Linux x86_64; rv:125.0) Gecko/20100101 Firefox/125.0' -H 'Accept: text/html,application/xhtml+xml,application/xml;q=0.9,*/*;q=0.8' -H 'Accept-Language: en-US,en;q=0.5' -H 'Accept-Encoding: gzip, deflate, br' -H 'Referer: https://mirror.example.org/iso/' -H 'Connection: keep-alive' -H 'Cookie: cf_clearance=XyZ.1; lang=en' -H 'Upgrade-Insecure-Requests: 1' -H 'Sec-Fetch-Dest: document' -H 'Sec-Fetch-Mode: navigate' -H 'Sec-Fetch-Site: same-origin' -H 'Sec-Fetch-User: ?1' -H 'Priority: u=0, i'
        """#

    /// Chromium quotes a value holding a single quote with $'…'.
    static let chromiumDollarQuote = #"""
        curl 'https://a.example/dl?f=1' \
          -H $'cookie: note=it\'s; tab=a\tb' \
          -H 'user-agent: Mozilla/5.0' \
          --data-raw 'x=1' \
          --compressed
        """#

    func testChromium() throws {
        let command = try CurlCommand.parse(Self.chromium)
        XCTAssertEqual(command.request.url, "https://downloads.example.com/files/report-2024.pdf?id=42&sig=a1b2")
        let options = command.request.options
        XCTAssertEqual(options.userAgent, "Mozilla/5.0 (X11; Linux x86_64) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/124.0.0.0 Safari/537.36")
        XCTAssertEqual(options.referer, "https://downloads.example.com/files/")
        XCTAssertEqual(options.headers?.last, "Cookie: session=abc123; theme=dark; _ga=GA1.2.3")
        XCTAssertTrue(options.headers?.contains(#"sec-ch-ua: "Chromium";v="124", "Google Chrome";v="124", "Not-A.Brand";v="99""#) == true)
        XCTAssertEqual(options.headers?.count, 11)  // the cookie one of them; agent and referer are options of their own
        XCTAssertEqual(command.notApplied, [])
    }

    func testFirefox() throws {
        let command = try CurlCommand.parse(Self.firefox)
        XCTAssertEqual(command.request.url, "https://mirror.example.org/iso/debian-12.5.0-amd64-netinst.iso")
        let options = command.request.options
        XCTAssertEqual(options.userAgent, "Mozilla/5.0 (X11; Linux x86_64; rv:125.0) Gecko/20100101 Firefox/125.0")
        XCTAssertEqual(options.referer, "https://mirror.example.org/iso/")
        XCTAssertEqual(options.headers?.last, "Cookie: cf_clearance=XyZ.1; lang=en")
        let names = (options.headers ?? []).map(RequestHeader.name(of:))
        XCTAssertFalse(names.contains("accept-encoding"), "a compressed answer would not be the file")
        XCTAssertFalse(names.contains("connection"))
        XCTAssertTrue(names.contains("priority"))
        XCTAssertEqual(command.notApplied, [])
    }

    func testDollarQuotesAndWhatCannotApplyIsNamed() throws {
        let command = try CurlCommand.parse(Self.chromiumDollarQuote)
        XCTAssertEqual(command.request.options.headers, ["Cookie: note=it's; tab=a\tb"])
        XCTAssertEqual(command.notApplied, ["--data-raw: tdl downloads with GET, without a request body"])
    }

    func testShortOptionsCredentialsAndCookieFile() throws {
        let command = try CurlCommand.parse(#"curl -sSL -u 'alice:p@ss word' -A "Agent \"X\"" -e 'https://r.example/;auto' -b cookies.txt -o out.bin -X POST --max-time 30 "https://h.example/f.bin""#)
        XCTAssertEqual(command.request.url, "https://alice:p%40ss%20word@h.example/f.bin")
        XCTAssertEqual(command.request.options.userAgent, #"Agent "X""#)
        XCTAssertEqual(command.request.options.referer, "https://r.example/")
        XCTAssertEqual(command.request.options.cookieFile, "cookies.txt")
        XCTAssertEqual(command.request.options.fileName, "out.bin")
        XCTAssertEqual(command.notApplied, ["-X POST: tdl downloads with GET", "--max-time"])
    }

    func testProblems() {
        XCTAssertThrowsError(try CurlCommand.parse("wget https://a.example/")) { XCTAssertEqual($0 as? CurlCommand.Problem, .notCurl) }
        XCTAssertThrowsError(try CurlCommand.parse("curl 'https://a.example/")) { XCTAssertEqual($0 as? CurlCommand.Problem, .unbalancedQuote) }
        XCTAssertThrowsError(try CurlCommand.parse("curl -H 'A: b'")) { XCTAssertEqual($0 as? CurlCommand.Problem, .noURL) }
        // A line break in any header refuses the whole command: not applied, the download
        // would go on without a header the user asked for (a token, say).
        for header in [#"$'X-A: a\r\nX-Inj: 1'"#, #"$'X-A: a\nb'"#, #"$'X-A: a\rb'"#, #"$'Authorization: a\x00b'"#] {
            XCTAssertThrowsError(try CurlCommand.parse("curl 'https://a.example/f' -H \(header)"), header) { error in
                guard case .unsafe(let why)? = error as? CurlCommand.Problem else { return XCTFail("\(error)") }
                XCTAssertTrue(why.contains(RequestText.refusal), why)
            }
        }
        XCTAssertTrue(CurlCommand.looksLikeOne("  curl 'https://a.example/'"))
        XCTAssertFalse(CurlCommand.looksLikeOne("https://a.example/curl"))
    }
}
