import Foundation
import TDLCore

/// Knobs of the transfer engine that are not per task.
public struct EngineSettings: Sendable {
    public static let version = "0.1.0"
    /// Seconds below 1 KB/s (or the lowest speed) before a connection is dropped and resumed.
    public var stallSeconds = 30
    /// Bytes per second a connection must keep up over the stall time (aria2's
    /// `--lowest-speed-limit`); nil: only the 1 KB/s stall floor (see `LowSpeedRule`).
    public var lowestSpeed: Int64?
    public var connectTimeout = 20
    /// First backoff before a retry; doubles each time (with jitter), at most 30 s.
    public var retryBaseSeconds: Double = 1
    /// Skip TLS verification (only on explicit request).
    public var insecure = false
    /// A PEM file of CA certificates to trust instead of the system's.
    public var caBundle: String?
    /// Total connections over all downloads.
    public var maxTotalConnections = 64
    /// Connections to one host (scheme, name and port) over all downloads, as curl's
    /// `--parallel-max-host`; more wait for one to end.
    public var maxConnectionsPerHost = 16
    /// Seconds a mirror may carry less than a fifth of the fastest one's rate per connection
    /// before it is dropped (TDL_SLOW_MIRROR_SECONDS).
    public var slowMirrorSeconds: Double = 5

    public init() {}

    /// Test and power-user overrides from the environment (TDL_STALL_SECONDS, TDL_RETRY_BASE,
    /// TDL_SLOW_MIRROR_SECONDS),
    /// and the CA bundle the curl tool would use: libcurl itself reads neither CURL_CA_BUNDLE
    /// nor SSL_CERT_FILE (Debian builds it with a fixed bundle path).
    public static func fromEnvironment() -> EngineSettings {
        var settings = EngineSettings()
        let env = EnvironmentVariable.value
        settings.caBundle = [env("CURL_CA_BUNDLE"), env("SSL_CERT_FILE")].compactMap { $0 }.first { !$0.isEmpty }
        if let v = env("TDL_STALL_SECONDS"), let n = Int(v), n > 0 { settings.stallSeconds = n }
        if let v = env("TDL_RETRY_BASE"), let d = Double(v), d >= 0 { settings.retryBaseSeconds = d }
        if let v = env("TDL_SLOW_MIRROR_SECONDS"), let d = Double(v), d > 0 { settings.slowMirrorSeconds = d }
        return settings
    }
}
