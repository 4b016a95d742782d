import Foundation
import TDLCore
import TDLTestSupport
import XCTest

/// `tdl get` over HTTPS from an nginx with a self-signed certificate: verification is on
/// unless the run asks otherwise, and a CA can be trusted the way curl users know.
final class HTTPSTests: XCTestCase {
    static let site = TemporaryDirectory("tdl-https-site")
    /// Made once for the class, kept behind a lock (its tests may run on other threads).
    static var certificate: SelfSignedCertificate! { get { certificateStore.get() } set { certificateStore.set(newValue) } }
    private static let certificateStore = Locked<SelfSignedCertificate?>(nil)
    static var nginx: LoopbackNginx! { get { nginxStore.get() } set { nginxStore.set(newValue) } }
    private static let nginxStore = Locked<LoopbackNginx?>(nil)
    static var sum: String { get { sumStore.get() } set { sumStore.set(newValue) } }
    private static let sumStore = Locked<String>("")
    static var setUpError: (any Error)? { get { setUpErrorStore.get() } set { setUpErrorStore.set(newValue) } }
    private static let setUpErrorStore = Locked<(any Error)?>(nil)

    override class func setUp() {
        do {
            try TestFiles.make(site.file("secure.bin"), size: 3_000_000, seed: 21)
            sum = try Processes.sha256(ofFile: site.file("secure.bin"))
            certificate = try SelfSignedCertificate()
            nginx = try LoopbackNginx(root: site.path, certificate: certificate)
        } catch {
            setUpError = error
        }
    }

    /// A missing tool fails every test with its name instead of crashing the run.
    override func setUpWithError() throws {
        if let error = Self.setUpError { throw error }
    }

    override class func tearDown() {
        nginx = nil
        certificate = nil
    }

    /// No CA bundle from the test runner's environment: the system's CAs only.
    let systemTrust = ["CURL_CA_BUNDLE": "", "SSL_CERT_FILE": ""]

    func get(_ arguments: [String], home: TemporaryDirectory, environment: [String: String] = [:]) throws -> Processes.Result {
        try Processes.tdl(["get", "-q"] + arguments, home: home.path,
                          environment: systemTrust.merging(environment) { $1 }.merging(["TDL_RETRY_BASE": "0.05"]) { $1 })
    }

    func testUntrustedCertificateFailsNamingTheCertificate() throws {
        let home = TemporaryDirectory(), downloads = TemporaryDirectory()
        let url = Self.nginx.url("secure.bin")
        let result = try get(["-d", downloads.path, url], home: home)
        XCTAssertEqual(result.status, 1)
        XCTAssertTrue(result.stderr.contains("\(url): TLS error: SSL certificate problem: self-signed certificate"), result.stderr)
        XCTAssertTrue(result.stderr.contains("--insecure"), "the way out is named: \(result.stderr)")
        XCTAssertEqual(try FileManager.default.contentsOfDirectory(atPath: downloads.path), [], "nothing was written")
    }

    func testInsecureDownloadsAndIsNotRememberedForTheNextRun() throws {
        let home = TemporaryDirectory(), downloads = TemporaryDirectory()
        let first = try get(["--insecure", "-d", downloads.path, Self.nginx.url("secure.bin")], home: home)
        XCTAssertEqual(first.status, 0, first.stderr)
        XCTAssertEqual(try Processes.sha256(ofFile: downloads.file("secure.bin")), Self.sum)
        // The same session without the flag verifies again.
        let second = try get(["-d", downloads.path, Self.nginx.url("secure.bin?again")], home: home)
        XCTAssertEqual(second.status, 1)
        XCTAssertTrue(second.stderr.contains("SSL certificate problem"), second.stderr)
    }

    func testCACertificateOptionTrustsTheServerAndHTTP2IsUsed() throws {
        let home = TemporaryDirectory(), downloads = TemporaryDirectory()
        let result = try get(["--cacert", Self.certificate.certificatePath, "-d", downloads.path, Self.nginx.url("secure.bin?h2")], home: home)
        XCTAssertEqual(result.status, 0, result.stderr)
        XCTAssertEqual(try Processes.sha256(ofFile: downloads.file("secure.bin")), Self.sum)
        let requests = Self.nginx.accessLog.split(separator: "\n").filter { $0.hasSuffix("/secure.bin?h2") }
        XCTAssertFalse(requests.isEmpty)
        XCTAssertTrue(requests.allSatisfy { $0.hasPrefix("HTTP/2.0 ") }, "nginx offers HTTP/2 over TLS: \(requests)")
    }

    func testCABundleFromTheEnvironmentAsCurlReadsIt() throws {
        for variable in ["CURL_CA_BUNDLE", "SSL_CERT_FILE"] {
            let home = TemporaryDirectory(), downloads = TemporaryDirectory()
            let result = try get(["-d", downloads.path, Self.nginx.url("secure.bin?\(variable)")], home: home,
                                 environment: [variable: Self.certificate.certificatePath])
            XCTAssertEqual(result.status, 0, "\(variable): \(result.stderr)")
            XCTAssertEqual(try Processes.sha256(ofFile: downloads.file("secure.bin")), Self.sum, variable)
        }
    }
}
