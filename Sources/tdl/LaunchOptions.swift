import ArgumentParser

/// `--interrupted resume|wait` for `tdl` and `tdl get`: what downloads cut off by a crash or
/// kill -9 do when tdl starts. Given once, the session keeps it.
struct LaunchOptions: ParsableArguments {
    enum Interrupted: String, ExpressibleByArgument, CaseIterable {
        case resume, wait
    }

    @Option(help: ArgumentHelp("Downloads cut off by a crash or kill -9: resume them at start (the default) or let them wait, paused. The session keeps it.", valueName: "resume|wait"))
    var interrupted: Interrupted?

    var resumeInterrupted: Bool? { interrupted.map { $0 == .resume } }
}
