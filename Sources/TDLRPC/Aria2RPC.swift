import Foundation
import TDLCore

/// aria2's JSON-RPC interface over a `DownloadManager`: a request's bytes in, the answer's
/// bytes out, nothing else. No socket and no thread here: it runs on the event loop that owns
/// the manager (the server hands it each request there), and a test calls it directly. What
/// the read-only calls need it publishes to `statusBoard`, which the server's threads answer
/// those from (`ReadOnlyCalls`).
///
///     let rpc = Aria2RPC(manager: manager)
///     rpc.answer(to: Data(#"{"jsonrpc":"2.0","id":1,"method":"aria2.getVersion"}"#.utf8))
///
/// Numbers in answers are strings and errors carry aria2's codes, as aria2 sends them.
public final class Aria2RPC {
    public let manager: DownloadManager
    /// `token:SECRET` must open the parameters of every `aria2.` method when set.
    public var secret: String? {
        didSet { publisher.board.secret = secret }
    }
    /// Said by `aria2.getVersion` beside aria2's own version number.
    public var tdlVersion: String
    /// The listening address, for `getGlobalOption`.
    public var listenPort: Int
    public var listenAll: Bool
    /// What a caller may ask for (schemes, folders, names): by default, the session's folder.
    public var policy: RPCPolicy
    /// Set by `aria2.shutdown` (false) or `aria2.forceShutdown` (true): the loop ends.
    public private(set) var shutdownRequested: Bool?
    /// The `max-download-limit` given to `changeGlobalOption`: new downloads of this run get it.
    public private(set) var defaultRateLimit: Int64?

    /// One per run, as aria2's is.
    let sessionID: String
    private var observer: Int?
    /// The tasks as the server's threads see them, and the index of tasks by GID.
    let publisher: StatusPublisher
    var statusBoard: StatusBoard { publisher.board }
    /// The tasks by aria2 status, rebuilt after any change.
    private var partition: Partition?

    /// The aria2 version whose interface this one follows.
    public static let aria2Version = "1.37.0"
    public static let maxMulticall = 10_000

    public init(manager: DownloadManager, secret: String? = nil, tdlVersion: String = "", listenPort: Int = 6800, listenAll: Bool = false) {
        self.manager = manager
        publisher = StatusPublisher(manager: manager)
        policy = RPCPolicy(roots: [manager.downloadDirectory])
        self.secret = secret?.isEmpty == true ? nil : secret
        publisher.board.secret = self.secret
        self.tdlVersion = tdlVersion
        self.listenPort = listenPort
        self.listenAll = listenAll
        sessionID = (0..<5).map { _ in String(format: "%08x", UInt32.random(in: .min ... .max)) }.joined()
        observer = manager.observe { [weak self] event in
            guard let self else { return }
            switch event {
            case .listChanged, .deleted:
                self.partition = nil
            case .taskChanged(let url), .taskSucceeded(let url, _), .taskFailed(let url, _):
                // Progress changes no status: the queues stay (rebuilding them is a sort of every task).
                if let partition = self.partition, partition.statuses[url] != self.manager.task(url).map(Aria2Terms.status) {
                    self.partition = nil
                }
            case .saveFailed, .deleteFailed, .allDownloadsOver:
                break
            }
        }
    }

    deinit {
        if let observer { manager.stopObserving(observer) }
    }

    // MARK: - Requests

    /// The answer to one request body: a call, or a batch (a JSON array of calls).
    public func answer(to body: Data) -> Data {
        guard let request = Self.request(body) else { return Self.parseError.serialized }
        return answer(request: request).serialized
    }

    /// A request body's JSON, nil when it is not JSON (answer `parseError`). Needs no manager:
    /// the server's threads parse, so the loop only carries out the calls.
    public static func request(_ body: Data) -> JSON? { try? JSON.parse(body) }

    public static let parseError = errorResponse(id: .null, RPCFault(-32700, "Parse error."))

    /// The answer to a parsed request: a call, or a batch (a JSON array of calls). Its bytes
    /// are written by the caller (off the loop, in the server).
    public func answer(request: JSON) -> JSON {
        // What the call changed is published before its answer leaves: a read that follows
        // it, answered off the loop, sees the change.
        defer { publishStatus() }
        if case .array(let calls) = request {
            // An empty batch is answered `[]`, as aria2 does (aria2tui sends one for an empty list).
            return JSON.array(calls.map(answer(call:)))
        }
        return answer(call: request)
    }

