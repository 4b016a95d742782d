import Foundation
import TDLCore
import TDLStore
import XCTest
#if canImport(Glibc)
import Glibc
#endif

// MARK: - Running and shrinking

enum LifecycleRunner {
    /// Runs the actions in a fresh world; the first violation of an enabled rule, if any.
    static func run(_ actions: [LifecycleAction], enabled: Set<LifecycleRule>, verbose: Bool = false) -> LifecycleFailure? {
        let world = LifecycleWorld()
        do { try world.launch() } catch { return LifecycleFailure(step: -1, rule: .storeMatchesMemory, message: "launch: \(error)") }
        var firstFailure: LifecycleFailure?
        for (index, action) in actions.enumerated() {
            world.found = []
            perform(action, in: world)
            check(world)
            if verbose {
                print("step \(index): \(action) →", world.tasks.map { "\(world.label($0.url)) \($0.state.rawValue)\($0.deletedAt != nil ? " (trash)" : "") \($0.received)/\($0.size.map(String.init) ?? "?") \($0.fileName)" }.joined(separator: " | "))
                print("   files:", world.files.map(world.rel).joined(separator: ", "))
                for (rule, message) in world.found { print("   ✗ \(rule.rawValue): \(message)") }
            }
            if firstFailure == nil, let (rule, message) = world.found.first(where: { enabled.contains($0.0) }) {
                firstFailure = LifecycleFailure(step: index, rule: rule, message: message)
                // A replay shows every step; a search stops at the first failure.
                if !verbose { return firstFailure }
            }
        }
        return firstFailure
    }

    /// The shortest sequence found that still breaks the same rule: cut after the failing
    /// step, then remove chunks of steps, halving the chunk while nothing can go.
    static func shrink(_ actions: [LifecycleAction], failure: LifecycleFailure, seconds: Double = 60) -> [LifecycleAction] {
        var current = Array(actions.prefix(failure.step + 1))
        let deadline = Date().addingTimeInterval(seconds)
        var chunk = max(1, current.count / 2)
        while chunk >= 1 && Date() < deadline {
            var start = 0
            var removed = false
            while start < current.count && Date() < deadline {
                var candidate = current
                candidate.removeSubrange(start ..< min(start + chunk, current.count))
                if let again = run(candidate, enabled: [failure.rule]), again.rule == failure.rule {
                    current = Array(candidate.prefix(again.step + 1))
                    removed = true
                } else {
                    start += chunk
                }
            }
            if !removed { chunk /= 2 }
        }
        return current
    }

