import Foundation

/// One method of aria2's JSON-RPC, as tdl answers it: its name, whether it only reads (then
/// the server's threads may answer it from the `StatusBoard`, see `ReadOnlyCalls`), the shape
/// of its parameters after the token (as aria2's manual writes them), and its handler, which
/// runs on the loop. `all` is the one list: `system.listMethods`, the dispatch and the
/// read-only set are made from it.
struct Aria2Method: Sendable {
    let name: String
    let readsOnly: Bool
    let parameters: String
    let handler: @Sendable (Aria2RPC, Params) throws -> JSON

    init(_ name: String, readsOnly: Bool = false, _ parameters: String = "",
         _ handler: @escaping @Sendable (Aria2RPC, Params) throws -> JSON) {
        self.name = name
        self.readsOnly = readsOnly
        self.parameters = parameters
        self.handler = handler
    }

    static let all: [Aria2Method] = [
        Aria2Method("aria2.addUri", "uris[, options[, position]]") { try $0.addUri($1) },
        Aria2Method("aria2.addTorrent", "torrent[, uris[, options[, position]]]") { _, _ in throw notTorrents },
        Aria2Method("aria2.addMetalink", "metalink[, options[, position]]") { try $0.addMetalink($1) },
        Aria2Method("aria2.remove", "gid") { try $0.remove($1) },
        Aria2Method("aria2.forceRemove", "gid") { try $0.remove($1) },
        Aria2Method("aria2.pause", "gid") { try $0.pause($1) },
        Aria2Method("aria2.pauseAll") { rpc, _ in rpc.pauseAll() },
        Aria2Method("aria2.forcePause", "gid") { try $0.pause($1) },
        Aria2Method("aria2.forcePauseAll") { rpc, _ in rpc.pauseAll() },
        Aria2Method("aria2.unpause", "gid") { try $0.unpause($1) },
        Aria2Method("aria2.unpauseAll") { rpc, _ in rpc.unpauseAll() },
        Aria2Method("aria2.tellStatus", readsOnly: true, "gid[, keys]") { rpc, p in
            try rpc.statusStruct(of: rpc.task(p).url, keys: rpc.keys(p, at: 1))
        },
        // A stopped download has no URI data, nor peers, in aria2 (it keeps only the result).
        Aria2Method("aria2.getUris", readsOnly: true, "gid") { rpc, p in
            let (gid, url) = try rpc.task(p)
            guard try !rpc.status(url).isStopped else { throw RPCFault(1, "No URI data is available for GID#\(gid)") }
            return rpc.manager.task(url).map(Aria2Structs.uris) ?? .array([])
        },
        Aria2Method("aria2.getFiles", readsOnly: true, "gid") { rpc, p in
            rpc.statusStruct(of: try rpc.task(p).url, keys: ["files"])["files"] ?? .array([])
        },
        // tdl has no BitTorrent: no download has peers, as aria2 answers for an HTTP one.
        Aria2Method("aria2.getPeers", "gid") { rpc, p in
            let (gid, url) = try rpc.task(p)
            guard try !rpc.status(url).isStopped else { throw RPCFault(1, "No peer data is available for GID#\(gid)") }
            return .array([])
        },
        Aria2Method("aria2.getServers", readsOnly: true, "gid") { try $0.servers($1) },
        Aria2Method("aria2.tellActive", readsOnly: true, "[keys]") { rpc, p in
            let keys = try rpc.keys(p, at: 0)
            return .array(rpc.currentPartition().active.map { rpc.statusStruct(of: $0, keys: keys) })
        },
        Aria2Method("aria2.tellWaiting", "offset, num[, keys]") { try $0.page($0.currentPartition().waiting, $1) },
        Aria2Method("aria2.tellStopped", "offset, num[, keys]") { try $0.stoppedPage($1) },
        Aria2Method("aria2.changePosition", "gid, pos, how") { try $0.changePosition($1) },
        Aria2Method("aria2.changeUri", "gid, fileIndex, delUris, addUris[, position]") { try $0.changeUri($1) },
        Aria2Method("aria2.getOption", "gid") { rpc, p in rpc.options(of: try rpc.task(p).url) },
        Aria2Method("aria2.changeOption", "gid, options") { try $0.changeOption($1) },
        Aria2Method("aria2.getGlobalOption") { rpc, _ in rpc.globalOptions() },
        Aria2Method("aria2.changeGlobalOption", "options") { try $0.changeGlobalOption($1) },
        Aria2Method("aria2.getGlobalStat", readsOnly: true) { rpc, _ in
            rpc.publishStatus()
            return Aria2Structs.globalStat(rpc.statusBoard.currentTotals)
        },
        Aria2Method("aria2.purgeDownloadResult") { rpc, _ in
            rpc.purge()
            return "OK"
        },
        Aria2Method("aria2.removeDownloadResult", "gid") { try $0.removeDownloadResult($1) },
        Aria2Method("aria2.getVersion") { rpc, _ in rpc.version() },
        Aria2Method("aria2.getSessionInfo") { rpc, _ in ["sessionId": .string(rpc.sessionID)] },
        Aria2Method("aria2.shutdown") { rpc, _ in rpc.shutdown(force: false) },
        Aria2Method("aria2.forceShutdown") { rpc, _ in rpc.shutdown(force: true) },
        Aria2Method("aria2.saveSession") { rpc, _ in
            if let problem = rpc.durablePoint() { throw RPCFault(1, problem) }
            return "OK"
        },
        Aria2Method("system.multicall", "methods") { try $0.multicall($1) },
        Aria2Method("system.listMethods") { _, _ in .array(Aria2RPC.methods.map(JSON.string)) },
        Aria2Method("system.listNotifications") { _, _ in .array(Aria2RPC.notifications.map(JSON.string)) },
    ]

    static let byName: [String: Aria2Method] = Dictionary(uniqueKeysWithValues: all.map { ($0.name, $0) })

    /// The methods `ReadOnlyCalls` may answer off the loop.
    static let readOnlyNames: Set<String> = Set(all.filter(\.readsOnly).map(\.name))

    static let notTorrents = RPCFault(1, "tdl has no BitTorrent: it downloads URLs (aria2.addUri) and Metalink files (aria2.addMetalink)")
}