    public func answer(call request: JSON) -> JSON {
        guard case .object = request, let method = request["method"]?.string else {
            return Self.errorResponse(id: request["id"] ?? .null, RPCFault(-32600, "Invalid Request."))
        }
        let id = request["id"] ?? .null
        let params: [JSON]
        switch request["params"] {
        case nil: params = []
        case .array(let list)?: params = list
        default: return Self.errorResponse(id: id, RPCFault(-32602, "Invalid params."))
        }
        do {
            let result = try call(method, params)
            return ["id": id, "jsonrpc": "2.0", "result": result]
        } catch let fault as RPCFault {
            return Self.errorResponse(id: id, fault)
        } catch {
            return Self.errorResponse(id: id, RPCFault(1, "\(error)"))
        }
    }

    /// On the loop, after every call: publishes the tasks that changed and the running ones'
    /// numbers (every task, at the first call).
    func publishStatus() {
        publisher.fillIfNeeded()
        publisher.publish()
    }

    /// On the loop, at every turn: the same, once a call has made the board (a server no
    /// client has called costs nothing).
    func publishLiveStatus() { publisher.publish() }

    static func errorResponse(id: JSON, _ fault: RPCFault) -> JSON {
        ["id": id, "jsonrpc": "2.0", "error": ["code": .number(Double(fault.code)), "message": .string(fault.message)]]
    }

    /// Every method, as `system.listMethods` names them.
    public static let methods: [String] = [
        "aria2.addUri", "aria2.addTorrent", "aria2.addMetalink", "aria2.remove", "aria2.forceRemove",
        "aria2.pause", "aria2.pauseAll", "aria2.forcePause", "aria2.forcePauseAll", "aria2.unpause",
        "aria2.unpauseAll", "aria2.tellStatus", "aria2.getUris", "aria2.getFiles", "aria2.getPeers",
        "aria2.getServers", "aria2.tellActive", "aria2.tellWaiting", "aria2.tellStopped",
        "aria2.changePosition", "aria2.changeUri", "aria2.getOption", "aria2.changeOption",
        "aria2.getGlobalOption", "aria2.changeGlobalOption", "aria2.getGlobalStat",
        "aria2.purgeDownloadResult", "aria2.removeDownloadResult", "aria2.getVersion",
        "aria2.getSessionInfo", "aria2.shutdown", "aria2.forceShutdown", "aria2.saveSession",
        "system.multicall", "system.listMethods", "system.listNotifications",
    ]

    static let methodSet = Set(methods)

    public static let notifications: [String] = [
        "aria2.onDownloadStart", "aria2.onDownloadPause", "aria2.onDownloadStop",
        "aria2.onDownloadComplete", "aria2.onDownloadError", "aria2.onBtDownloadComplete",
    ]

