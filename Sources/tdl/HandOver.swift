import Foundation
import TDLCore

/// `tdl get` while another tdl runs the session: the URLs go to that tdl, which downloads
/// them; this one waits, reports each file as it ends, and exits as if it had downloaded them.
/// Nothing is written twice: only the running tdl touches the session and the files.
struct HandOver {
    let options: GlobalOptions
    let items: [ControlRequest.Item]
    let all: Bool
    let quiet: Bool
    /// Options of this run that the running tdl does not take over (its own settings rule).
    let ignoredOptions: [String]

    func run() -> Never {
        let home = Paths.home(options.home)
        var handedOver = false
        func ask(_ request: ControlRequest) -> ControlReply {
            switch ControlClient.send(request, home: home, session: options.session) {
            case .answered(let reply):
                return reply
            case .nobodyListens where handedOver:
                // The running tdl quit before our files were done: run this command again,
                // now as the one that downloads; what arrived so far is kept.
                execv(CommandLine.arguments[0], CommandLine.unsafeArgv)
                fail(with: CLIError.store("cannot run tdl again: \(String(cString: strerror(errno)))"))
            case .nobodyListens:
                fail(with: CLIError.sessionInUse(options.session))
            case .failed(let why):
                fail(with: CLIError.store(why))
            }
        }
        for option in ignoredOptions {
            warn("\(option) does not apply: the tdl running the session downloads with its own settings")
        }
        var problems: [String] = []
        if !items.isEmpty {
            let added = ask(ControlRequest(command: .add, items: items))
            problems += added.problems
            _ = ask(ControlRequest(command: .resume, items: items))
        }
        handedOver = true
        problems.forEach(warn)
        if !quiet { warn("the session \"\(options.session)\" runs in another tdl: it downloads, this one waits") }
        var urls = items.map(\.url)
        if all {
            let everything = ask(ControlRequest(command: .status, items: [])).tasks ?? []
            urls += everything.filter { $0.state == "waiting" || $0.state == "downloading" }.map(\.url)
        }
        let wanted = urls.map { ControlRequest.Item(url: $0) }
        if wanted.isEmpty { exit(problems.isEmpty ? ExitStatus.ok : ExitStatus.badInput) }
        var reported = Set<String>()
        var failed = false
        while true {
            let tasks = ask(ControlRequest(command: .status, items: wanted)).tasks ?? []
            for task in tasks where !reported.contains(task.url) {
                if task.state == "done" {
                    reported.insert(task.url)
                    if !quiet { warn("done: \(task.path)") }
                } else if task.state != "waiting" && task.state != "downloading" {
                    reported.insert(task.url)
                    failed = true
                    warn("\(ScreenSafe.url(task.url)): \(task.error ?? task.state)")
                }
            }
            if tasks.allSatisfy({ reported.contains($0.url) }) { break }
            usleep(300_000)
        }
        if failed { exit(ExitStatus.downloadFailed) }
        exit(problems.isEmpty ? ExitStatus.ok : ExitStatus.badInput)
    }
}
