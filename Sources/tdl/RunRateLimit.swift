import ArgumentParser
import TDLCore

/// `--limit-rate` (`tdl get`, `tdl serve`) and the config file's limit-rate: a cap for this
/// run only, never saved, so a run that is killed leaves the session's own settings.
enum RunRateLimit {
    /// A `--limit-rate` that is no rate ends the command before it starts.
    static func validate(_ text: String?) throws {
        guard let text else { return }
        do { _ = try RateText.parse(text) } catch { throw ValidationError("--limit-rate: \(error)") }
    }

    /// The cap `text` says (0: none); nil when it is no rate.
    static func cap(_ text: String) -> Int64?? {
        RateText.value(text).map { $0 > 0 ? $0 : nil }
    }

    /// Caps this run at `text`; false (nothing changed) when it is no rate.
    @discardableResult
    static func use(_ text: String, in manager: DownloadManager) -> Bool {
        guard let cap = cap(text) else { return false }
        manager.useRunLimits(RunLimits(globalRateLimit: cap))
        return true
    }
}
