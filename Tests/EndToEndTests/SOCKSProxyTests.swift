import Foundation
import TDLTestSupport
import XCTest

/// A SOCKS5 proxy from the environment (libcurl reads ALL_PROXY). tdl offers it no GSS-API:
/// libcurl is linked in without its GSS-API back end (Sources/CCurl/absent-backends.c), and a
/// proxy that picks GSS-API anyway ends the download with a reason, never a crash.
final class SOCKSProxyTests: XCTestCase {
    let home = TemporaryDirectory(), downloads = TemporaryDirectory()
    let url = "http://127.0.0.1:9/through-socks.bin"

    func get(through proxy: SOCKS5Greeter) throws -> Processes.Result {
        try Processes.tdl(["get", "-q", "-d", downloads.path, url], home: home.path,
                          environment: ["ALL_PROXY": "socks5://127.0.0.1:\(proxy.port)", "NO_PROXY": "", "no_proxy": ""])
    }

    func testTheProxyIsOfferedNoGSSAPI() throws {
        let proxy = try SOCKS5Greeter(choosing: 0xFF)  // none of the offered methods
        let get = try get(through: proxy)
        XCTAssertEqual(get.status, 1, get.stderr)
        let offered = try XCTUnwrap(proxy.offeredMethods(), "the proxy was never asked")
        XCTAssertFalse(offered.contains(0x01), "GSS-API offered: \(offered)")
        XCTAssertTrue(offered.contains(0x00), "no authentication not offered: \(offered)")
        XCTAssertTrue(get.stderr.contains("through-socks.bin"), get.stderr)
        XCTAssertEqual(try FileManager.default.contentsOfDirectory(atPath: downloads.path), [])
    }

    func testAProxyThatPicksGSSAPIAnywayFailsTheDownloadCleanly() throws {
        let proxy = try SOCKS5Greeter(choosing: 0x01)
        let get = try get(through: proxy)
        XCTAssertEqual(get.status, 1, get.stderr)  // a download failed; a crash would be 128 + its signal
        XCTAssertNotNil(proxy.offeredMethods())
        XCTAssertTrue(get.stderr.contains("through-socks.bin"), get.stderr)
        XCTAssertEqual(try FileManager.default.contentsOfDirectory(atPath: downloads.path), [])
        let list = try Processes.tdl(["list"], home: home.path)
        XCTAssertTrue(list.stdout.contains(url), list.stdout)
    }
}

/// The first step of SOCKS5 (RFC 1928) and no more: reads each client's greeting, keeps the
/// methods it offers, answers with `choice` and hangs up.
final class SOCKS5Greeter {
    let port: Int
    private let listener: Int32
    private let greetings = Greetings()

    final class Greetings: @unchecked Sendable {
        private let lock = NSLock()
        private var methods: [[UInt8]] = []
        func add(_ offered: [UInt8]) { lock.withLock { methods.append(offered) } }
        var first: [UInt8]? { lock.withLock { methods.first } }
    }

    init(choosing choice: UInt8) throws {
        let listener = socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
        var address = sockaddr_in()
        address.sin_family = sa_family_t(AF_INET)
        address.sin_addr.s_addr = inet_addr("127.0.0.1")
        var length = socklen_t(MemoryLayout<sockaddr_in>.size)
        let bound = withUnsafeMutablePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) {
                bind(listener, $0, length) == 0 && listen(listener, 8) == 0 && getsockname(listener, $0, &length) == 0
            }
        }
        guard bound else { close(listener); throw POSIXError(.EADDRNOTAVAIL) }
        self.listener = listener
        port = Int(UInt16(bigEndian: address.sin_port))
        Thread.detachNewThread { [listener, greetings] in Self.serve(listener, choice, greetings) }
    }

    /// Wakes the thread's `accept`, which then ends.
    deinit {
        shutdown(listener, Int32(SHUT_RDWR))
        close(listener)
    }

    /// The methods of the first greeting, once one came.
    func offeredMethods() -> [UInt8]? { greetings.first }

    private static func serve(_ listener: Int32, _ choice: UInt8, _ greetings: Greetings) {
        while true {
            let client = accept(listener, nil, nil)
            if client < 0 { return }
            var bytes = [UInt8](repeating: 0, count: 257)
            var have = 0
            while have < 2 || have < 2 + Int(bytes[1]) {
                let count = read(client, &bytes[have], bytes.count - have)
                if count <= 0 { break }
                have += count
            }
            if have >= 2, bytes[0] == 5, have >= 2 + Int(bytes[1]) {
                greetings.add(Array(bytes[2 ..< 2 + Int(bytes[1])]))
                _ = write(client, [5, choice], 2)
            }
            close(client)
        }
    }
}