    static func perform(_ action: LifecycleAction, in world: LifecycleWorld) {
        let manager = world.manager!
        world.engine.started = []
        let before = Dictionary(uniqueKeysWithValues: world.tasks.map { ($0.url, $0) })
        var explicitlyResumed: String?
        func listed(_ url: String) -> Bool { manager.task(url).map { $0.deletedAt == nil } ?? false }
        func trashed(_ url: String) -> Bool { manager.task(url)?.deletedAt != nil }
        let pool = LifecycleAction.pool
        switch action {
        case .turns(let n):
            for _ in 0..<n {
                world.now += 0.04
                _ = manager.runOnce(timeoutMs: 0)
            }
        case .add(let i), .addNamed(let i, _):
            let url = pool[i]
            var name: String?
            if case .addNamed(_, let v) = action { name = LifecycleAction.chosenNames[v] }
            let pre = manager.task(url)
            manager.add([url], options: DownloadOptions(fileName: name))
            guard let pre, let post = manager.task(url) else { break }
            // Judged at the file's path after the add: a name given with it moves the file there.
            if pre.state == .finished, world.fileSize(post.filePath) != post.size, !post.state.isActive {
                world.note(.addAgainRedownloads, "\(world.label(url)) finished, its file \(world.rel(pre.filePath)) is \(world.fileSize(pre.filePath).map { "\($0) bytes, not \(pre.size ?? -1)" } ?? "gone"); after add it is \(post.state.rawValue)")
            }
            if pre.deletedAt != nil, post.deletedAt != nil {
                world.note(.addAgainLeavesTrash, "\(world.label(url)) (\(pre.state.rawValue)) is still in the trash after add")
            }
        case .pause(let i):
            if listed(pool[i]) { manager.pauseTasks([pool[i]]) }
        case .resume(let i):
            if listed(pool[i]) {
                explicitlyResumed = pool[i]
                manager.resumeTasks([pool[i]], queueIfFull: true)
            }
        case .stop(let i):
            if listed(pool[i]) { manager.stopTasks([pool[i]]) }
        case .restart(let i):
            if listed(pool[i]) {
                if !(manager.task(pool[i])?.state.isActive ?? true) { world.tampered[pool[i]] = nil }
                manager.restartTasks([pool[i]])
            }
        case .trash(let i):
            if listed(pool[i]) {
                world.stateAtTrash[pool[i]] = manager.task(pool[i])?.state
                manager.deleteTasks([pool[i]])
            }
        case .restore(let i):
            let url = pool[i]
            guard trashed(url) else { break }
            manager.restoreToDeleteTasks([url])
            if let was = world.stateAtTrash[url], let now = manager.task(url)?.state {
                // A download may end while in the trash: finished, or failed when its part file
                // was deleted behind tdl's back.
                let ok = was.isActive ? (now.isActive || now == .finished || now == .failed && world.tampered[url] != nil) : now == was
                if !ok { world.note(.trashKeepsState, "\(world.label(url)) was \(was.rawValue) when trashed, is \(now.rawValue) after restore") }
            }
        case .purge(let i):
            if trashed(pool[i]) {
                world.tampered[pool[i]] = nil
                // A finished file stays on every purge path: the user's from now on.
                if let task = manager.task(pool[i]), task.state == .finished { world.foreign.insert(task.filePath) }
                manager.cleanupToDeleteTasks([pool[i]])
            }
        case .limitUp:
            manager.maxDownloadCount = min(6, manager.maxDownloadCount + 1)
        case .limitDown:
            manager.maxDownloadCount = max(1, manager.maxDownloadCount - 1)
            for (url, task) in before where task.state == .downloading && task.deletedAt == nil {
                guard let now = manager.task(url)?.state, now != .downloading, now != .finished, now != .failed else { continue }
                if now != .waiting {
                    world.note(.limitDisplacedWait, "lowering the limit to \(manager.maxDownloadCount) left \(world.label(url)) \(now.rawValue)")
                }
            }
        case .deleteFile(let n):
            let open = Set(world.engine.transfers.values.filter { $0.fd >= 0 }.map { FileWritingEngine.partPath($0.job.directory, $0.fileName) })
            let files = world.files.filter { !open.contains($0) }
            guard !files.isEmpty else { break }
            let path = files[n % files.count]
            unlink(path)
            world.foreign.remove(path)
            if let owner = ownerOfFile(path, world) { world.tampered[owner] = (path, path.hasSuffix(".part")) }
        case .deleteRunningPart(let n):
            let open = world.engine.transfers.values.filter { $0.fd >= 0 }.map { FileWritingEngine.partPath($0.job.directory, $0.fileName) }.sorted()
            guard !open.isEmpty else { break }
            let path = open[n % open.count]
            unlink(path)
            if let owner = ownerOfFile(path, world) { world.tampered[owner] = (path, true) }
        case .growFile(let n):
            let finished = world.tasks.filter { $0.state == .finished && world.fileSize($0.filePath) != nil }
            guard !finished.isEmpty else { break }
            let task = finished[n % finished.count]
            if let handle = FileHandle(forWritingAtPath: task.filePath) {
                handle.seekToEndOfFile()
                handle.write(Data([0x2A]))
                handle.closeFile()
            }
            world.tampered[task.url] = (task.filePath, false)
        case .fail(let i):
            world.engine.failNext.insert(pool[i])
        case .quit:
            manager.shutdown()
            // Active after the transfers stopped (a finish that failed meanwhile is not the relaunch's doing).
            let active = Set(world.tasks.filter { $0.state.isActive && world.tampered[$0.url] == nil }.map(\.url))
            if let reader = world.readBack() {
                let downloading = reader.allTasksSet.sorted().filter { reader.task($0)?.state == .downloading }
                if !downloading.isEmpty {
                    world.note(.noDownloadingAfterQuit, "after a clean quit the store says downloading for \(downloading.map(world.label))")
                }
            }
            world.crash()  // the process ends; shutdown already ran
            relaunch(world)
            let interrupted = world.lastLaunchResult
            if interrupted != 0 {
                world.note(.cleanQuitNotInterrupted, "relaunch after a clean quit reported \(interrupted) interrupted download(s)")
            }
            for url in active.sorted() {
                guard let state = world.manager.task(url)?.state, !state.isActive, state != .finished else { continue }
                world.note(.cleanQuitResumes, "\(world.label(url)) was active at the quit, is \(state.rawValue) after relaunch")
            }
        case .crash:
            world.crash()
            world.ranBeforeRelaunch = Set(world.storedDownloading())
            relaunch(world)
            // What the crash brought back that needs files already deleted.
            for task in world.tasks where world.tampered[task.url] == nil {
                let was = before[task.url]
                if task.state == .finished, world.fileSize(task.filePath) == nil, was.map({ $0.state != .finished }) ?? true {
                    world.note(.deletionsAreDurable, "\(world.label(task.url)) is finished again after the crash (it was \(was.map { $0.state.rawValue } ?? "deleted for good")) but \(world.rel(task.filePath)) is gone")
                    world.tampered[task.url] = (task.filePath, false)
                } else if task.state != .finished, task.received > 0, world.fileSize(task.partPath) == nil, (was?.received ?? 0) == 0 {
                    world.note(.deletionsAreDurable, "\(world.label(task.url)) has \(task.received) durable bytes again after the crash (it had \(was.map { "\($0.received)" } ?? "no record")) but \(world.rel(task.partPath)) is gone")
                    world.tampered[task.url] = (task.partPath, true)
                }
            }
        case .checkStore:
            world.compareWithStore()
        }
        world.now += 0.01
        world.stepStarted = world.engine.started
        world.stepExplicitResume = explicitlyResumed
        world.stepContinued = Set(before.values.filter { $0.state == .downloading && world.manager?.task($0.url)?.state == .downloading }.map(\.url))
        if case .quit = action {
            world.ranBeforeRelaunch = Set(before.values.filter { $0.state == .downloading }.map(\.url))
        } else if case .crash = action {
            // After a kill, what the store last said was downloading goes on first.
        } else {
            world.ranBeforeRelaunch = []
        }
        world.stepBefore = before
        if case .quit = action { world.compareWithStore() }
        if case .crash = action { world.compareWithStore() }
    }

