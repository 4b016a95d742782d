import Foundation

/// A throwaway certificate for 127.0.0.1 made with Debian's openssl. It is its own CA, so
/// `certificatePath` is also the bundle a client trusts it with.
public final class SelfSignedCertificate: Sendable {
    public let certificatePath: String
    public let keyPath: String
    private let folder = TemporaryDirectory("tdl-cert")

    public init() throws {
        guard let openssl = Processes.which("openssl") else {
            throw ServerError.missing("openssl (install openssl; the test command does)")
        }
        certificatePath = folder.file("cert.pem")
        keyPath = folder.file("key.pem")
        let result = try Processes.run(openssl, [
            "req", "-x509", "-newkey", "rsa:2048", "-nodes", "-days", "2",
            "-keyout", keyPath, "-out", certificatePath,
            "-subj", "/CN=127.0.0.1", "-addext", "subjectAltName=IP:127.0.0.1",
        ])
        guard result.status == 0 else { throw ServerError.failed("openssl could not make a certificate: \(result.stderr)") }
        // nginx's workers drop to an unprivileged user and read the files after the master.
        chmod(folder.path, 0o755)
        chmod(keyPath, 0o644)
    }
}
