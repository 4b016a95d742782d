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
    /// Writes the session now (`aria2.saveSession`): nil, or why not. A running tdl's loop
    /// gives its own (it alone decides when to save); alone, the manager writes at once.
    public lazy var durablePoint: () -> String? = { [manager] in
        manager.flush()
        return manager.lastError
    }
    /// Set by `aria2.shutdown` (false) or `aria2.forceShutdown` (true): the loop ends.
    public internal(set) var shutdownRequested: Bool?
    /// The `max-download-limit` given to `changeGlobalOption`: new downloads of this run get it.
    public internal(set) var defaultRateLimit: Int64?

    /// aria2's options tdl has no setting for, as a caller gave them (by URL, and the session's):
    /// answered back by getOption and getGlobalOption, for this run.
    var keptOptions: [String: [String: String]] = [:]
    var keptGlobalOptions: [String: String] = [:]
    /// What a call did that its answer does not say (a Metalink's file not added), for the
    /// message log; taken by `RPCServer.takeProblems`.
    var notes: [String] = []

    /// One per run, as aria2's is.
    let sessionID: String
    private var observer: Int?
    /// The tasks as the server's threads see them, and the index of tasks by GID.
    let publisher: StatusPublisher
    var statusBoard: StatusBoard { publisher.board }
    /// The tasks by aria2 status, rebuilt after any change.
    var partition: Partition?

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
    public static let methods: [String] = Aria2Method.all.map(\.name)

    public static let notifications: [String] = [
        "aria2.onDownloadStart", "aria2.onDownloadPause", "aria2.onDownloadStop",
        "aria2.onDownloadComplete", "aria2.onDownloadError", "aria2.onBtDownloadComplete",
    ]

    /// Carries out one method; throws its fault. An unknown method is aria2's error 1, as
    /// aria2 answers it (never JSON-RPC's -32601).
    func call(_ method: String, _ given: [JSON]) throws -> JSON {
        guard let entry = Aria2Method.byName[method] else { throw RPCFault(1, "No such method: \(method)") }
        var params = given
        if method.hasPrefix("aria2.") {
            let token = params.first?.string.flatMap { $0.hasPrefix("token:") ? String($0.dropFirst(6)) : nil }
            if let secret {
                guard let token, Self.sameSecret(token, secret) else { throw RPCFault(1, "Unauthorized") }
            }
            if token != nil { params.removeFirst() }
        }
        if let answer = try answerForEarlier(method, Params(params)) { return answer }
        return try entry.handler(self, Params(params))
    }

    /// `system.multicall`: each call's result in a list of one, or its fault.
    func multicall(_ p: Params) throws -> JSON {
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
            do { return .array([try call(name, subParams)]) } catch let fault as RPCFault { return Self.fault(fault) } catch { return Self.fault(RPCFault(1, "\(error)")) }
        })
    }

    /// getVersion: tdl's version (aria2's whose interface it follows when it was given none),
    /// and what tdl has; aria2's keys, no others.
    func version() -> JSON {
        ["enabledFeatures": .array((Self.aria2Features + Self.tdlFeatures).map(JSON.string)),
         "version": .string(tdlVersion.isEmpty ? Self.aria2Version : tdlVersion)]
    }

    /// What tdl has that aria2 names so in `enabledFeatures`: HTTPS and SFTP (libcurl's),
    /// checksums ("Message Digest"), `addMetalink`. Not "GZip", "Async DNS", "BitTorrent",
    /// "Firefox3 Cookie" or "XML-RPC": tdl has none of those as aria2 means them.
    public static let aria2Features = ["HTTPS", "SFTP", "Message Digest", "Metalink"]
    /// tdl's own names for what aria2 has without naming it.
    public static let tdlFeatures = ["FTP", "FTPS"]

    func shutdown(force: Bool) -> JSON {
        shutdownRequested = force
        return "OK"
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
        /// GIDs downloads had before their URLs were added again, stopped, by when they ended.
        var earlier: [EarlierAttempt] = []
        var earlierURLs: [UInt64: String] = [:]
    }

    func currentPartition() -> Partition {
        if let partition { return partition }
        var parts = Partition()
        var waiting: [(rank: Double, url: String)] = [], stopped: [(rank: Double, url: String)] = []
        parts.statuses.reserveCapacity(manager.taskCount)
        for task in tasks() {
            let status = Aria2Terms.status(of: task)
            parts.statuses[task.url] = status
            // Its earlier attempts are results of their own; it has none.
            if Aria2Terms.isDropped(task) {
                if task.metaInfo[Self.earlierKey] != nil { parts.earlier += Self.earlierAttempts(of: task) }
                continue
            }
            switch status {
            case .active: parts.active.append(task.url)
            case .waiting, .paused: waiting.append((manager.startRank(of: task.url) ?? 0, task.url))
            case .complete, .error, .removed: stopped.append((task.addTime.timeIntervalSinceReferenceDate, task.url))
            }
            if task.metaInfo[Self.earlierKey] != nil { parts.earlier += Self.earlierAttempts(of: task) }
        }
        parts.earlier.sort { ($0.endedAt, $0.gid) < ($1.endedAt, $1.gid) }
        for attempt in parts.earlier { parts.earlierURLs[attempt.gid] = attempt.url }
        publisher.earlierCount = parts.earlier.count
        parts.active.sort()
        parts.waiting = waiting.sorted { ($0.rank, $0.url) < ($1.rank, $1.url) }.map(\.url)
        parts.stopped = stopped.sorted { ($0.rank, $0.url) < ($1.rank, $1.url) }.map(\.url)
        partition = parts
        return parts
    }

    /// tellStopped: earlier attempts (they ended first), then stopped downloads.
    func stoppedPage(_ p: Params) throws -> JSON {
        let parts = currentPartition()
        return try page(parts.earlier.count + parts.stopped.count, p) { i, keys in
            guard i < parts.earlier.count else { return statusStruct(of: parts.stopped[i - parts.earlier.count], keys: keys) }
            return keys.map { parts.earlier[i].result.only($0) } ?? parts.earlier[i].result
        }
    }

    /// purgeDownloadResult: every stopped download's result, earlier attempts' too.
    func purge() {
        let parts = currentPartition()
        let stopped = Set(parts.stopped)
        forgetEarlier(parts.earlier.filter { !stopped.contains($0.url) })
        forget(parts.stopped)
    }

    /// tellWaiting: `offset` from the start, or (negative) from the end going backwards.
    func page(_ list: [String], _ p: Params) throws -> JSON {
        try page(list.count, p) { statusStruct(of: list[$0], keys: $1) }
    }

    func page(_ count: Int, _ p: Params, _ item: (Int, Set<String>?) -> JSON) throws -> JSON {
        guard let offset = p.int(0) else { throw p.wrong(0) }
        guard let num = p.int(1), num >= 0 else { throw p.wrong(1) }
        let keys = try keys(p, at: 2)
        var picked: [Int] = []
        if offset >= 0 {
            if offset < count { picked = Array(offset ..< offset + min(count - offset, num)) }
        } else {
            let start = count + offset  // -1 is the last
            if start >= 0 {
                var i = start
                while i >= 0 && picked.count < num { picked.append(i); i -= 1 }
            }
        }
        return .array(picked.map { item($0, keys) })
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
        for url in urls { keptOptions[url] = nil }
        publisher.forgottenStopped += urls.filter { url in
            manager.task(url).map { [.complete, .error, .removed].contains(Aria2Terms.status(of: $0)) } ?? false
        }.count + urls.reduce(0) { $0 + (manager.task($1).map { Self.earlierAttempts(of: $0).count } ?? 0) }
        // Erased at once, not through the trash: aria2 tells no onDownloadStop for a result it drops.
        manager.purgeTasks(urls)
    }

    // MARK: - Structs

    /// aria2's status struct of a task, with only `keys` when given.
    public func statusStruct(of url: String, keys: Set<String>? = nil) -> JSON {
        guard let task = manager.task(url) else { return .object([]) }
        return Aria2Structs.status(of: task, activity: manager.activity[url],
                                   defaultConnections: manager.settings.connectionsPerDownload, keys: keys)
    }
}
