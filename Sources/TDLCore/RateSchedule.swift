import Foundation

/// The total rate cap by the clock: "2M on mon-fri 08:00-22:00" caps the session at 2 MB/s in
/// those hours; outside every entry the cap set as before (the session's or the run's) holds.
/// The first entry whose window is open wins.
public struct RateSchedule: Hashable, Sendable, Codable, CustomStringConvertible {
    public struct Entry: Hashable, Sendable, Codable, CustomStringConvertible {
        /// Bytes a second; 0 runs without a cap in that window.
        public var rate: Int64
        public var window: TimeWindow

        public init(rate: Int64, window: TimeWindow) {
            self.rate = max(0, min(rate, RateText.largest))
            self.window = window
        }

        /// "2M mon-fri 08:00-22:00" (days left out when every day), the form `parse` reads.
        public var description: String {
            let rateText = rate == 0 ? "0" : Self.plainRate(rate)
            return "\(rateText) \(window)"
        }

        /// A rate as `RateText` reads it back exactly.
        static func plainRate(_ rate: Int64) -> String {
            for (suffix, factor) in [("G", Int64(1_000_000_000)), ("M", 1_000_000), ("K", 1000)] where rate % factor == 0 {
                return "\(rate / factor)\(suffix)"
            }
            return String(rate)
        }

        /// "RATE [DAYS] HH:MM-HH:MM": "2M mon-fri 08:00-22:00", "0 sat,sun 00:00-24:00".
        public static func parse(_ text: String) throws -> Entry {
            let words = text.split(whereSeparator: \.isWhitespace).map(String.init)
            guard words.count == 2 || words.count == 3 else {
                throw QueueTextProblem("a rate schedule entry is RATE [DAYS] HH:MM-HH:MM, e.g. 2M mon-fri 08:00-22:00")
            }
            let rate: Int64
            do { rate = try RateText.parse(words[0]) } catch { throw QueueTextProblem("\(error)") }
            let days = words.count == 3 ? try Weekdays.parse(words[1]) : .all
            return Entry(rate: rate, window: try TimeWindow.parse(words[words.count - 1], days: days))
        }
    }

    public var entries: [Entry]

    public init(_ entries: [Entry] = []) { self.entries = entries }

    public var isEmpty: Bool { entries.isEmpty }

    public var description: String { entries.map(\.description).joined(separator: "; ") }

    /// The entry in force at `date`, if any.
    public func entry(at date: Date, calendar: Calendar = .current) -> Entry? {
        entries.first { OpenHours([$0.window]).isOpen(at: date, calendar: calendar) }
    }

    /// The cap at `date`: `.some(rate)` from an entry (nil for an entry of 0, no cap), or nil
    /// when no entry is in force and the usual cap holds.
    public func cap(at date: Date, calendar: Calendar = .current) -> Int64?? {
        entry(at: date, calendar: calendar).map { $0.rate > 0 ? $0.rate : nil }
    }

    /// When an entry next begins or ends after `date`.
    public func nextChange(after date: Date, calendar: Calendar = .current) -> Date? {
        entries.compactMap { OpenHours([$0.window]).nextChange(after: date, calendar: calendar) }.min()
    }
}
