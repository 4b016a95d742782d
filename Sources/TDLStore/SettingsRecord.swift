import GRDB
import TDLCore

/// Session settings as key/value rows, so adding a setting needs no migration.
enum SettingsRecord {
    static func load(_ db: Database, session: String) throws -> SessionSettings {
        var values: [String: String] = [:]
        for row in try Row.fetchAll(db, sql: "SELECT key, value FROM setting WHERE session = ?", arguments: [session]) {
            values[row[0]] = row[1]
        }
        return settings(from: values)
    }

    /// The settings the stored `values` (by key name) give; a key not stored has its default.
    static func settings(from values: [String: String]) -> SessionSettings {
        var settings = SessionSettings()
        for key in SettingKey.all { key.read(values, &settings) }
        return settings
    }

    static func save(_ settings: SessionSettings, _ db: Database, session: String) throws {
        // Two statements for every key, compiled once per connection and kept: a commit of
        // the settings compiles nothing after the first.
        let upsert = try db.cachedStatement(sql: "INSERT OR REPLACE INTO setting (session, key, value) VALUES (?, ?, ?)")
        let delete = try db.cachedStatement(sql: "DELETE FROM setting WHERE session = ? AND key = ?")
        for key in SettingKey.all {
            if let value = key.write(settings) {
                try upsert.execute(arguments: [session, key.name, value])
            } else {
                try delete.execute(arguments: [session, key.name])
            }
        }
    }

    /// A list kept as one value, a line each.
    static func lines(_ value: String) -> [String] { value.split(separator: "\n").map(String.init) }

    static func number(_ text: String?, _ range: ClosedRange<Int>) -> Int? {
        guard let text, let n = Int(text), range.contains(n) else { return nil }
        return n
    }

    /// The arrangement is stored as tdl always stored its sort: `sortType` is "manual" or a sort
    /// key, `sortOrder` a sorted list's order. Sessions from before the arrangement was a type of
    /// its own stored an order with "manual" too (the order a later sort took); it is dropped.
    static let manualSortType = "manual"

    static func arrangement(sortType: String?, sortOrder: String?) -> Arrangement {
        if sortType == manualSortType { return .manual }
        let key = sortType.flatMap(SortKey.init(rawValue:)) ?? .addTime
        return .sorted(key, sortOrder.flatMap(SortOrder.init(rawValue:)) ?? .ascending)
    }
}

/// One row of the `setting` table: its key, and how its value is read into the settings and
/// written from them (nil: no row). Every setting's key is spelled once, in `all`.
struct SettingKey: Sendable {
    let name: String
    /// Reads this key's value out of all the session's values (a missing or unreadable one
    /// leaves the default).
    let read: @Sendable ([String: String], inout SessionSettings) -> Void
    let write: @Sendable (SessionSettings) -> String?

    static let all: [SettingKey] = [
        // The arrangement's two keys are read together (see `SettingsRecord.arrangement`).
        SettingKey(name: "sortType", read: { values, s in
            s.arrangement = SettingsRecord.arrangement(sortType: values["sortType"], sortOrder: values["sortOrder"])
        }, write: { $0.arrangement.sortKey?.rawValue ?? SettingsRecord.manualSortType }),
        SettingKey(name: "sortOrder", read: { _, _ in }, write: { $0.arrangement.sortOrder?.rawValue }),
        flag("sectioningAddTime", \.sectioning.addTime),
        flag("sectioningFileSize", \.sectioning.fileSize),
        flag("sectioningFileName", \.sectioning.fileName),
        // Numbers read back are held to the ranges tdl writes: a file changed by hand (or by
        // someone else) makes a setting fall back to its default, never a trap later.
        number("maxDownloadCount", \.maxDownloadCount, 0...SessionSettings.largestDownloadCount),
        text("downloadDirectory", \.downloadDirectory),
        SettingKey(name: "globalRateLimit", read: { values, s in
            s.globalRateLimit = SettingsRecord.number(values["globalRateLimit"], 1...Int(RateText.largest)).map(Int64.init)
        }, write: { $0.globalRateLimit.map(String.init) }),
        number("connectionsPerDownload", \.connectionsPerDownload, 1...DownloadOptions.maxConnections),
        flag("resumeInterruptedOnLaunch", \.resumeInterruptedOnLaunch),
        number("maxRetries", \.maxRetries, 0...100),
        text("onComplete", \.onComplete),
        text("onError", \.onError),
        flag("endedCleanly", \.endedCleanly),
        number("rpcListenPort", \.rpcListenPort, 1...65_535),
        flag("rpcListenAll", \.rpcListenAll),
        text("rpcSecret", \.rpcSecret),
        lines("rpcAllowOrigins", \.rpcAllowOrigins),
        flag("rpcAllowOriginAll", \.rpcAllowOriginAll),
        lines("rpcAllowedDirs", \.rpcAllowedDirs),
        queues, rateSchedule,
    ]

    /// "1" or "0".
    static func flag(_ name: String, _ field: WritableKeyPath<SessionSettings, Bool> & Sendable) -> SettingKey {
        SettingKey(name: name, read: { values, s in if let v = values[name] { s[keyPath: field] = v == "1" } },
                   write: { $0[keyPath: field] ? "1" : "0" })
    }

    /// A whole number within `range`.
    static func number(_ name: String, _ field: WritableKeyPath<SessionSettings, Int> & Sendable,
                       _ range: ClosedRange<Int>) -> SettingKey {
        SettingKey(name: name, read: { values, s in if let n = SettingsRecord.number(values[name], range) { s[keyPath: field] = n } },
                   write: { String($0[keyPath: field]) })
    }

    /// Text, or no row for nil.
    static func text(_ name: String, _ field: WritableKeyPath<SessionSettings, String?> & Sendable) -> SettingKey {
        SettingKey(name: name, read: { values, s in s[keyPath: field] = values[name] }, write: { $0[keyPath: field] })
    }

    /// A list, a line each; no row for an empty one.
    static func lines(_ name: String, _ field: WritableKeyPath<SessionSettings, [String]> & Sendable) -> SettingKey {
        SettingKey(name: name, read: { values, s in s[keyPath: field] = values[name].map(SettingsRecord.lines) ?? [] },
                   write: { $0[keyPath: field].isEmpty ? nil : $0[keyPath: field].joined(separator: "\n") })
    }
}
