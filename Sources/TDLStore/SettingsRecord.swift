import GRDB
import TDLCore

/// Session settings as key/value rows, so adding a setting needs no migration.
enum SettingsRecord {
    static func load(_ db: Database, session: String) throws -> SessionSettings {
        var values: [String: String] = [:]
        for row in try Row.fetchAll(db, sql: "SELECT key, value FROM setting WHERE session = ?", arguments: [session]) {
            values[row[0]] = row[1]
        }
        var s = SessionSettings()
        s.arrangement = arrangement(sortType: values["sortType"], sortOrder: values["sortOrder"])
        if let v = values["sectioningAddTime"] { s.sectioning.addTime = v == "1" }
        if let v = values["sectioningFileSize"] { s.sectioning.fileSize = v == "1" }
        if let v = values["sectioningFileName"] { s.sectioning.fileName = v == "1" }
        if let v = values["hiddenFileExtension"] { s.hiddenFileExtension = v == "1" }
        // Numbers read back are held to the ranges tdl writes: a file changed by hand (or by
        // someone else) makes a setting fall back to its default, never a trap later.
        if let n = number(values["maxDownloadCount"], 0...SessionSettings.largestDownloadCount) { s.maxDownloadCount = n }
        if let v = values["isTrashOpened"] { s.isTrashOpened = v == "1" }
        s.downloadDirectory = values["downloadDirectory"]
        s.globalRateLimit = number(values["globalRateLimit"], 1...Int(RateText.largest)).map(Int64.init)
        if let n = number(values["connectionsPerDownload"], 1...DownloadOptions.maxConnections) { s.connectionsPerDownload = n }
        if let v = values["resumeInterruptedOnLaunch"] { s.resumeInterruptedOnLaunch = v == "1" }
        if let n = number(values["maxRetries"], 0...100) { s.maxRetries = n }
        if let v = values["endedCleanly"] { s.endedCleanly = v == "1" }
        s.onComplete = values["onComplete"]
        s.onError = values["onError"]
        if let n = number(values["rpcListenPort"], 1...65_535) { s.rpcListenPort = n }
        if let v = values["rpcListenAll"] { s.rpcListenAll = v == "1" }
        s.rpcSecret = values["rpcSecret"]
        s.rpcAllowOrigins = values["rpcAllowOrigins"].map(lines) ?? []
        if let v = values["rpcAllowOriginAll"] { s.rpcAllowOriginAll = v == "1" }
        s.rpcAllowedDirs = values["rpcAllowedDirs"].map(lines) ?? []
        QueueSettingsRecord.read(values, into: &s)  // QUEUES
        return s
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

    static func save(_ s: SessionSettings, _ db: Database, session: String) throws {
        let flag: (Bool) -> String = { $0 ? "1" : "0" }
        let pairs: [(String, String?)] = [
            ("sortType", s.arrangement.sortKey?.rawValue ?? manualSortType), ("sortOrder", s.arrangement.sortOrder?.rawValue),
            ("sectioningAddTime", flag(s.sectioning.addTime)), ("sectioningFileSize", flag(s.sectioning.fileSize)),
            ("sectioningFileName", flag(s.sectioning.fileName)), ("hiddenFileExtension", flag(s.hiddenFileExtension)),
            ("maxDownloadCount", String(s.maxDownloadCount)), ("isTrashOpened", flag(s.isTrashOpened)),
            ("downloadDirectory", s.downloadDirectory), ("globalRateLimit", s.globalRateLimit.map(String.init)),
            ("connectionsPerDownload", String(s.connectionsPerDownload)),
            ("resumeInterruptedOnLaunch", flag(s.resumeInterruptedOnLaunch)), ("maxRetries", String(s.maxRetries)),
            ("onComplete", s.onComplete), ("onError", s.onError), ("endedCleanly", flag(s.endedCleanly)),
            ("rpcListenPort", String(s.rpcListenPort)), ("rpcListenAll", flag(s.rpcListenAll)), ("rpcSecret", s.rpcSecret),
            ("rpcAllowOrigins", s.rpcAllowOrigins.isEmpty ? nil : s.rpcAllowOrigins.joined(separator: "\n")),
            ("rpcAllowOriginAll", flag(s.rpcAllowOriginAll)),
            ("rpcAllowedDirs", s.rpcAllowedDirs.isEmpty ? nil : s.rpcAllowedDirs.joined(separator: "\n")),
        ] + QueueSettingsRecord.pairs(s)  // QUEUES
        for (key, value) in pairs {
            if let value {
                try db.execute(sql: "INSERT OR REPLACE INTO setting (session, key, value) VALUES (?, ?, ?)", arguments: [session, key, value])
            } else {
                try db.execute(sql: "DELETE FROM setting WHERE session = ? AND key = ?", arguments: [session, key])
            }
        }
    }
}