    static func relaunch(_ world: LifecycleWorld) {
        do {
            world.lastLaunchResult = try world.launch()
        } catch {
            world.note(.storeMatchesMemory, "relaunch failed: \(error)")
            world.lastLaunchResult = 0
        }
    }

    static func ownerOfFile(_ path: String, _ world: LifecycleWorld) -> String? {
        let tasks = world.tasks
        if path.hasSuffix(".part") {
            return tasks.first { $0.state != .finished && $0.finalURL != nil && $0.partPath == path }?.url
        }
        return tasks.first { $0.state == .finished && $0.filePath == path }?.url
    }

    /// The invariants that hold after every step.
    static func check(_ world: LifecycleWorld) {
        let manager = world.manager!, engine = world.engine!
        let tasks = world.tasks
        let byURL = Dictionary(uniqueKeysWithValues: tasks.map { ($0.url, $0) })
        // What the test did behind tdl's back stops mattering once the task moved on.
        for (url, mark) in world.tampered {
            guard let task = byURL[url] else { world.tampered[url] = nil; continue }
            if !mark.isPart && task.state != .finished {
                world.tampered[url] = nil
                if LifecycleWorld.exists(mark.path) { world.foreign.insert(mark.path) }
            }
        }
        world.foreign = world.foreign.filter(LifecycleWorld.exists)

        // Files.
        var owners: [String: [String]] = [:]
        for task in tasks {
            if task.state == .finished {
                if world.tampered[task.url] == nil {
                    let size = world.fileSize(task.filePath)
                    if size != task.size {
                        world.note(.finishedFileInPlace, "\(world.label(task.url)) is finished but \(world.rel(task.filePath)) is \(size.map { "\($0) bytes, not \(task.size ?? -1)" } ?? "missing")")
                    }
                    owners[task.filePath, default: []].append(task.url)
                }
            } else if task.finalURL != nil {
                owners[task.directory + "/" + task.fileName, default: []].append(task.url)
            }
            if task.state != .finished, task.received > 0, world.tampered[task.url] == nil {
                let size = world.fileSize(task.partPath) ?? -1
                if size < task.received {
                    world.note(.progressHasPart, "\(world.label(task.url)) (\(task.state.rawValue)) has \(task.received) durable bytes but \(world.rel(task.partPath)) \(size < 0 ? "is missing" : "holds \(size)")")
                }
            }
        }
        for (path, urls) in owners.sorted(by: { $0.key < $1.key }) where urls.count > 1 {
            world.note(.oneOwnerPerPath, "\(world.rel(path)) is claimed by \(urls.map { "\(world.label($0)) (\(byURL[$0]!.state.rawValue))" }.joined(separator: " and "))")
        }
        for path in world.files {
            if path.hasSuffix(".part") {
                let owned = tasks.contains { $0.state != .finished && $0.finalURL != nil && $0.partPath == path }
                if !owned {
                    let creator = world.partCreator[path].map { ", made by \(world.label($0)) (\(byURL[$0].map { "\($0.state.rawValue), now named \($0.fileName)" } ?? "gone"))" } ?? ""
                    world.note(.noOrphanPart, "\(world.rel(path)) belongs to no unfinished task\(creator)")
                }
            } else if !world.foreign.contains(path) && !tasks.contains(where: { $0.state == .finished && $0.filePath == path }) {
                world.note(.noStrayFile, "\(world.rel(path)) belongs to no finished task")
            }
        }

        var counted: [TaskState: Int] = [:]
        for task in tasks where task.deletedAt == nil { counted[task.state, default: 0] += 1 }
        if manager.counts != counted {
            world.note(.countsAgree, "the header counts \(manager.counts) but the list holds \(counted)")
        }

        // The scheduler.
        let limit = manager.maxDownloadCount
        let inSlots = tasks.filter { $0.state == .downloading && !engine.isFinishing($0.url) }
        let waiting = tasks.filter { $0.state == .waiting && $0.deletedAt == nil }
        if limit > 0 && inSlots.count > limit {
            world.note(.limitRespected, "\(inSlots.count) downloading with the limit at \(limit): \(inSlots.map { world.label($0.url) })")
        }
        if (limit <= 0 || inSlots.count < limit), let first = waiting.first {
            world.note(.freeSlotIsUsed, "\(world.label(first.url)) waits while \(inSlots.count) of \(limit) slots are taken")
        }
        for url in world.stepStarted where url != world.stepExplicitResume && !world.ranBeforeRelaunch.contains(url)
            && !world.stepContinued.contains(url) {
            guard let s = byURL[url] else { continue }
            if let older = waiting.first(where: { ($0.addTime, $0.url) < (s.addTime, s.url) }) {
                world.note(.startOrderIsAddOrder, "\(world.label(url)) started while the older \(world.label(older.url)) still waits")
            }
        }
        let downloading = Set(tasks.filter { $0.state == .downloading }.map(\.url))
        let running = Set(engine.transfers.keys)
        let runningNotFinishing = Set(engine.transfers.filter { !$0.value.finishing }.map(\.key))
        if !downloading.isSubset(of: running) || !runningNotFinishing.isSubset(of: downloading) {
            world.note(.engineAgrees, "downloading \(downloading.sorted().map(world.label)), engine transfers \(running.sorted().map(world.label))")
        }
    }
}
