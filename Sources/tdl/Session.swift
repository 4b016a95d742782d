import Foundation
import TDLCore
import TDLSession
import TDLStore
import TDLTransfer

/// Opens one session: its database, its lock, a manager and (when downloading) the engine.
final class Session {
    let home: String
    let name: String
    let manager: DownloadManager
    let lock: SessionLock?
    /// Something the user must hear about (a damaged database moved aside).
    var notice: String?
    /// How many downloads were interrupted last time and continue now.
    var interrupted = 0

    /// Requests from other tdl commands, when this one runs the session.
    let control: ControlServer?
    /// The session file, nil for a command that only reads a home without one.
    private let database: SQLiteSessionStore?
    /// The manager holds the tasks `onlyTasks` named, not the whole session.
    let loadedRowsOnly: Bool
    /// The session's --on-complete / --on-error commands, when this one downloads.
    private(set) var hooks: HookRunner?

    /// `downloading` opens the engine (with `transfer` settings), takes the session's lock and
    /// listens for other tdl commands; `locking` takes the lock alone (to change a session
    /// nobody runs). With neither, the command only reads: it creates nothing (no home, no
    /// database, no lock file) and moves nothing aside.
    /// `runOnly` names the only downloads that may start (see `DownloadManager.runOnly`),
    /// also among those a launch would resume. `onlyTasks` loads those tasks alone (see
    /// `TaskRowStore`), where the session allows it, for a command that changes nothing else.
    /// `config` (the user's config file, read once by the command) gives
    /// a downloading run its queues, rate schedule and categories.
    init(options: GlobalOptions, folder: String? = nil, config: ConfigFile? = nil, downloading: Bool, locking: Bool = false, restoring: Bool = true,
         transfer: EngineSettings = .fromEnvironment(), resumeInterrupted: Bool? = nil, runOnly: [String]? = nil,
         onlyTasks: [String]? = nil, keepingSortNames: Bool = true, arrangedFor: ((Arrangement) -> Arrangement)? = nil,
         startingDownloads: Bool = true) throws {
        home = Paths.home(options.home)
        name = options.session
        let readOnly = !downloading && !locking
        if readOnly {
            lock = nil
            control = nil
        } else {
            try Self.makeHome(home)
            let lock = try Self.lock(home: home, session: name)
            self.lock = lock
            // With the lock held, a socket file left by a killed tdl is stale: replace it.
            control = downloading ? try ControlServer(home: home, session: name) : nil
            if !downloading { unlink(ControlSocket.path(home: home, session: name)) }
        }
        let path = (home as NSString).appendingPathComponent("session.sqlite")
        // nil for a command that only reads a home without a database: nothing is created for it.
        let store: SQLiteSessionStore?
        do {
            store = readOnly && !FileManager.default.fileExists(atPath: path)
                ? nil
                : try SQLiteSessionStore(path: path, session: name, soleWriter: lock != nil, readOnly: readOnly)
        } catch let error as StoreError {
            throw CLIError.store(error.description)
        }
        database = store
        let engine: TransferEngine? = downloading ? CurlEngine(settings: transfer) : nil
        let rows = store.flatMap { store in onlyTasks.flatMap { TaskRowStore(store, urls: $0) } }
        loadedRowsOnly = rows != nil
        manager = DownloadManager(identifier: name, defaultDirectory: Paths.downloads(folder), engine: engine, store: rows ?? store)
        manager.fileDigest = FileDigest.hex(ofFile:algorithm:)
        manager.reservedFolder = ReservedFolder(home)
        if let runOnly { manager.runOnly(runOnly) }
        if downloading {
            UserConfig.apply(config, to: manager)
            // The file's interrupted= for this run, unless the command line gave one (saved).
            if resumeInterrupted == nil {
                manager.useRunResumeInterrupted(config?.value("interrupted").map { $0.value == "resume" })
            }
        }
        do {
            interrupted = try manager.load(restoring: restoring, resumeInterrupted: resumeInterrupted, arrangedFor: arrangedFor,
                                           keepingSortNames: keepingSortNames, startingDownloads: startingDownloads)
        } catch let error as StoreError {
            throw CLIError.store(error.description)
        } catch {
            throw CLIError.store("cannot read the session: \(error)")
        }
        notice = store?.recoveryNotice?.description  // set on open, or when the load found damage
        if downloading {
            hooks = HookRunner(manager: manager)
            hooks?.runOnComplete = config?.value("on-complete")?.value
            hooks?.runOnError = config?.value("on-error")?.value
        }
        // -d names the session's download folder from now on; the file's dir= this run's.
        if let folder = folder.map(Paths.absolute) {
            if let problem = manager.folderProblem(folder) { throw CLIError.badDirectory(folder, problem) }
            manager.setDownloadDirectory(folder)
        } else if downloading, let fileFolder = config?.value("dir")?.value {
            if let problem = manager.folderProblem(fileFolder) { throw CLIError.badDirectory(fileFolder, problem) }
            manager.useRunDirectory(fileFolder)
        }
    }

