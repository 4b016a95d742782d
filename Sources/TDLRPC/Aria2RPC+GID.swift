import Foundation
import TDLCore

/// GID parameters, read as aria2 reads them (`GroupId::expandUnique`): 16 hex digits, or a
/// prefix only one GID tdl answers has — a download's current GID or an earlier attempt's
/// (`EarlierAttempts`), as aria2 expands a prefix over every download and result it keeps.
extension Aria2RPC {
    /// The task a GID parameter names (its current GID).
    func task(_ p: Params, at index: Int = 0) throws -> (gid: String, url: String) {
        guard let text = p.string(index) else { throw p.wrong(index) }
        let number = try expandGID(text)
        if let url = statusBoard.url(gid: number), manager.task(url) != nil { return (Aria2Terms.gidText(number), url) }
        throw RPCFault(1, "GID \(text) is not found")
    }

    /// The GID `text` names. Throws aria2's error for an invalid, unknown or ambiguous one; a
    /// whole GID is returned as it is (the caller says when nothing has it).
    func expandGID(_ text: String) throws -> UInt64 {
        guard (1...16).contains(text.utf8.count), let prefix = UInt64(text, radix: 16), !text.hasPrefix("+"),
              !text.hasPrefix("-") else { throw RPCFault(1, "Invalid GID \(text)") }
        // Tasks added earlier in this call (a multicall's addUri) are looked up too.
        publisher.fillIfNeeded()
        publisher.publishChanges()
        let digits = text.utf8.count
        if digits == 16 { return prefix }
        var matches = Set(statusBoard.gids(withPrefix: prefix, digits: digits))
        let shift = UInt64(64 - 4 * digits)
        // Earlier attempts are few (none in most sessions): their table is the stopped queue's.
        matches.formUnion(currentPartition().earlierURLs.keys.lazy.filter { $0 >> shift == prefix }.prefix(2))
        guard let first = matches.first else { throw RPCFault(1, "GID \(text) is not found") }
        guard matches.count == 1 else { throw RPCFault(1, "GID \(text) is not unique") }
        return first
    }
}
