import Foundation
import TDLCore

/// One GID a download had before its URL was added again: aria2 makes every `addUri` a new
/// download with a new GID and keeps the old one's result, stopped (aria2p's retry adds the
/// URI again, then removes the old GID's result). tdl keeps one task per URL, so the task
/// takes a new GID and the old one answers as the stopped download it became: its status
/// struct as it ended, `error` or `complete` as it was, `removed` (errorCode 31) when it was
/// still in a queue, its attempt carried on by the new GID.
struct EarlierAttempt {
    let url: String
    let gid: UInt64
    /// When it ended (seconds since 1970): tellStopped's order.
    let endedAt: Double
    /// Its status struct, every key.
    let result: JSON
}

/// Earlier attempts live in their task's `metaInfo` (so the session saves them and a relaunch
/// answers the same GIDs), as a JSON list; they go with the task when it is forgotten.
extension Aria2RPC {
    static let earlierKey = "aria2.earlier"
    /// The earlier attempts one task keeps at most (aria2 keeps 1,000 results in all).
    static let maxEarlierAttempts = 32

    static func earlierAttempts(of task: DownloadTask) -> [EarlierAttempt] {
        guard let text = task.metaInfo[earlierKey], let list = (try? JSON.parse(text))?.array else { return [] }
        return list.compactMap { entry in
            guard let result = entry["result"], let gid = result["gid"]?.string.flatMap(Aria2Terms.gidNumber),
                  case .number(let endedAt)? = entry["at"] else { return nil }
            return EarlierAttempt(url: task.url, gid: gid, endedAt: endedAt, result: result)
        }
    }

    private func setEarlierAttempts(_ attempts: [EarlierAttempt], of url: String) {
        let text = attempts.isEmpty ? nil : JSON.array(attempts.map { ["at": .number($0.endedAt), "result": $0.result] }).text
        manager.setMetaInfo(text, forKey: Self.earlierKey, of: url)
        partition = nil
    }

    /// Gives the task of `url` a new GID, for the attempt an `addUri` of its URL starts. Its
    /// GID until now becomes an earlier attempt whose result is `before`, the task's status
    /// struct as it was before the add (nil: it left no result, and its GID is simply gone).
    func startNewAttempt(of url: String, before: JSON?) {
        guard let task = manager.task(url) else { return }
        var attempts = Self.earlierAttempts(of: task)
        if var ended = before {
            if let status = ended["status"]?.string, ["active", "waiting", "paused"].contains(status) {
                ended = ended.setting("status", "removed").setting("errorCode", "31").setting("errorMessage", "")
            }
            ended = ended.setting("downloadSpeed", "0").setting("connections", "0")
            attempts.append(EarlierAttempt(url: url, gid: Aria2Terms.gidNumber(of: task), endedAt: Date().timeIntervalSince1970, result: ended))
        }
        attempts.removeFirst(max(0, attempts.count - Self.maxEarlierAttempts))
        let taken = currentPartition().earlierURLs
        var gid: UInt64
        repeat { gid = UInt64.random(in: 1 ... .max) } while statusBoard.url(gid: gid) != nil || taken[gid] != nil
        manager.setMetaInfo(Aria2Terms.gidText(gid), forKey: Aria2Terms.gidKey, of: url)
        setEarlierAttempts(attempts, of: url)
        _ = currentPartition()
    }

    /// The earlier attempt the GID at `index` names (16 hex digits or a unique prefix), nil
    /// when it names none (the method's own lookup then gives aria2's error).
    func earlierAttempt(_ p: Params, at index: Int = 0) -> EarlierAttempt? {
        guard let gid = p.string(index).flatMap({ try? expandGID($0) }) else { return nil }
        // A current GID (almost every call) is known from the board, without the queues.
        guard statusBoard.url(gid: gid) == nil,
              let url = currentPartition().earlierURLs[gid], let task = manager.task(url) else { return nil }
        return Self.earlierAttempts(of: task).first { $0.gid == gid }
    }

    /// Forgets earlier attempts' results (removeDownloadResult, purgeDownloadResult).
    func forgetEarlier(_ attempts: [EarlierAttempt]) {
        guard !attempts.isEmpty else { return }
        let gone = Set(attempts.map(\.gid))
        for url in Set(attempts.map(\.url)) {
            guard let task = manager.task(url) else { continue }
            setEarlierAttempts(Self.earlierAttempts(of: task).filter { !gone.contains($0.gid) }, of: url)
        }
        publisher.forgottenStopped += gone.count
        _ = currentPartition()
    }

    /// The answer to a call naming an earlier attempt's GID, nil for any other call: it is a
    /// stopped download, read as one and removed as one.
    func answerForEarlier(_ method: String, _ p: Params) throws -> JSON? {
        guard Self.earlierMethods.contains(method), let attempt = earlierAttempt(p) else { return nil }
        let gid = Aria2Terms.gidText(attempt.gid)
        switch method {
        case "aria2.tellStatus":
            let keys = try keys(p, at: 1)
            return keys.map { attempt.result.only($0) } ?? attempt.result
        case "aria2.getFiles":
            return attempt.result["files"] ?? .array([])
        case "aria2.getUris":
            throw RPCFault(1, "No URI data is available for GID#\(gid)")
        case "aria2.getPeers":
            throw RPCFault(1, "No peer data is available for GID#\(gid)")
        case "aria2.getOption":
            return options(of: attempt.url)
        case "aria2.removeDownloadResult":
            forgetEarlier([attempt])
            return "OK"
        case "aria2.remove", "aria2.forceRemove":
            throw RPCFault(1, "Active Download not found for GID#\(gid)")
        case "aria2.pause", "aria2.forcePause":
            throw RPCFault(1, "GID#\(gid) cannot be paused now")
        case "aria2.unpause":
            throw RPCFault(1, "GID#\(gid) cannot be unpaused now")
        default:
            throw RPCFault(1, "No active download for GID#\(gid)")
        }
    }

    static let earlierMethods: Set<String> = [
        "aria2.tellStatus", "aria2.getFiles", "aria2.getUris", "aria2.getOption", "aria2.removeDownloadResult",
        "aria2.remove", "aria2.forceRemove", "aria2.pause", "aria2.forcePause", "aria2.unpause", "aria2.getServers",
        "aria2.getPeers",
    ]
}

extension JSON {
    /// This object with `key` set to `value` (added at the end when absent).
    func setting(_ key: String, _ value: JSON) -> JSON {
        guard case .object(var pairs) = self else { return self }
        if let i = pairs.firstIndex(where: { $0.0 == key }) { pairs[i].1 = value } else { pairs.append((key, value)) }
        return .object(pairs)
    }

    /// This object with only `keys`.
    func only(_ keys: Set<String>) -> JSON {
        guard case .object(let pairs) = self else { return self }
        return .object(pairs.filter { keys.contains($0.0) })
    }
}
