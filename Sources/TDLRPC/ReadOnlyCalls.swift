import Foundation
import TDLCore

/// The calls that only read — `tellStatus`, `getFiles`, `getUris`, `getServers`, `tellActive`,
/// `getGlobalStat` — answered on the server's thread from the published `StatusBoard`, so a
/// client polling a download does not wait for the loop's turn. Only answers that succeed
/// are made here: anything else (another method, a bad parameter or token, a GID the board
/// does not have, a board not filled yet) returns nil and goes to the loop, which gives
/// aria2's error.
struct ReadOnlyCalls: Sendable {
    let board: StatusBoard

    static let methods = Aria2Method.readOnlyNames

    /// The answer to a request (a call, or a batch of calls), or nil when the loop must answer.
    func answer(request: JSON) -> JSON? {
        if case .array(let calls) = request {
            guard !calls.isEmpty else { return nil }
            var answers: [JSON] = []
            answers.reserveCapacity(calls.count)
            for call in calls {
                guard let answer = answer(call: call) else { return nil }
                answers.append(answer)
            }
            return .array(answers)
        }
        return answer(call: request)
    }

    func answer(call request: JSON) -> JSON? {
        guard case .object = request, let method = request["method"]?.string, Self.methods.contains(method),
              board.isFilled else { return nil }
        var params: [JSON]
        switch request["params"] {
        case nil: params = []
        case .array(let list)?: params = list
        default: return nil
        }
        let token = params.first?.string.flatMap { $0.hasPrefix("token:") ? String($0.dropFirst(6)) : nil }
        if let secret = board.secret {
            guard let token, Aria2RPC.sameSecret(token, secret) else { return nil }
        }
        if token != nil { params.removeFirst() }
        guard let result = result(method, Params(params)) else { return nil }
        return ["id": request["id"] ?? .null, "jsonrpc": "2.0", "result": result]
    }

    private func result(_ method: String, _ p: Params) -> JSON? {
        switch method {
        case "aria2.getGlobalStat":
            return Aria2Structs.globalStat(board.currentTotals)
        case "aria2.tellActive":
            guard let keys = keys(p, at: 0) else { return nil }
            return .array(board.activeEntries().map {
                Aria2Structs.status(of: $0.task, activity: $0.activity, defaultConnections: $0.defaultConnections, keys: keys)
            })
        default:
            break
        }
        guard let gid = p.string(0).flatMap(Aria2Terms.gidNumber), let entry = board.entry(gid: gid) else { return nil }
        switch method {
        case "aria2.tellStatus":
            guard let keys = keys(p, at: 1) else { return nil }
            return Aria2Structs.status(of: entry.task, activity: entry.activity, defaultConnections: entry.defaultConnections, keys: keys)
        case "aria2.getFiles":
            return Aria2Structs.files(of: entry.task, activity: entry.activity, defaultConnections: entry.defaultConnections)
        case "aria2.getUris":
            // A stopped download's refusal is the loop's to say.
            guard !Aria2Terms.status(of: entry.task).isStopped else { return nil }
            return Aria2Structs.uris(of: entry.task)
        case "aria2.getServers":
            guard Aria2Terms.status(of: entry.task) == .active else { return nil }
            return Aria2Structs.servers(of: entry.task, speed: entry.activity?.speed ?? 0)
        default:
            return nil
        }
    }

    /// The `keys` filter: absent is every key (`.some(nil)`), not a list is nil (the loop refuses it).
    private func keys(_ p: Params, at index: Int) -> Set<String>?? {
        guard index < p.values.count else { return .some(nil) }
        guard let list = p.values[index].array else { return nil }
        return .some(Set(list.compactMap(\.string)))
    }
}
