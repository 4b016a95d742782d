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
    /// The session's --on-complete / --on-error commands, when this one downloads.
    private(set) var hooks: HookRunner?

    /// `downloading` opens the engine (with `transfer` settings), takes the session's lock and
    /// listens for other tdl commands; `locking` takes the lock alone (to change a session
    /// nobody runs).
    init(options: GlobalOptions, downloading: Bool, locking: Bool = false, restoring: Bool = true,
         transfer: EngineSettings = .fromEnvironment(), resumeInterrupted: Bool? = nil) throws {
        home = Paths.home(options.home)
        name = options.session
        do {
            try FileManager.default.createDirectory(atPath: home, withIntermediateDirectories: true)
        } catch {
            throw CLIError.store("cannot create the tdl home \(home): \(error.localizedDescription)")
        }
        chmod(home, 0o700)
        if downloading || locking {
            guard let lock = try SessionLock(home: home, session: name) else { throw CLIError.sessionInUse(name) }
            self.lock = lock
            // With the lock held, a socket file left by a killed tdl is stale: replace it.
            control = downloading ? try ControlServer(home: home, session: name) : nil
            if !downloading { unlink(ControlSocket.path(home: home, session: name)) }
        } else {
            lock = nil
            control = nil
        }
        let store: SQLiteSessionStore
        do {
            store = try SQLiteSessionStore(path: (home as NSString).appendingPathComponent("session.sqlite"), session: name,
                                           soleWriter: lock != nil)
        } catch let error as StoreError {
            throw CLIError.store(error.description)
        }
        let engine: TransferEngine? = downloading ? CurlEngine(settings: transfer) : nil
        manager = DownloadManager(identifier: name, defaultDirectory: Paths.downloads(options.dir), engine: engine, store: store)
        manager.fileDigest = FileDigest.hex(ofFile:algorithm:)
        do {
            interrupted = try manager.load(restoring: restoring, resumeInterrupted: resumeInterrupted)
        } catch {
            throw CLIError.store("cannot read the session: \(error)")
        }
        notice = store.recoveryNotice?.description  // set on open, or when the load found damage
        if downloading { hooks = HookRunner(manager: manager) }
        // -d names the session's download folder from now on.
        if let dir = options.dir { manager.setDownloadDirectory(Paths.absolute(dir)) }
    }

    /// The folder new downloads go to.
    var downloadDirectory: String { manager.settings.downloadDirectory ?? manager.defaultDirectory }
}
