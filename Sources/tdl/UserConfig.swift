import ArgumentParser
import Foundation
import TDLCore
import TDLSession
import TDLTransfer

/// The user's config file (`$XDG_CONFIG_HOME/tdl/tdl.conf`, else `~/.config/tdl/tdl.conf`):
/// its queues, rate schedule and categories hold for the runs that download; a line that
/// cannot be read stops the command (exit 2) with the file and line.
enum UserConfig {
    static var path: String? {
        var environment: [String: String] = [:]
        for name in ["XDG_CONFIG_HOME", "HOME"] { environment[name] = EnvironmentVariable.value(name) }
        return ConfigFile.defaultPath(environment: environment)
    }

    static func load() throws -> ConfigFile? {
        guard let path else { return nil }
        do {
            return try ConfigFile.load(path: path, home: EnvironmentVariable.value("HOME"))
        } catch {
            throw CLIError.badArgument("\(error)")
        }
    }

    /// The file, or the command ends (exit 2) naming the file and line.
    static func loadOrFail() -> ConfigFile? {
        do { return try load() } catch { fail(with: error) }
    }

    /// The file's limit-rate for a run without --limit-rate (the list, `tdl serve`): this
    /// run's cap, never saved; a cap set on the screen or over RPC replaces it.
    static func useRateLimit(of config: ConfigFile?, in manager: DownloadManager) {
        guard let text = config?.value("limit-rate")?.value else { return }
        RunRateLimit.use(text, in: manager)
    }

    /// Gives a downloading manager what the file sets for the run.
    static func apply(_ config: ConfigFile?, to manager: DownloadManager) {
        guard let config else { return }
        manager.categories = config.categories
        // Every add of the run takes the file's request options where its own are unset: the
        // screen's prompt and JSON-RPC calls as the command line's (which are filled already).
        let headers = config.values("header").map(\.value)
        manager.requestDefaults = DownloadOptions(
            headers: headers.isEmpty ? nil : headers, userAgent: config.value("user-agent")?.value,
            referer: config.value("referer")?.value, cookieFile: config.value("load-cookies")?.value,
            saveCookies: config.value("save-cookies")?.value)
        manager.useRunQueues(config.queues, rateSchedule: config.rateSchedule.isEmpty ? nil : config.rateSchedule)
    }
}

/// `tdl config`: every value in force and where it comes from.
struct ConfigCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "config",
        abstract: "Print every setting in force and where it comes from (the config file, the session, the default).",
        discussion: """
            The config file is $XDG_CONFIG_HOME/tdl/tdl.conf (else ~/.config/tdl/tdl.conf): \
            key=value lines as aria2.conf's, # comments; the keys are the command line's long \
            option names, and queue.NAME.max|limit|window|days, rate-schedule=RATE [DAYS] \
            HH:MM-HH:MM, category.NAME.ext|dir. The command line overrides it.
            """
    )

    @OptionGroup var global: GlobalOptions

    func run() throws {
        do {
            let config = try UserConfig.load()
            let session = try Session(options: global, downloading: false, restoring: false, onlyTasks: [])
            let defaults = ["dir": Paths.downloads(nil), "user-agent": "tdl/\(EngineSettings.version)",
                            "max-connections-per-host": "16", "insecure": "false", "interrupted": "resume",
                            "rpc-listen-port": "6800", "rpc-listen-all": "false",
                            "rpc-allow-origin-all": "false"]
            print("# config file: \(UserConfig.path.map { FileManager.default.fileExists(atPath: $0) ? $0 : "\($0) (none)" } ?? "(none)")")
            for line in ConfigReport.lines(config: config, session: session.manager.settings, defaults: defaults) {
                print(line.text)
            }
            session.endWithoutFreeing()
        } catch {
            fail(with: error)
        }
    }
}
