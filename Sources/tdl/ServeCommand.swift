import ArgumentParser
import Foundation
import TDLCore
import TDLRPC
import TDLSession

/// `tdl serve`: the session without a screen, answering aria2's JSON-RPC (aria2p, AriaNg…)
/// until `aria2.shutdown`, SIGTERM or SIGINT; one line per event on stderr.
struct ServeCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "serve",
        abstract: "Run the session without a screen, answering aria2's JSON-RPC at http://127.0.0.1:6800/jsonrpc.",
        discussion: """
            Front ends made for aria2 (aria2p, AriaNg, …) add, pause and follow downloads; the \
            control socket and every other tdl command keep working beside it. Runs until \
            aria2.shutdown, SIGTERM or SIGINT, then saves the session and exits 0.
            """
    )

    @OptionGroup var global: GlobalOptions
    @OptionGroup var folder: FolderOption
    @OptionGroup var rpcOptions: RPCOptions
    @OptionGroup var hookOptions: HookOptions
    @OptionGroup var schedule: ScheduleOptions
    @OptionGroup var launch: LaunchOptions
    @OptionGroup var transfer: TransferOptions

    @Option(help: ArgumentHelp("Total download rate cap for this run, e.g. 500K or 2M (aria2's max-overall-download-limit).", valueName: "rate"))
    var limitRate: String?

    func validate() throws {
        try RunRateLimit.validate(limitRate)
    }

    mutating func run() throws {
        // The config file fills what the command line left unset.
        let config = UserConfig.loadOrFail()
        transfer.fill(from: config)
        let session = Session.running(global, folder: folder, config: config, transfer: transfer, launch: launch)
        let manager = session.manager
        hookOptions.save(into: session)
        schedule.save(into: session.manager, config: config)
        // This run's cap, never saved, as `tdl get --limit-rate`; else the config file's.
        let capped = limitRate.map { RunRateLimit.use($0, in: manager) } ?? false
        if !capped { UserConfig.useRateLimit(of: config, in: manager) }
        if let notice = session.notice { warn(notice) }
        // Before the server: its handlers are in place for the first request's turn.
        let loop = SessionLoop(manager: manager, control: session.control)
        let started: RPCOptions.Started
        do {
            started = try rpcOptions.startServer(for: loop.saver!, home: session.home, config: config)
        } catch {
            manager.shutdown()
            session.control?.shutDown()
            fail(with: error)
        }
        let server = started.server
        let address = server.host == "0.0.0.0" ? "every address, port \(server.port)" : "http://127.0.0.1:\(server.port)/jsonrpc"
        warn("serving aria2 JSON-RPC on \(address) (session \"\(global.session)\", downloads to \(session.downloadDirectory))")
        for notice in started.notices { warn(notice) }
        server.onNotification = { notification in
            var line = "\(Self.word(notification.status)) \(ScreenSafe.url(notification.url)) (gid \(notification.gid))"
            if notification.status == .error, let reason = manager.task(notification.url)?.failReason {
                line += ": \(reason.message)"
            }
            warn(line)
        }
        var shownSaveError: String?
        loop.run(while: { server.rpc.shutdownRequested == nil }, watching: { server.watched }) { turn in
            server.serve()
            loop.saver?.changed()  // what the calls changed is written at the end of this turn
            for note in turn.notes + server.takeProblems() + (session.hooks?.takeProblems() ?? []) { warn(note) }
            if manager.lastError != shownSaveError {
                if shownSaveError != nil && manager.lastError == nil { warn("the session is saved again; downloads go on") }
                shownSaveError = manager.lastError
                if let shownSaveError { warn(shownSaveError) }
            }
        }
        // Calls already made are answered (a shutdown's "OK" too) before the server goes.
        server.stop()
        manager.shutdown()
        session.control?.shutDown()
        let why = loop.interruption.map { $0 == SIGTERM ? "SIGTERM" : $0 == SIGINT ? "SIGINT" : "signal \($0)" }
            ?? (server.rpc.shutdownRequested == true ? "aria2.forceShutdown" : "aria2.shutdown")
        if let saveError = manager.lastError {
            warn(saveError)
            Foundation.exit(ExitStatus.session)
        }
        warn("stopped (\(why)); the session is saved")
    }

    static func word(_ status: Aria2Terms.Status) -> String {
        switch status {
        case .active: return "started"
        case .paused: return "paused"
        case .complete: return "finished"
        case .error: return "failed"
        case .removed: return "moved to the trash"
        case .waiting: return "waiting"
        }
    }
}
