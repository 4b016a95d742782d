import ArgumentParser
import Foundation
import TDLCore
import TDLRPC
import TDLSession
import TDLTerminal

struct UICommand: ParsableCommand {
    static let configuration = CommandConfiguration(commandName: "ui", abstract: "Open the full-screen list (the default).")

    @OptionGroup var global: GlobalOptions
    @OptionGroup var folder: FolderOption
    @OptionGroup var hookOptions: HookOptions
    @OptionGroup var schedule: ScheduleOptions
    @OptionGroup var launch: LaunchOptions
    @OptionGroup var transfer: TransferOptions
    @Flag(help: "Also answer aria2's JSON-RPC, as tdl serve does.") var rpc = false
    @OptionGroup var rpcOptions: RPCOptions

    mutating func run() throws {
        // The config file fills what the command line left unset.
        let config = UserConfig.loadOrFail()
        transfer.fill(from: config)
        // Before anything starts: a terminal that cannot show the list gets words, not garbage.
        if EnvironmentVariable.value("TDL_SCRIPT") == nil, let problem = TerminalApp.unusableTerminal() {
            warn(problem)
            Foundation.exit(ExitStatus.badInput)
        }
        // The list shows before downloads start (see `TerminalApp.run`).
        let session = Session.running(global, folder: folder, config: config, transfer: transfer, launch: launch,
                                      startingDownloads: false)
        hookOptions.save(into: session)
        schedule.save(into: session.manager, config: config)
        UserConfig.useRateLimit(of: config, in: session.manager)
        session.hooks?.silenceOutput = true
        // Made before the list starts ncurses: finding handlers for SIGINT and SIGTERM in
        // place, ncurses installs none of its own (which would end the process unsaved).
        let loop = SessionLoop(manager: session.manager, control: session.control)
        let rpcStarted: RPCOptions.Started?
        do {
            rpcStarted = rpc ? try rpcOptions.startServer(for: loop.saver!, home: session.home, config: config) : nil
        } catch {
            session.manager.shutdown()
            session.control?.shutDown()
            fail(with: error)
        }
        let rpcServer = rpcStarted?.server
        // A .metalink or .meta4 typed at the add prompt is read (fetched) off the loop, then its files added.
        let waker = session.manager.engine?.waker
        let metalinks = MetalinkReads(input: MetalinkInput(settings: transfer.engineSettings), wake: { waker?() })
        var wasUnsaved = false
        var options = TerminalApp.Options(
            turn: { timeoutMs, watching in
                let turn = loop.turn(watching: watching + (rpcServer?.watched ?? []), timeoutMs: timeoutMs)
                rpcServer?.serve()
                metalinks.deliver()
                if rpcServer != nil { loop.saver?.changed() }  // what the calls changed is written at the turn's end
                // A hook that could not run or failed goes to the message line and the log.
                var notes = turn.notes + (rpcServer?.takeProblems() ?? []) + (session.hooks?.takeProblems() ?? [])
                // The line said the session could not be saved: it says so when that is over.
                if wasUnsaved && !session.manager.isUnsaved { notes.append("the session is saved again; downloads go on") }
                wasUnsaved = session.manager.isUnsaved
                return (turn.ready, notes)
            },
            interrupted: { loop.interruption != nil || rpcServer?.rpc.shutdownRequested != nil },
            changed: { loop.saver?.changed() }
        )
        let env = EnvironmentVariable.value
        options.scriptPath = env("TDL_SCRIPT")
        if let size = env("TDL_SCRIPT_SIZE") {
            let numbers = size.split(separator: "x").compactMap { Int($0) }.filter { (1...9_999).contains($0) }
            if numbers.count == 2 { options.headlessSize = (rows: numbers[1], columns: numbers[0]) }
        }
        options.colors = env("NO_COLOR").map { $0.isEmpty } ?? true
        options.expandURLs = { requests, done in
            metalinks.read(requests) { done($0.entries, $0.problems + $0.notes) }
        }
        var messages: [String] = []
        if let notice = session.notice { messages.append(notice) }
        if let rpcStarted { messages.append(rpcStarted.notices[0]) }
        if session.interrupted > 0 {
            let n = session.interrupted, plural = n == 1 ? "" : "s"
            messages.append(session.manager.resumesInterrupted
                ? "restored \(n) interrupted download\(plural)"
                : "\(n) interrupted download\(plural) wait\(n == 1 ? "s" : ""), paused (p resumes)")
        }
        options.startMessage = messages.isEmpty ? nil : messages.joined(separator: "; ")
        let app = TerminalApp(manager: session.manager, options: options)
        app.run()
        rpcServer?.stop()
        session.manager.shutdown()
        session.control?.shutDown()
        // The screen is gone: what the message line said must outlive it.
        if let notice = session.notice { warn(notice) }
        // Quitting drops a document still being read: a person must not think its files were added.
        if app.expansionsPending > 0 {
            let one = app.expansionsPending == 1
            warn(one ? "a Metalink document was still being read: nothing was added from it"
                     : "\(app.expansionsPending) Metalink documents were still being read: nothing was added from them")
        }
        if let saveError = session.manager.lastError {
            warn(saveError)
            Foundation.exit(ExitStatus.session)
        }
    }
}