    /// Carries out one method; throws its fault.
    func call(_ method: String, _ given: [JSON], nested: Bool = false) throws -> JSON {
        guard Self.methodSet.contains(method) else { throw RPCFault(-32601, "Method not found.") }
        var params = given
        if method.hasPrefix("aria2.") {
            let token = params.first?.string.flatMap { $0.hasPrefix("token:") ? String($0.dropFirst(6)) : nil }
            if let secret {
                guard let token, Self.sameSecret(token, secret) else { throw RPCFault(1, "Unauthorized") }
            }
            if token != nil { params.removeFirst() }
        }
        var p = Params(params)
        switch method {
        case "system.listMethods": return .array(Self.methods.map(JSON.string))
        case "system.listNotifications": return .array(Self.notifications.map(JSON.string))
        case "system.multicall":
            guard !nested else { throw RPCFault(1, "Recursive system.multicall forbidden.") }
            guard let calls = p.array(0), calls.count <= Self.maxMulticall else { throw p.wrong(0) }
            return .array(calls.map { entry -> JSON in
                guard case .object = entry else { return Self.fault(RPCFault(1, "system.multicall expected struct.")) }
                guard let name = entry["methodName"]?.string else { return Self.fault(RPCFault(1, "Missing methodName.")) }
                guard name != "system.multicall" else { return Self.fault(RPCFault(1, "Recursive system.multicall forbidden.")) }
                let subParams: [JSON]
                switch entry["params"] {
                case nil: subParams = []
                case .array(let list)?: subParams = list
                default: return Self.fault(RPCFault(1, "The parameter at 1 has wrong type."))
                }
                do { return .array([try call(name, subParams, nested: true)]) } catch let fault as RPCFault { return Self.fault(fault) } catch { return Self.fault(RPCFault(1, "\(error)")) }
            })
        case "aria2.addUri": return try addUri(&p)
        case "aria2.addTorrent", "aria2.addMetalink":
            throw RPCFault(1, "tdl downloads URLs only: BitTorrent and Metalink are not supported (use aria2.addUri)")
        case "aria2.getPeers":
            throw RPCFault(1, "tdl has no BitTorrent peers")
        case "aria2.remove", "aria2.forceRemove":
            let (gid, url) = try task(&p)
            guard manager.task(url)?.deletedAt == nil else { throw RPCFault(1, "Active Download not found for GID#\(gid)") }
            manager.deleteTasks([url])
            guard manager.task(url).map({ $0.deletedAt != nil }) ?? true else {
                throw RPCFault(1, "GID#\(gid) cannot be removed now: its file is being made durable")
            }
            return .string(gid)
        case "aria2.pause", "aria2.forcePause":
            let (gid, url) = try task(&p)
            let status = try self.status(url)
            guard status == .active || status == .waiting, !manager.pauseTasks([url]).isEmpty else {
                throw RPCFault(1, "GID#\(gid) cannot be paused now")
            }
            return .string(gid)
        case "aria2.pauseAll", "aria2.forcePauseAll":
            manager.pauseAllTasks()
            return "OK"
        case "aria2.unpause":
            let (gid, url) = try task(&p)
            guard try status(url) == .paused else { throw RPCFault(1, "GID#\(gid) cannot be unpaused now") }
            manager.resumeTasks([url], queueIfFull: true)
            return .string(gid)
        case "aria2.unpauseAll":
            // In queue order: the oldest gets the free slot.
            let paused = currentPartition().waiting.filter { manager.task($0).map(Aria2Terms.status) == .paused }
            manager.resumeTasks(paused, queueIfFull: true)
            return "OK"
        case "aria2.tellStatus":
            let (_, url) = try task(&p)
            return statusStruct(of: url, keys: try keys(p, at: 1))
        case "aria2.getUris":
            let (_, url) = try task(&p)
            return .array([Aria2Structs.uri(url)])
        case "aria2.getFiles":
            let (_, url) = try task(&p)
            return statusStruct(of: url, keys: ["files"])["files"] ?? .array([])
        case "aria2.getServers":
            let (gid, url) = try task(&p)
            guard try status(url) == .active, let task = manager.task(url) else {
                throw RPCFault(1, "No active download for GID#\(gid)")
            }
            return Aria2Structs.servers(of: task, speed: manager.activity[url]?.speed ?? 0)
        case "aria2.tellActive":
            let keys = try keys(p, at: 0)
            return .array(currentPartition().active.map { statusStruct(of: $0, keys: keys) })
        case "aria2.tellWaiting":
            return try page(currentPartition().waiting, &p)
        case "aria2.tellStopped":
            return try page(currentPartition().stopped, &p)
        case "aria2.changePosition":
            return try changePosition(&p)
        case "aria2.changeUri":
            return try changeUri(&p)
        case "aria2.getOption":
            let (_, url) = try task(&p)
            return options(of: url)
        case "aria2.changeOption":
            return try changeOption(&p)
        case "aria2.getGlobalOption":
            return globalOptions()
        case "aria2.changeGlobalOption":
            return try changeGlobalOption(&p)
        case "aria2.getGlobalStat":
            publishStatus()
            return Aria2Structs.globalStat(statusBoard.currentTotals)
        case "aria2.purgeDownloadResult":
            forget(currentPartition().stopped)
            return "OK"
        case "aria2.removeDownloadResult":
            let (gid, url) = try task(&p)
            guard [.complete, .error, .removed].contains(try status(url)) else {
                throw RPCFault(1, "Could not remove download result of GID#\(gid)")
            }
            forget([url])
            return "OK"
        case "aria2.getVersion":
            var version: [(String, JSON)] = [("version", .string(Self.aria2Version)),
                                            ("enabledFeatures", ["HTTPS", "FTP", "Checksum", "GZip"])]
            if !tdlVersion.isEmpty { version.append(("tdl", .string(tdlVersion))) }
            return .object(version)
        case "aria2.getSessionInfo":
            return ["sessionId": .string(sessionID)]
        case "aria2.saveSession":
            manager.flush()
            if let problem = manager.lastError { throw RPCFault(1, problem) }
            return "OK"
        case "aria2.shutdown", "aria2.forceShutdown":
            manager.flush()
            shutdownRequested = method == "aria2.forceShutdown"
            return "OK"
        default:
            throw RPCFault(-32601, "Method not found.")
        }
    }