    /// The session a full-screen list or `tdl serve` runs, with a folder it can write to; a
    /// command that cannot open it ends with the reason. Without `startingDownloads` the caller
    /// starts them (`DownloadManager.startLoadedDownloads`).
    static func running(_ global: GlobalOptions, folder: FolderOption, config: ConfigFile?, transfer: TransferOptions,
                        launch: LaunchOptions, startingDownloads: Bool = true) -> Session {
        do {
            let session = try Session(options: global, folder: folder.dir, config: config, downloading: true, transfer: transfer.engineSettings,
                                      resumeInterrupted: launch.resumeInterrupted, startingDownloads: startingDownloads)
            try Paths.ensureWritableDirectory(session.downloadDirectory)
            return session
        } catch {
            fail(with: error)
        }
    }

    /// Creates the home owner-only. A folder that exists keeps its mode: it may be shared on
    /// purpose (a 1777 folder given with --home).
    static func makeHome(_ home: String) throws {
        var info = stat()
        if stat(home, &info) == 0 {
            guard info.st_mode & S_IFMT == S_IFDIR else { throw CLIError.store("cannot use the tdl home \(home): it is a file, not a folder") }
            return
        }
        // mkdir, not Foundation's createDirectory with attributes: that one cost a fifth of a
        // millisecond of a first run's start.
        if let failure = Paths.makeFolder(home, mode: 0o700) {
            let which = failure.folder == home ? "" : " (making \(failure.folder))"
            throw CLIError.store("cannot create the tdl home \(home)\(which): \(String(cString: strerror(failure.errno)))")
        }
    }

    /// Takes the session's lock. Another command that changes the saved session (`tdl add` of
    /// many URLs, `tdl pause`) holds it briefly: it is waited for a few seconds, with a word
    /// after the first. A tdl that runs the session holds it until it quits: not waited for.
    static func lock(home: String, session: String) throws -> SessionLock {
        let lock = try SessionLock(home: home, session: session)
        let start = Date()
        var told = false
        while try !lock.tryLock() {
            let waited = Date().timeIntervalSince(start)
            if waited >= 5 || ControlClient.isListening(home: home, session: session) { throw CLIError.sessionInUse(session) }
            if waited >= 1 && !told {
                told = true
                warn("waiting for another tdl\(lock.holder.map { " (pid \($0))" } ?? "") that is changing the session \"\(session)\"")
            }
            usleep(50_000)
        }
        return lock
    }

    /// Gives a command that adds without downloading the config file's queues for this run
    /// alone: an add may name them (a queue no one defined is refused).
    func knowConfigQueues() {
        guard let file = (try? UserConfig.load()) ?? nil, !file.queues.isEmpty else { return }
        manager.useRunQueues(file.queues, rateSchedule: nil)
    }

    /// Another manager of this session holding only the tasks of `urls` (see `TaskRowStore`),
    /// loaded as a command that changes the saved session loads them: an add of more URLs than
    /// memory holds at once takes one for each part.
    func manager(ofRows urls: [String]) throws -> DownloadManager {
        precondition(lock != nil && control == nil, "rows are changed only by a command holding the lock")
        guard let database, let rows = TaskRowStore(database, urls: urls) else {
            throw CLIError.store("cannot read the session's tasks by their rows")
        }
        let rowsManager = DownloadManager(identifier: name, defaultDirectory: manager.defaultDirectory, engine: nil, store: rows)
        rowsManager.fileDigest = manager.fileDigest
        if !manager.queues.isEmpty { rowsManager.useRunQueues(manager.queues, rateSchedule: nil) }  // an add names them
        do {
            _ = try rowsManager.load(restoring: false, resumeInterrupted: nil, arrangedFor: nil, keepingSortNames: true)
        } catch let error as StoreError {
            throw CLIError.store(error.description)
        } catch {
            throw CLIError.store("cannot read the session: \(error)")
        }
        return rowsManager
    }

    /// What the last recovery of the session file said (a damaged file moved aside), on open or
    /// by a later read of rows.
    var recovery: String? { database?.recoveryNotice?.description }

    /// Whether the session has no task, in its list or its trash (true without a session file).
    func holdsNoTask() throws -> Bool {
        do {
            return try database?.holdsNoTask() ?? true
        } catch let error as StoreError {
            throw CLIError.store(error.description)
        }
    }

    /// The folder new downloads go to.
    var downloadDirectory: String { manager.downloadDirectory }

    /// Leaves the session to the process's exit, a million tasks unfreed, but closes its file
    /// first: the close folds the WAL into the file and syncs it, as a freed session's would.
    func endWithoutFreeing() {
        try? database?.close()
        _ = Unmanaged.passRetained(self)
    }
}
