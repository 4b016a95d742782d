import Foundation
import TDLCore

/// The methods that move downloads between aria2's queues: pause, unpause, remove, reorder.
extension Aria2RPC {
    func remove(_ p: Params) throws -> JSON {
        let (gid, url) = try task(p)
        // As aria2: only a download in a queue (active, waiting, paused) is removed; a stopped
        // one's result is removed with removeDownloadResult.
        let before = try status(url)
        guard [.active, .waiting, .paused].contains(before) else {
            throw RPCFault(1, "Active Download not found for GID#\(gid)")
        }
        if before != .active {
            // As aria2: only a running download stops as a removed one (onDownloadStop); one
            // taken out of the waiting queue (waiting or paused) just goes, with no result. It
            // goes to tdl's trash, as any removed one, its part file kept: marked first, so
            // nothing over RPC (the notifier included) sees it arrive there.
            manager.setMetaInfo("1", forKey: Aria2Terms.droppedKey, of: url)
            manager.deleteTasks([url])
            guard manager.task(url).map(Aria2Terms.isDropped) ?? false else {
                manager.setMetaInfo(nil, forKey: Aria2Terms.droppedKey, of: url)
                throw RPCFault(1, "GID#\(gid) cannot be removed now")
            }
            keptOptions[url] = nil
            partition = nil
            return .string(gid)
        }
        manager.deleteTasks([url])
        guard manager.task(url).map({ $0.deletedAt != nil }) ?? true else {
            throw RPCFault(1, "GID#\(gid) cannot be removed now: its file is being made durable")
        }
        return .string(gid)
    }

    func pause(_ p: Params) throws -> JSON {
        let (gid, url) = try task(p)
        let status = try self.status(url)
        guard status == .active || status == .waiting, !manager.pauseTasks([url]).isEmpty else {
            throw RPCFault(1, "GID#\(gid) cannot be paused now")
        }
        return .string(gid)
    }

    func pauseAll() -> JSON {
        manager.pauseAllTasks()
        return "OK"
    }

    func unpause(_ p: Params) throws -> JSON {
        let (gid, url) = try task(p)
        guard try status(url) == .paused else { throw RPCFault(1, "GID#\(gid) cannot be unpaused now") }
        manager.resumeTasks([url], queueIfFull: true)
        return .string(gid)
    }

    func unpauseAll() -> JSON {
        // In queue order: the oldest gets the free slot.
        let paused = currentPartition().waiting.filter { manager.task($0).map(Aria2Terms.status) == .paused }
        manager.resumeTasks(paused, queueIfFull: true)
        return "OK"
    }

    func servers(_ p: Params) throws -> JSON {
        let (gid, url) = try task(p)
        guard try status(url) == .active, let task = manager.task(url) else {
            throw RPCFault(1, "No active download for GID#\(gid)")
        }
        return Aria2Structs.servers(of: task, speed: manager.activity[url]?.speed ?? 0)
    }

    func removeDownloadResult(_ p: Params) throws -> JSON {
        let (gid, url) = try task(p)
        guard [.complete, .error, .removed].contains(try status(url)) else {
            throw RPCFault(1, "Could not remove download result of GID#\(gid)")
        }
        forget([url])
        return "OK"
    }

    /// Moves a download in the waiting queue (waiting and paused, in start order) as aria2
    /// does: to `pos` from the start, from where it is, or from the end, kept inside the
    /// queue; answers where it landed. Waiting downloads start in the new order.
    func changePosition(_ p: Params) throws -> JSON {
        let (gid, url) = try task(p)
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
}