    static func fault(_ fault: RPCFault) -> JSON {
        ["code": .number(Double(fault.code)), "message": .string(fault.message)]
    }

    /// Compares in time independent of where the texts differ.
    static func sameSecret(_ a: String, _ b: String) -> Bool {
        let x = Array(a.utf8), y = Array(b.utf8)
        var diff = x.count ^ y.count
        for i in 0..<max(x.count, y.count) { diff |= Int((i < x.count ? x[i] : 0) ^ (i < y.count ? y[i] : 0)) }
        return diff == 0
    }

    // MARK: - Tasks by GID

    /// The task a GID parameter names.
    func task(_ p: inout Params, at index: Int = 0) throws -> (gid: String, url: String) {
        guard let gid = p.string(index) else { throw p.wrong(index) }
        guard let number = Aria2Terms.gidNumber(gid) else { throw RPCFault(1, "Invalid GID \(gid)") }
        // Tasks added earlier in this call (a multicall's addUri) are looked up too.
        publisher.fillIfNeeded()
        publisher.publishChanges()
        if let url = statusBoard.url(gid: number), manager.task(url) != nil { return (gid.lowercased(), url) }
        throw RPCFault(1, "GID \(gid) is not found")
    }

    func tasks() -> [DownloadTask] { manager.allTasksSet.compactMap(manager.task) }

    func status(_ url: String) throws -> Aria2Terms.Status {
        guard let task = manager.task(url) else { throw RPCFault(1, "GID \(Aria2Terms.gid(of: url)) is not found") }
        return Aria2Terms.status(of: task)
    }

    struct Partition {
        var active: [String] = []
        /// Waiting and paused, in the order they start (`DownloadManager.startRank`: add time
        /// unless moved; a relaunch starts what downloaded before first).
        var waiting: [String] = []
        /// Complete, failed and removed, by add time.
        var stopped: [String] = []
        /// Each task's status when the queues were made: a change of one makes them again.
        var statuses: [String: Aria2Terms.Status] = [:]
    }

    func currentPartition() -> Partition {
        if let partition { return partition }
        var parts = Partition()
        var waiting: [(rank: Double, url: String)] = [], stopped: [(rank: Double, url: String)] = []
        parts.statuses.reserveCapacity(manager.taskCount)
        for task in tasks() {
            let status = Aria2Terms.status(of: task)
            parts.statuses[task.url] = status
            switch status {
            case .active: parts.active.append(task.url)
            case .waiting, .paused: waiting.append((manager.startRank(of: task.url) ?? 0, task.url))
            case .complete, .error, .removed: stopped.append((task.addTime.timeIntervalSinceReferenceDate, task.url))
            }
        }
        parts.active.sort()
        parts.waiting = waiting.sorted { ($0.rank, $0.url) < ($1.rank, $1.url) }.map(\.url)
        parts.stopped = stopped.sorted { ($0.rank, $0.url) < ($1.rank, $1.url) }.map(\.url)
        partition = parts
        return parts
    }

    /// tellWaiting / tellStopped: `offset` from the start, or (negative) from the end going backwards.
    func page(_ list: [String], _ p: inout Params) throws -> JSON {
        guard let offset = p.int(0) else { throw p.wrong(0) }
        guard let num = p.int(1), num >= 0 else { throw p.wrong(1) }
        let keys = try keys(p, at: 2)
        var picked: [String] = []
        if offset >= 0 {
            if offset < list.count { picked = Array(list[offset ..< offset + min(list.count - offset, num)]) }
        } else {
            let start = list.count + offset  // -1 is the last
            if start >= 0 {
                var i = start
                while i >= 0 && picked.count < num { picked.append(list[i]); i -= 1 }
            }
        }
        return .array(picked.map { statusStruct(of: $0, keys: keys) })
    }

    func keys(_ p: Params, at index: Int) throws -> Set<String>? {
        guard index < p.values.count else { return nil }
        guard let list = p.values[index].array else { throw p.wrong(index) }
        return Set(list.compactMap(\.string))
    }

    /// Forgets tasks for good (tdl's delete for good: a finished file stays, an unfinished
    /// download's part file goes).
    func forget(_ urls: [String]) {
        guard !urls.isEmpty else { return }
        let listed = urls.filter { manager.task($0)?.deletedAt == nil }
        if !listed.isEmpty { manager.deleteTasks(listed) }
        manager.cleanupToDeleteTasks(urls)
    }

