import Foundation
import TDLCore

/// The config file's plain keys fill what the command line left unset: the command line
/// overrides the file. Each group takes the keys named as its long options; the values were
/// checked as the command line checks them when the file was read.
enum ConfigDefaults {
    /// True when the command line gives the long option `name` (or its `--no-` form).
    static func givenOnCommandLine(_ name: String, arguments: [String] = CommandLine.arguments) -> Bool {
        arguments.dropFirst().contains { argument in
            ["--\(name)", "--no-\(name)"].contains { argument == $0 || argument.hasPrefix($0 + "=") }
        }
    }

    static func flag(_ config: ConfigFile, _ key: String) -> Bool? { config.value(key).map { $0.value == "true" } }
}


extension RequestOptions {
    mutating func fill(from config: ConfigFile?) {
        guard let config else { return }
        if headers.isEmpty { headers = config.values("header").map(\.value) }
        if userAgent == nil { userAgent = config.value("user-agent")?.value }
        if referer == nil { referer = config.value("referer")?.value }
        if loadCookies == nil { loadCookies = config.value("load-cookies")?.value }
        if saveCookies == nil { saveCookies = config.value("save-cookies")?.value }
    }
}

extension TransferOptions {
    mutating func fill(from config: ConfigFile?) {
        guard let config else { return }
        if !ConfigDefaults.givenOnCommandLine("insecure"), let on = ConfigDefaults.flag(config, "insecure") { insecure = on }
        if cacert == nil { cacert = config.value("cacert")?.value }
        if maxConnectionsPerHost == nil { maxConnectionsPerHost = config.value("max-connections-per-host").flatMap { Int($0.value) } }
        if lowestSpeedLimit == nil { lowestSpeedLimit = config.value("lowest-speed-limit")?.value }
    }
}
