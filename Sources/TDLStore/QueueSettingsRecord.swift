import Foundation
import TDLCore

/// The session's queues and rate schedule as two setting rows of JSON. A value that cannot be
/// read leaves the default (no queues, no schedule), as every other setting falls back to its
/// default.
extension SettingKey {
    static let queues = SettingKey(name: "queues", read: { values, settings in
        guard let json = values["queues"], let queues = try? JSONDecoder().decode(QueueList.self, from: Data(json.utf8)) else { return }
        // Through the initializers again: ranges and names as tdl writes them.
        settings.queues = QueueList(queues.definitions.filter { QueueDefinition.problem(withName: $0.name) == nil }.map {
            QueueDefinition(name: $0.name, maxActive: $0.maxActive, rateLimit: $0.rateLimit, hours: $0.hours)
        })
    }, write: { $0.queues.isEmpty ? nil : json($0.queues) })

    static let rateSchedule = SettingKey(name: "rateSchedule", read: { values, settings in
        guard let json = values["rateSchedule"],
              let schedule = try? JSONDecoder().decode(RateSchedule.self, from: Data(json.utf8)) else { return }
        settings.rateSchedule = RateSchedule(schedule.entries.map { RateSchedule.Entry(rate: $0.rate, window: $0.window) })
    }, write: { $0.rateSchedule.isEmpty ? nil : json($0.rateSchedule) })

    private static func json(_ value: some Encodable) -> String? {
        let encoder = JSONEncoder()
        encoder.outputFormatting = .sortedKeys
        return (try? encoder.encode(value)).map { String(decoding: $0, as: UTF8.self) }
    }
}
