import Foundation

/// Hours of the day, in local wall-clock time, on some days of the week: "22:00-06:00" on
/// mon-fri opens Monday 22:00 and closes Tuesday 06:00. A window that crosses midnight belongs
/// to the day it opens on. Times are wall-clock times of the calendar's time zone, so a window
/// opens at 08:00 on the day the clocks change too.
public struct TimeWindow: Hashable, Sendable, Codable, CustomStringConvertible {
    /// Minutes after midnight (0…1439).
    public let start: Int
    /// Minutes after midnight (1…1440); at or before `start`: the next day.
    public let end: Int
    public let days: Weekdays

    public init(start: Int, end: Int, days: Weekdays = .all) {
        self.start = min(max(start, 0), 1439)
        self.end = min(max(end, 1), 1440)
        self.days = days
    }

    /// "08:00-22:00", "22:00-06:00" (crosses midnight) or "00:00-24:00" (the whole day).
    public static func parse(_ text: String, days: Weekdays = .all) throws -> TimeWindow {
        let shown = TerminalText.clean(String(text.prefix(40)))
        let ends = text.filter { !$0.isWhitespace }.split(separator: "-", omittingEmptySubsequences: false)
        guard ends.count == 2, let start = minutes(ends[0]), let end = minutes(ends[1]) else {
            throw QueueTextProblem("\"\(shown)\" is not a time window: give HH:MM-HH:MM, e.g. 22:00-06:00")
        }
        guard start < 1440 else { throw QueueTextProblem("\"\(shown)\": a window opens at 23:59 at the latest") }
        guard start != end && !(start == 0 && end == 0) else {
            throw QueueTextProblem("\"\(shown)\" opens and closes at once: for the whole day give 00:00-24:00")
        }
        return TimeWindow(start: start, end: end == 0 ? 1440 : end, days: days)
    }

    /// "HH:MM" (or "H:MM") as minutes; "24:00" is 1440.
    private static func minutes(_ text: Substring) -> Int? {
        let parts = text.split(separator: ":", omittingEmptySubsequences: false)
        guard parts.count == 2, (1...2).contains(parts[0].count), parts[1].count == 2,
              (parts[0] + parts[1]).allSatisfy({ $0.isASCII && $0.isNumber }),
              let hour = Int(parts[0]), let minute = Int(parts[1]), minute < 60 else { return nil }
        guard hour < 24 || (hour == 24 && minute == 0) else { return nil }
        return hour * 60 + minute
    }

    public var crossesMidnight: Bool { end <= start }

    /// "22:00-06:00".
    public var hours: String { "\(Self.clock(start))-\(Self.clock(end))" }

    /// "mon-fri 22:00-06:00", or only the hours when it opens every day.
    public var description: String { days == .all ? hours : "\(days) \(hours)" }

    static func clock(_ minutes: Int) -> String {
        let h = minutes / 60, m = minutes % 60
        return (h < 10 ? "0" : "") + "\(h):" + (m < 10 ? "0" : "") + "\(m)"
    }

    /// The opening that starts on the day beginning at `day` (a start of day), or nil when the
    /// window does not open that day.
    func opening(onDayStarting day: Date, calendar: Calendar) -> DateInterval? {
        guard days.contains(weekday: calendar.component(.weekday, from: day)),
              let open = Self.wallClock(start, onDayStarting: day, calendar: calendar),
              let closeDay = crossesMidnight ? calendar.date(byAdding: .day, value: 1, to: day) : day,
              let close = Self.wallClock(end, onDayStarting: closeDay, calendar: calendar),
              close > open else { return nil }
        return DateInterval(start: open, end: close)
    }

    /// `minutes` after midnight on that day as the wall clock shows them; a time the clocks
    /// skip (a spring-forward gap) is the first moment after it.
    static func wallClock(_ minutes: Int, onDayStarting day: Date, calendar: Calendar) -> Date? {
        if minutes >= 1440 {
            return calendar.date(byAdding: .day, value: 1, to: day).map { calendar.startOfDay(for: $0) }
        }
        return calendar.date(bySettingHour: minutes / 60, minute: minutes % 60, second: 0, of: day,
                             matchingPolicy: .nextTime, repeatedTimePolicy: .first, direction: .forward)
    }
}

/// When something may run: open inside any of its windows; no windows is always open.
public struct OpenHours: Hashable, Sendable, Codable, CustomStringConvertible {
    public var windows: [TimeWindow]

    public init(_ windows: [TimeWindow] = []) { self.windows = windows }

    public static let always = OpenHours()

    public var isAlways: Bool { windows.isEmpty }

    public var description: String { isAlways ? "always" : windows.map(\.description).joined(separator: ", ") }

    /// Days looked at after `date`: a week and a day covers every weekly window.
    static let horizonDays = 8

    /// The open stretches from the day before `date` to `horizonDays` after it, overlapping
    /// and touching ones merged, earliest first.
    func stretches(around date: Date, calendar: Calendar) -> [DateInterval] {
        let today = calendar.startOfDay(for: date)
        var all: [DateInterval] = []
        for offset in -1...Self.horizonDays {
            guard let day = calendar.date(byAdding: .day, value: offset, to: today) else { continue }
            let start = calendar.startOfDay(for: day)
            all += windows.compactMap { $0.opening(onDayStarting: start, calendar: calendar) }
        }
        var merged: [DateInterval] = []
        for interval in all.sorted(by: { $0.start < $1.start }) {
            if let last = merged.last, interval.start <= last.end {
                merged[merged.count - 1] = DateInterval(start: last.start, end: max(last.end, interval.end))
            } else {
                merged.append(interval)
            }
        }
        return merged
    }

    /// Open at `date` (an opening is open at its first moment, closed at its last).
    public func isOpen(at date: Date, calendar: Calendar = .current) -> Bool {
        isAlways || stretches(around: date, calendar: calendar).contains { $0.start <= date && date < $0.end }
    }

    /// When it next opens or closes after `date`; nil when it never changes (always open,
    /// open through the whole week, or no window that ever opens).
    public func nextChange(after date: Date, calendar: Calendar = .current) -> Date? {
        guard !isAlways else { return nil }
        let stretches = stretches(around: date, calendar: calendar)
        guard let horizon = calendar.date(byAdding: .day, value: Self.horizonDays, to: calendar.startOfDay(for: date)) else { return nil }
        if let open = stretches.first(where: { $0.start <= date && date < $0.end }) {
            return open.end >= horizon ? nil : open.end
        }
        return stretches.first { $0.start > date }?.start
    }

    /// When it next opens after `date` (nil when open now, or never).
    public func nextOpening(after date: Date, calendar: Calendar = .current) -> Date? {
        isOpen(at: date, calendar: calendar) ? nil : nextChange(after: date, calendar: calendar)
    }
}
