import Foundation
import TDLCore

/// `getOption` and `getGlobalOption`: the names aria2c 1.36 answers (`Aria2OptionDefaults`),
/// each with the value in force. Where tdl has the setting, tdl's value; else the value a
/// client set (kept as given, not applied), else aria2's default.
extension Aria2RPC {
    func options(of url: String) -> JSON {
        guard let task = manager.task(url) else { return .object([]) }
        let kept = keptOptions[url] ?? [:]
        let connections = String(task.options.connections ?? manager.settings.connectionsPerDownload)
        var applied: [String: String] = [
            "dir": task.directory,
            "split": kept["split"] ?? connections,
            // tdl opens `split` connections to the one server: that is the cap in force (at
            // most aria2's 16, so the answer passed back to addUri is taken).
            "max-connection-per-server": kept["max-connection-per-server"] ?? String(min(Int(connections) ?? 1, 16)),
            "max-download-limit": String(task.options.rateLimit ?? 0),
            "user-agent": task.options.userAgent ?? "tdl/\(tdlVersion)",
        ]
        if let name = task.options.fileName { applied["out"] = name }
        if let checksum = task.options.checksum { applied["checksum"] = Self.aria2Checksum(checksum) }
        // aria2 answers its headers as one string, each line ended by a newline.
        if let headers = task.options.headers, !headers.isEmpty { applied["header"] = headers.map { $0 + "\n" }.joined() }
        if let referer = task.options.referer { applied["referer"] = referer }
        if let queue = task.options.queue { applied["queue"] = queue }
        let global = globalValues()
        var pairs: [(String, JSON)] = Aria2OptionDefaults.table.filter(\.perDownload).map { entry in
            (entry.name, .string(applied[entry.name] ?? kept[entry.name] ?? global[entry.name] ?? entry.value))
        }
        let named = Set(pairs.map(\.0))
        let extra = applied.merging(kept) { tdls, _ in tdls }.filter { !named.contains($0.key) }
        pairs += extra.sorted { $0.key < $1.key }.map { ($0.key, .string($0.value)) }
        return .object(pairs)
    }

    func globalOptions() -> JSON {
        let values = globalValues()
        var pairs: [(String, JSON)] = Aria2OptionDefaults.table.map { ($0.name, .string(values[$0.name] ?? $0.value)) }
        let named = Aria2OptionDefaults.names
        pairs += keptGlobalOptions.filter { !named.contains($0.key) }.sorted { $0.key < $1.key }.map { ($0.key, .string($0.value)) }
        return .object(pairs)
    }

    /// The session's values that are not aria2's defaults: tdl's settings first, then what a
    /// client set; a name not here is answered with aria2's default.
    private func globalValues() -> [String: String] {
        let settings = manager.settings
        var values: [String: String] = [:]
        for entry in Aria2OptionDefaults.table where entry.value.hasPrefix("~/") {
            values[entry.name] = Self.homePath(entry.value)
        }
        values.merge(keptGlobalOptions) { $1 }
        let tdls: [String: String] = [
            "dir": manager.downloadDirectory,
            "max-concurrent-downloads": String(max(0, settings.maxDownloadCount)),
            // The cap in force: this run's (`--limit-rate`, the config file's), else the session's.
            "max-overall-download-limit": String(manager.globalRateLimit ?? 0),
            "max-download-limit": String(defaultRateLimit ?? 0),
            "split": String(settings.connectionsPerDownload),
            "max-connection-per-server": keptGlobalOptions["max-connection-per-server"] ?? "1",
            "max-tries": String(settings.maxRetries + 1),
            // tdl resumes a partly downloaded file whenever the server allows it.
            "continue": "true",
            "user-agent": "tdl/\(tdlVersion)",
            // tdl never reads aria2's configuration file.
            "no-conf": "true",
            "enable-rpc": "true",
            "rpc-listen-port": String(listenPort),
            "rpc-listen-all": listenAll ? "true" : "false",
            "rpc-allow-origin-all": settings.rpcAllowOriginAll ? "true" : "false",
        ]
        return values.merging(tdls) { $1 }
    }

    /// aria2's path in the home folder as aria2c would answer it here: `~/.config` and
    /// `~/.cache` are `XDG_CONFIG_HOME` and `XDG_CACHE_HOME` when set.
    static func homePath(_ path: String) -> String {
        let environment = ProcessInfo.processInfo.environment
        let home = environment["HOME"] ?? NSHomeDirectory()
        for (folder, variable) in [("~/.config/", "XDG_CONFIG_HOME"), ("~/.cache/", "XDG_CACHE_HOME")] where path.hasPrefix(folder) {
            if let base = environment[variable], !base.isEmpty { return base + "/" + path.dropFirst(folder.count) }
        }
        return home + path.dropFirst()
    }

    static func aria2Checksum(_ checksum: Checksum) -> String {
        let aria2Name = ["md5": "md5", "sha1": "sha-1", "sha256": "sha-256", "sha512": "sha-512"][checksum.algorithm.rawValue] ?? checksum.algorithm.rawValue
        return "\(aria2Name)=\(checksum.hex)"
    }
}
