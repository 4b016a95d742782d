import Foundation
import TDLCore

/// aria2's options: of a download (given at its add or changed later) and of the session.
extension Aria2RPC {
    /// aria2's options a download takes, as `DownloadOptions`; aria2's options tdl has no
    /// setting for go to `kept`, as given.
    func downloadOptions(from given: JSON?, kept: inout [String: String]) throws -> DownloadOptions {
        var options = DownloadOptions()
        guard let given else { return options }
        guard let pairs = given.object else { throw RPCFault(1, "The parameter at 1 has wrong type.") }
        for (name, value) in pairs {
            try RPCPolicy.refuseCommand(option: name)
            switch value {
            case .string(let text) where name == "header":
                // One header, or several a line each: `getOption`'s answer, passed back.
                for header in text.split(separator: "\n") where !header.isEmpty { try read(name, String(header), into: &options, kept: &kept) }
            case .string(let text): try read(name, text, into: &options, kept: &kept)
            case .number: try read(name, String(value.integer ?? -1), into: &options, kept: &kept)
            case .array(let items) where name == "header":
                for header in items.compactMap(\.string) { try read(name, header, into: &options, kept: &kept) }
            default: throw RPCFault(1, "We encountered a problem while processing the option '--\(name)'.")
            }
        }
        if let cap = kept["max-connection-per-server"].flatMap(Int.init) {
            options.connections = min(options.connections ?? manager.settings.connectionsPerDownload, cap)
        }
        return options
    }

    /// One option of a download. tdl's own are read by `DownloadOption.read`, as the command
    /// line, input files and the config file read them (one message per mistake), inside what
    /// a caller may ask (`RPCPolicy`); aria2's others are kept as given; a name aria2 does not
    /// know is refused.
    private func read(_ name: String, _ text: String, into options: inout DownloadOptions, kept: inout [String: String]) throws {
        switch name {
        case "max-connection-per-server":
            // aria2's cap on one server's connections (split's value, in aria2's range), kept
            // as given and applied as a cap once every option is read.
            var capped = DownloadOptions()
            guard (try? DownloadOption.aria2Names[name]?.read(text, into: &capped, absolute: { $0 })) != nil,
                  let n = capped.connections, n <= 16 else {
                throw RPCFault(1, "max-connection-per-server must be between 1 and 16")
            }
            kept[name] = text
            return
        case "pause":
            guard text == "true" || text == "false" else { throw RPCFault(1, "pause must be true or false") }
            return
        case "load-cookies":
            // A file of the serving machine: a caller names no path outside the download folders.
            kept[name] = text
            return
        default:
            break
        }
        guard let option = DownloadOption(rawValue: name) ?? DownloadOption.aria2Names[name] else {
            // Settings tdl decides itself (resuming, naming, retries, BitTorrent's) are kept
            // and answered back.
            guard Aria2OptionNames.all.contains(name) else { throw RPCFault(1, "tdl does not know the option '\(name)'") }
            kept[name] = text
            return
        }
        var value = text
        if option == .dir { value = try policy.folder(text) }
        if option == .out { try policy.check(name: text) }
        do {
            try option.read(value, into: &options, absolute: { $0 })
        } catch {
            throw RPCFault(1, error.message(as: name))
        }
        if option == .dir, let problem = manager.folderProblem(value) { throw RPCFault(1, problem) }
        if option == .split { kept[name] = text }
    }

    func changeOption(_ p: Params) throws -> JSON {
        let (_, url) = try task(p)
        guard p.values.count > 1 else { throw p.wrong(1) }
        var kept: [String: String] = [:]
        let options = try downloadOptions(from: p.values[1], kept: &kept)
        keptOptions[url, default: [:]].merge(kept) { $1 }
        if let rate = options.rateLimit { manager.setRateLimit(rate, forTasks: [url]) }
        var asked = options
        asked.rateLimit = nil
        if !asked.isEmpty {
            // Asking for the URL again with new options applies them by tdl's rules (a new
            // name renames, a folder applies while nothing is downloaded).
            if let dir = asked.directory { try? FileManager.default.createDirectory(atPath: dir, withIntermediateDirectories: true) }
            let result = manager.add([DownloadRequest(url: url, options: asked)])
            if let problem = result.notApplied.first ?? result.rejected.first { throw RPCFault(1, problem.reason) }
        }
        return "OK"
    }

    func changeGlobalOption(_ p: Params) throws -> JSON {
        guard let pairs = p.values.first?.object else { throw p.wrong(0) }
        // Every value is checked before any applies.
        var changes: [() -> Void] = []
        for (name, value) in pairs {
            try RPCPolicy.refuseCommand(option: name)
            guard let text = value.string ?? value.integer.map(String.init) else { throw p.wrong(0) }
            switch name {
            case "max-concurrent-downloads":
                guard let n = Int(text), (1...SessionSettings.largestDownloadCount).contains(n) else {
                    throw RPCFault(1, "max-concurrent-downloads must be between 1 and \(SessionSettings.largestDownloadCount)")
                }
                changes.append { self.manager.maxDownloadCount = n }
            case "max-overall-download-limit":
                let rate = try Self.rate(text, for: name)
                changes.append { self.manager.setGlobalRateLimit(rate > 0 ? rate : nil) }
            case "max-download-limit":
                let rate = try Self.rate(text, for: name)
                changes.append { self.defaultRateLimit = rate > 0 ? rate : nil }
            case "dir":
                let path = try policy.folder(text)
                if let problem = manager.folderProblem(path) { throw RPCFault(1, problem) }
                changes.append { self.manager.setDownloadDirectory(path) }
            case "split":
                guard let n = Int(text), (1...32).contains(n) else { throw RPCFault(1, "split must be between 1 and 32") }
                changes.append { self.manager.setConnectionsPerDownload(n) }
            case "max-connection-per-server":
                guard let n = Int(text), (1...16).contains(n) else { throw RPCFault(1, "max-connection-per-server must be between 1 and 16") }
                changes.append { self.keptGlobalOptions[name] = text }
            default:
                // The server's own options are the command line's; other names aria2 knows are
                // kept as given and answered back.
                guard Aria2OptionNames.all.contains(name), !name.hasPrefix("rpc-"), name != "enable-rpc" else {
                    throw RPCFault(1, "tdl cannot change the option '\(name)' while running")
                }
                changes.append { self.keptGlobalOptions[name] = text }
            }
        }
        for change in changes { change() }
        return "OK"
    }
}
