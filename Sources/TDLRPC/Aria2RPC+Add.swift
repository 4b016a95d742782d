import Foundation
import TDLCore

/// Adding a download, and its URIs.
extension Aria2RPC {
    /// `fixed` sets what a caller's options may not (a Metalink file's name, checksum, size).
    func addUri(_ p: Params, fixed: (inout DownloadOptions) -> Void = { _ in }) throws -> JSON {
        guard let uris = p.array(0)?.compactMap(\.string), uris.count == p.array(0)?.count else { throw p.wrong(0) }
        guard !uris.isEmpty else { throw RPCFault(1, "URI is not provided.") }
        // One download: the first URI is its identity (and GID), the others its mirrors, as
        // aria2 takes several URIs of one file.
        var seen = Set<String>()
        let unique = uris.filter { seen.insert($0).inserted }
        for uri in unique { try policy.check(uri: uri) }
        var kept: [String: String] = [:]
        var options = try downloadOptions(from: p.values.count > 1 ? p.values[1] : nil, kept: &kept)
        if unique.count > 1 { options.mirrors = Array(unique.dropFirst()) }
        fixed(&options)
        if options.rateLimit == nil { options.rateLimit = defaultRateLimit }
        // As aria2: bytes that do not match end the download in error 32, never downloaded again.
        if options.checksum != nil { options.checksumRetries = 0 }
        var position: Int?
        if p.values.count > 2 {
            guard let given = p.int(2) else { throw p.wrong(2) }
            guard given >= 0 else { throw RPCFault(1, "Position must be greater than or equal to 0.") }
            position = given
        }
        if let dir = options.directory {
            try? FileManager.default.createDirectory(atPath: dir, withIntermediateDirectories: true)
        }
        let url = uris[0]
        // aria2's pause=true: added waiting for an unpause, never started, so no start or pause
        // is told (aria2 tells neither). A new task is added stopped, which aria2 calls paused.
        let paused = p.values.count > 1 && p.values[1]["pause"]?.string == "true"
        let startsNew = manager.downloadNewFileImmediately
        if paused { manager.downloadNewFileImmediately = false }
        if manager.task(url)?.state == .finished {
            // A finished file keeps its name and folder: aria2 would make a new download, never
            // move an old one's file.
            options.fileName = nil
            options.directory = nil
        }
        // A URL tdl has: this add is a new attempt with a GID of its own, the old GID a stopped
        // download's (see `EarlierAttempt`).
        let key = DownloadRequest(url: url).url
        let before = manager.task(key).map { _ in statusStruct(of: key) }
        // One removed from the waiting queue left aria2 no result: it comes back with a new
        // GID, and its old one stays unknown.
        let hadResult = !(manager.task(key).map(Aria2Terms.isDropped) ?? false)
        let result = manager.add([DownloadRequest(url: url, options: options)])
        manager.downloadNewFileImmediately = startsNew
        if let rejected = result.rejected.first { throw RPCFault(1, "\(rejected.url): \(rejected.reason)") }
        if let notApplied = result.notApplied.first { throw RPCFault(1, "\(notApplied.url): \(notApplied.reason)") }
        let added = result.added.first ?? result.existing.first ?? url
        if !kept.isEmpty { keptOptions[added, default: [:]].merge(kept) { $1 } }
        if result.added.isEmpty, let before { startNewAttempt(of: added, before: hadResult ? before : nil) }
        if paused {
            if result.added.isEmpty { manager.pauseTasks([added]) }
        } else if result.added.isEmpty, let task = manager.task(added), task.state != .finished, !task.state.isActive {
            // Asked for again: a task in the trash or a stopped one downloads again, as a new aria2 download would.
            manager.resumeTasks([added], queueIfFull: true)
        }
        // One that started at once is not in the queue: there is nothing to place.
        if let position, currentPartition().waiting.contains(added) {
            move(added, to: position)
        }
        return .string(manager.task(added).map(Aria2Terms.gid(of:)) ?? Aria2Terms.gid(of: added))
    }

    func changeUri(_ p: Params) throws -> JSON {
        let (gid, url) = try task(p)
        guard let fileIndex = p.int(1), let deleted = p.array(2)?.compactMap(\.string), let added = p.array(3)?.compactMap(\.string) else {
            throw p.wrong(p.int(1) == nil ? 1 : p.array(2) == nil ? 2 : 3)
        }
        guard fileIndex == 1 else { throw RPCFault(1, "GID#\(gid) has one file (index 1)") }
        var position: Int?
        if p.values.count > 4 {
            guard let given = p.int(4), given >= 0 else { throw p.wrong(4) }
            position = given
        }
        // The mirrors are aria2's remaining URIs; the first URI, the download's identity, is
        // in use and stays, as a URI in use stays in aria2.
        var mirrors = manager.task(url)?.options.mirrors ?? []
        var removed = 0
        for uri in deleted {
            if let i = mirrors.firstIndex(of: uri) {
                mirrors.remove(at: i)
                removed += 1
            }
        }
        let fresh = added.filter { $0 != url && !mirrors.contains($0) }
        for uri in fresh { try policy.check(uri: uri) }
        var unique: [String] = []
        for uri in fresh where !unique.contains(uri) { unique.append(uri) }
        mirrors.insert(contentsOf: unique, at: min(position ?? mirrors.count, mirrors.count))
        if removed > 0 || !unique.isEmpty {
            let result = manager.add([DownloadRequest(url: url, options: DownloadOptions(mirrors: mirrors))])
            if let problem = result.notApplied.first ?? result.rejected.first { throw RPCFault(1, problem.reason) }
        }
        return [.number(Double(removed)), .number(Double(unique.count))]
    }
}