    // MARK: - Structs

    /// aria2's status struct of a task, with only `keys` when given.
    public func statusStruct(of url: String, keys: Set<String>? = nil) -> JSON {
        guard let task = manager.task(url) else { return .object([]) }
        return Aria2Structs.status(of: task, activity: manager.activity[url],
                                   defaultConnections: manager.settings.connectionsPerDownload, keys: keys)
    }

    // MARK: - Options

    /// aria2's options a download takes, as `DownloadOptions`.
    func downloadOptions(from given: JSON?) throws -> DownloadOptions {
        var options = DownloadOptions()
        guard let given else { return options }
        guard let pairs = given.object else { throw RPCFault(1, "The parameter at 1 has wrong type.") }
        for (name, value) in pairs {
            try RPCPolicy.refuseCommand(option: name)
            let text: String
            switch value {
            case .string(let s): text = s
            case .number: text = String(value.integer ?? -1)
            case .array(let items) where name == "header":
                for header in items.compactMap(\.string) {
                    if let problem = RequestHeader.problem(with: header) {
                        throw RPCFault(1, "header \(RequestHeader.masked(header)): \(problem)")
                    }
                    options.headers = (options.headers ?? []) + [header]
                }
                continue
            default: throw RPCFault(1, "We encountered a problem while processing the option '--\(name)'.")
            }
            switch name {
            case "dir":
                options.directory = try policy.folder(text)
                if let problem = manager.folderProblem(options.directory!) { throw RPCFault(1, problem) }
            case "out":
                try policy.check(name: text)
                options.fileName = text
            case "checksum":
                guard let checksum = Checksum(text) else {
                    throw RPCFault(1, "checksum must look like sha-256=HEX (md5, sha-1, sha-256, sha-512)")
                }
                options.checksum = checksum
            case "split", "max-connection-per-server":
                guard let n = Int(text), (1...32).contains(n) else { throw RPCFault(1, "\(name) must be between 1 and 32") }
                options.connections = n
            case "max-download-limit":
                options.rateLimit = try Self.rate(text, for: name)
            case "header":
                if let problem = RequestHeader.problem(with: text) { throw RPCFault(1, "header \(RequestHeader.masked(text)): \(problem)") }
                options.headers = (options.headers ?? []) + [text]
            case "user-agent", "referer":
                if let problem = RequestText.problem(inValue: text) { throw RPCFault(1, "\(name): \(problem)") }
                if name == "referer" { options.referer = text } else { options.userAgent = text }
            case "pause":
                guard text == "true" || text == "false" else { throw RPCFault(1, "pause must be true or false") }
            case "gid", "continue", "allow-overwrite", "auto-file-renaming", "remote-time", "check-integrity",
                 "always-resume", "min-split-size", "max-tries", "retry-wait", "timeout", "connect-timeout", "lowest-speed-limit":
                // Settings tdl decides itself (resuming, naming, retries), which a front end sends by habit.
                continue
            default:
                throw RPCFault(1, "tdl does not know the option '\(name)'")
            }
        }
        return options
    }

    func options(of url: String) -> JSON {
        guard let task = manager.task(url) else { return .object([]) }
        var pairs: [(String, JSON)] = [("dir", .string(task.directory)), ("out", .string(task.fileName))]
        pairs.append(("split", .string(String(task.options.connections ?? manager.settings.connectionsPerDownload))))
        pairs.append(("max-download-limit", .string(String(task.options.rateLimit ?? 0))))
        if let checksum = task.options.checksum {
            let aria2Name = ["md5": "md5", "sha1": "sha-1", "sha256": "sha-256", "sha512": "sha-512"][checksum.algorithm.rawValue] ?? checksum.algorithm.rawValue
            pairs.append(("checksum", .string("\(aria2Name)=\(checksum.hex)")))
        }
        return .object(pairs)
    }

    func addUri(_ p: inout Params) throws -> JSON {
        guard let uris = p.array(0)?.compactMap(\.string), uris.count == p.array(0)?.count else { throw p.wrong(0) }
        guard !uris.isEmpty else { throw RPCFault(1, "URI is not provided.") }
        guard Set(uris).count == 1 else {
            throw RPCFault(1, "tdl takes one URI per download: add mirrors of a file as separate downloads")
        }
        try policy.check(uri: uris[0])
        var options = try downloadOptions(from: p.values.count > 1 ? p.values[1] : nil)
        if options.rateLimit == nil { options.rateLimit = defaultRateLimit }
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
        let result = manager.add([DownloadRequest(url: url, options: options)])
        manager.downloadNewFileImmediately = startsNew
        if let rejected = result.rejected.first { throw RPCFault(1, "\(rejected.url): \(rejected.reason)") }
        if let notApplied = result.notApplied.first { throw RPCFault(1, "\(notApplied.url): \(notApplied.reason)") }
        let added = result.added.first ?? result.existing.first ?? url
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
        return .string(Aria2Terms.gid(of: added))
    }

