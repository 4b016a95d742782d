import Foundation


extension DownloadManager {
    /// Caps the total download rate (nil: none); takes effect on running transfers at once.
    public func setGlobalRateLimit(_ bytesPerSecond: Int64?) {
        settings.globalRateLimit = bytesPerSecond
        runLimits.globalRateLimit = nil  // the session's cap, set now, is the one in force
        markSettingsDirty()
        engine?.setGlobalRateLimit(bytesPerSecond)
    }

    /// Caps each task's own download rate (nil or 0: none) under the global cap; saved with the
    /// task and applied to a running transfer at once.
    public func setRateLimit(_ bytesPerSecond: Int64?, forTasks urls: [String]) {
        let limit = bytesPerSecond.flatMap { $0 > 0 ? $0 : nil }
        for url in urls where tasks[url].map({ $0.options.rateLimit != limit }) ?? false {
            tasks[url]?.options.rateLimit = limit
            markDirty(url)
            engine?.setRateLimit(url: url, limit)
        }
    }
}

extension DownloadManager {
    /// The folder new downloads go to from now on (a session setting).
    public func setDownloadDirectory(_ path: String) {
        runConfig.downloadDirectory = nil
        guard settings.downloadDirectory != path else { return }
        settings.downloadDirectory = path
        markSettingsDirty()
    }

    /// Nil when downloads may be saved in `folder`; else why not.
    public func folderProblem(_ folder: String) -> String? { reservedFolder?.problem(with: folder) }

    /// Where a new download goes when the call names no folder.
    public var downloadDirectory: String { runConfig.downloadDirectory ?? settings.downloadDirectory ?? defaultDirectory }
}

extension DownloadManager {
    /// Connections per file for downloads that start from now on (1…32).
    public func setConnectionsPerDownload(_ count: Int) {
        let clamped = min(DownloadOptions.maxConnections, max(1, count))
        runLimits.connectionsPerDownload = nil
        guard settings.connectionsPerDownload != clamped else { return }
        settings.connectionsPerDownload = clamped
        markSettingsDirty()
    }
}

extension DownloadManager {
    /// Changes settings that need no other action (retries, hooks, resume-on-launch…); saved with the session.
    public func updateSettings(_ change: (inout SessionSettings) -> Void) {
        change(&settings)
        markSettingsDirty()
    }
}
