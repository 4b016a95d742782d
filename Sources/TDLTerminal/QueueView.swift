import Foundation
import TDLCore

/// The queues on the screen: the view listing each queue (`W`) and the prompt that moves
/// downloads into one (`Q`).
extension ListRenderer {
    /// One line per queue: its most at once, rate cap, hours (windows and days), whether it is
    /// open now and when that changes; then the rate schedule. The default queue is listed
    /// even when not defined (it then runs under the session's limits alone).
    func queueLines() -> [String] {
        let queues = manager.queues, calendar = manager.queueCalendar, now = manager.clock()
        var definitions = queues.definitions
        if queues[QueueDefinition.defaultName] == nil { definitions.insert(QueueDefinition(name: QueueDefinition.defaultName), at: 0) }
        let width = max(8, definitions.map { ScreenText.width(ScreenText.clean($0.name)) }.max() ?? 0)
        var lines = definitions.map { queue in
            let open = queue.hours.isOpen(at: now, calendar: calendar)
            var state = open ? "open" : "closed"
            if open, let close = queue.hours.nextChange(after: now, calendar: calendar) {
                state += " until " + Self.when(close, now: now, calendar: calendar)
            } else if !open, let opening = queue.hours.nextOpening(after: now, calendar: calendar) {
                state += ", opens " + Self.when(opening, now: now, calendar: calendar)
            }
            let parts = [queue.maxActive > 0 ? "\(queue.maxActive) at once" : "no own limit at once",
                         queue.rateLimit.map { ByteFormat.rate($0) } ?? "no own rate cap",
                         queue.hours.isAlways ? "any time" : queue.hours.description, state]
            return ScreenText.pad(ScreenText.clean(queue.name), width + 2) + parts.joined(separator: " · ")
        }
        let schedule = manager.rateSchedule
        lines.append("")
        if schedule.isEmpty {
            lines.append("Rate schedule: none (the rate limit holds at every hour)")
        } else {
            let cap = schedule.cap(at: now, calendar: calendar).map { $0.map { ByteFormat.rate($0) } ?? "no cap" }
            lines.append("Rate schedule: " + schedule.description + " · " + (cap.map { "now " + $0 } ?? "not in force now"))
        }
        lines += ["", "The session's limits (max at once, the rate limit) hold over every queue.",
                  "Q moves the marked downloads (or the selected one) to a queue; tdl queue add makes one.",
                  "", "Press q or Esc to close."]
        return lines
    }

    /// "22:00" today, else "Sat 22:00".
    static func when(_ date: Date, now: Date, calendar: Calendar) -> String {
        let parts = calendar.dateComponents([.hour, .minute, .weekday], from: date)
        let time = String(format: "%02d:%02d", parts.hour ?? 0, parts.minute ?? 0)
        guard !calendar.isDate(date, inSameDayAs: now) else { return time }
        let days = ["Sun", "Mon", "Tue", "Wed", "Thu", "Fri", "Sat"]
        return days[((parts.weekday ?? 1) - 1) % 7] + " " + time
    }
}

extension PromptKeys {
    /// Enter at the move-to-queue prompt: a queue the session knows (or `default`), else words
    /// naming the queues there are; nothing moves on an empty line.
    func moveToQueue(_ urls: [String], _ typed: String) -> Reaction {
        let name = typed.trimmingCharacters(in: .whitespaces)
        guard !name.isEmpty else {
            state.say("no queue given: nothing moved")
            return .redraw
        }
        let names = Self.queueNames(manager)
        guard names.contains(name) else {
            state.say("no queue \"\(ScreenText.fit(ScreenText.clean(name), 40))\": the queues are \(names.joined(separator: ", ")) "
                      + "(tdl queue add NAME makes one)", error: true)
            return .redraw
        }
        manager.setQueue(name == QueueDefinition.defaultName ? nil : name, forTasks: urls)
        state.say(state.done("moved", urls.count, of: urls) + " to queue " + ScreenText.clean(name))
        return .listEdited
    }

    /// The names a download may be moved to: `default` and every queue in force.
    static func queueNames(_ manager: DownloadManager) -> [String] {
        [QueueDefinition.defaultName] + manager.queues.names.filter { $0 != QueueDefinition.defaultName }
    }
}