    /// Moves a download in the waiting queue (waiting and paused, in start order) as aria2
    /// does: to `pos` from the start, from where it is, or from the end, kept inside the
    /// queue; answers where it landed. Waiting downloads start in the new order.
    func changePosition(_ p: inout Params) throws -> JSON {
        let (gid, url) = try task(&p)
        guard let pos = p.int(1) else { throw p.wrong(1) }
        guard let how = p.string(2) else { throw p.wrong(2) }
        let queue = currentPartition().waiting
        guard let current = queue.firstIndex(of: url) else { throw RPCFault(1, "GID#\(gid) not found in the waiting queue") }
        let target: Int
        switch how {
        case "POS_SET": target = pos
        // A position from outside: added with overflow checks, then kept inside the queue by move.
        case "POS_CUR": target = Self.clampedSum(current, pos)
        case "POS_END": target = Self.clampedSum(queue.count - 1, pos)
        default: throw RPCFault(1, "Illegal argument.")
        }
        return .number(Double(move(url, to: target)))
    }

    /// Moves a download of the waiting queue to `target`, kept inside the queue; returns where it landed.
    @discardableResult
    func move(_ url: String, to target: Int) -> Int {
        var queue = currentPartition().waiting
        guard let current = queue.firstIndex(of: url) else { return 0 }
        let landed = max(0, min(queue.count - 1, target))
        guard landed != current else { return landed }
        queue.remove(at: current)
        manager.moveInStartOrder(url, after: landed > 0 ? queue[landed - 1] : nil,
                                 before: landed < queue.count ? queue[landed] : nil)
        queue.insert(url, at: landed)
        partition?.waiting = queue
        return landed
    }

    func changeUri(_ p: inout Params) throws -> JSON {
        let (gid, url) = try task(&p)
        guard let fileIndex = p.int(1), let deleted = p.array(2)?.compactMap(\.string), let added = p.array(3)?.compactMap(\.string) else {
            throw p.wrong(p.int(1) == nil ? 1 : p.array(2) == nil ? 2 : 3)
        }
        guard fileIndex == 1 else { throw RPCFault(1, "GID#\(gid) has one file (index 1)") }
        let removes = deleted.filter { $0 == url }.count
        let keeps = added.filter { $0 == url }.count
        guard Set(added).subtracting([url]).isEmpty, removes == keeps || removes == 0 else {
            throw RPCFault(1, "a tdl download has one URI, its identity: add the other URI as a download of its own")
        }
        return [.number(Double(removes)), .number(Double(keeps > 0 && removes > 0 ? keeps : 0))]
    }

    func changeOption(_ p: inout Params) throws -> JSON {
        let (_, url) = try task(&p)
        guard p.values.count > 1 else { throw p.wrong(1) }
        let options = try downloadOptions(from: p.values[1])
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

    func globalOptions() -> JSON {
        let settings = manager.settings
        return ["dir": .string(manager.downloadDirectory),
                "max-concurrent-downloads": .string(String(max(0, settings.maxDownloadCount))),
                "max-overall-download-limit": .string(String(settings.globalRateLimit ?? 0)),
                "max-download-limit": .string(String(defaultRateLimit ?? 0)),
                "split": .string(String(settings.connectionsPerDownload)),
                "max-connection-per-server": .string(String(settings.connectionsPerDownload)),
                "max-tries": .string(String(settings.maxRetries + 1)),
                "continue": "true",
                "enable-rpc": "true",
                "rpc-listen-port": .string(String(listenPort)),
                "rpc-listen-all": listenAll ? "true" : "false"]
    }

    func changeGlobalOption(_ p: inout Params) throws -> JSON {
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
            case "split", "max-connection-per-server":
                guard let n = Int(text), (1...32).contains(n) else { throw RPCFault(1, "\(name) must be between 1 and 32") }
                changes.append { self.manager.setConnectionsPerDownload(n) }
            default:
                throw RPCFault(1, "tdl cannot change the option '\(name)' while running")
            }
        }
        for change in changes { change() }
        manager.flush()
        return "OK"
    }
}
