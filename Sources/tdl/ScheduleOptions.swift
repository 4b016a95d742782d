import ArgumentParser
import TDLCore

/// `--rate-schedule 'RATE [DAYS] HH:MM-HH:MM'` for the commands that download: the total rate
/// cap by the clock, in the config key's own syntax (`rate-schedule=`). Given once, the
/// session keeps it; given, it holds over the config file's.
struct ScheduleOptions: ParsableArguments {
    @Option(help: ArgumentHelp("Cap the session's rate by the clock, e.g. '2M mon-fri 08:00-22:00' (repeatable; 0 = no cap in that window; \"\" forgets the schedule). The session keeps it.", valueName: "RATE [DAYS] HH:MM-HH:MM"))
    var rateSchedule: [String] = []

    func validate() throws { _ = try schedule() }

    /// The schedule given (empty: "" forgets it), or nil when none was.
    func schedule() throws -> RateSchedule? {
        guard !rateSchedule.isEmpty else { return nil }
        do {
            return RateSchedule(try rateSchedule.filter { !$0.isEmpty }.map(RateSchedule.Entry.parse))
        } catch {
            throw ValidationError("--rate-schedule: \(error)")
        }
    }

    /// Saves the schedule given into the session and puts it in force over the config file's.
    func save(into manager: DownloadManager, config: ConfigFile?) {
        guard let schedule = try? schedule() else { return }
        manager.setRateSchedule(schedule)
        manager.useRunQueues(config?.queues ?? QueueList(), rateSchedule: nil)
    }
}
