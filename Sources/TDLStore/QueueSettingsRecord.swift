import Foundation
import TDLCore

/// The session's queues and rate schedule as two setting rows of JSON (`queues`,
/// `rateSchedule`). A value that cannot be read leaves the default (no queues, no schedule),
/// as every other setting falls back to its default.
enum QueueSettingsRecord {
    static let keys = ["queues", "rateSchedule"]

    static func read(_ values: [String: String], into settings: inout SessionSettings) {
        let decoder = JSONDecoder()
        if let json = values["queues"], let queues = try? decoder.decode(QueueList.self, from: Data(json.utf8)) {
            // Through the initializers again: ranges and names as tdl writes them.
            settings.queues = QueueList(queues.definitions.filter { QueueDefinition.problem(withName: $0.name) == nil }.map {
                QueueDefinition(name: $0.name, maxActive: $0.maxActive, rateLimit: $0.rateLimit, hours: $0.hours)
            })
        }
        if let json = values["rateSchedule"], let schedule = try? decoder.decode(RateSchedule.self, from: Data(json.utf8)) {
            settings.rateSchedule = RateSchedule(schedule.entries.map { RateSchedule.Entry(rate: $0.rate, window: $0.window) })
        }
    }

    /// The rows to write; nil deletes a row (nothing defined).
    static func pairs(_ settings: SessionSettings) -> [(String, String?)] {
        let encoder = JSONEncoder()
        encoder.outputFormatting = .sortedKeys
        let json = { (value: any Encodable) in (try? encoder.encode(value)).map { String(decoding: $0, as: UTF8.self) } }
        return [
            ("queues", settings.queues.isEmpty ? nil : json(settings.queues)),
            ("rateSchedule", settings.rateSchedule.isEmpty ? nil : json(settings.rateSchedule)),
        ]
    }
}
