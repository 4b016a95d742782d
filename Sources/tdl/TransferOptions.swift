import ArgumentParser
import Foundation
import TDLCore
import TDLSession
import TDLTransfer

/// How this run talks TLS. Never saved with the session: skipping verification has to be
/// asked for again on every run.
struct TransferOptions: ParsableArguments {
    @Flag(help: "Do not verify TLS certificates (for a server you trust by other means).")
    var insecure = false

    @Option(help: ArgumentHelp("Trust the CA certificates in this PEM file (default: CURL_CA_BUNDLE, else SSL_CERT_FILE, else the system's).", valueName: "file"))
    var cacert: String?

    @Option(help: ArgumentHelp("Connections to one host over all downloads (default 16); more wait.", valueName: "n"))
    var maxConnectionsPerHost: Int?

    @Option(help: ArgumentHelp("A connection slower than this for 30 s is dropped and retried, as aria2's (e.g. 10K; default 0: only a connection under 1 KB/s).", valueName: "speed"))
    var lowestSpeedLimit: String?

    func validate() throws {
        if let lowestSpeedLimit {
            do { _ = try RateText.parse(lowestSpeedLimit) } catch { throw ValidationError("--lowest-speed-limit: \(error)") }
        }
        if let maxConnectionsPerHost, maxConnectionsPerHost < 1 {
            throw ValidationError("--max-connections-per-host must be at least 1")
        }
        if let cacert, !FileManager.default.isReadableFile(atPath: cacert) {
            throw ValidationError("--cacert: cannot read \(cacert)")
        }
    }

    var engineSettings: EngineSettings {
        var settings = EngineSettings.fromEnvironment()
        settings.insecure = insecure
        if let cacert { settings.caBundle = Paths.absolute(cacert) }
        if let maxConnectionsPerHost { settings.maxConnectionsPerHost = maxConnectionsPerHost }
        if let speed = lowestSpeedLimit.flatMap(RateText.value), speed > 0 { settings.lowestSpeed = speed }
        return settings
    }
}
