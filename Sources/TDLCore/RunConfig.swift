/// What a config file gives a run over the session's own settings, as `RunLimits` for a
/// command's limits: held while this process runs, never written into the session, so a key
/// taken out of the file is gone from the next run.
struct RunConfig: Equatable, Sendable {
    /// The folder new downloads go to (`dir=`), until one is set for the session.
    var downloadDirectory: String?
    /// Whether downloads a crash cut off resume at launch (`interrupted=`).
    var resumeInterrupted: Bool?
}

extension DownloadManager {
    /// Takes a config file's `dir=` for this run (nil: none); a folder set for the session
    /// later (`-d`, aria2's `dir`) replaces it.
    public func useRunDirectory(_ path: String?) { runConfig.downloadDirectory = path }

    /// Takes a config file's `interrupted=` for this run; give it before `load`.
    public func useRunResumeInterrupted(_ resume: Bool?) { runConfig.resumeInterrupted = resume }

    /// Whether downloads a crash cut off resume at launch: this run's choice, else the session's.
    public var resumesInterrupted: Bool { runConfig.resumeInterrupted ?? settings.resumeInterruptedOnLaunch }
}
