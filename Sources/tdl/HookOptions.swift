import ArgumentParser
import TDLCore

/// `--on-complete CMD` / `--on-error CMD` for `tdl` and `tdl get`; given once, the session keeps them.
struct HookOptions: ParsableArguments {
    @Option(help: ArgumentHelp("Run CMD FILE URL when a download finishes (no shell; \"\" forgets it). The session keeps it.", valueName: "cmd"))
    var onComplete: String?

    @Option(help: ArgumentHelp("Run CMD FILE URL when a download fails, with TDL_ERROR set to the reason (no shell; \"\" forgets it).", valueName: "cmd"))
    var onError: String?

    /// Saves the hooks given into the session; each given replaces the config file's for the
    /// run (the command line over the file, the file's never saved).
    func save(into session: Session) {
        guard onComplete != nil || onError != nil else { return }
        if onComplete != nil { session.hooks?.runOnComplete = nil }
        if onError != nil { session.hooks?.runOnError = nil }
        session.manager.updateSettings { settings in
            if let onComplete { settings.onComplete = onComplete.isEmpty ? nil : onComplete }
            if let onError { settings.onError = onError.isEmpty ? nil : onError }
        }
    }
}
