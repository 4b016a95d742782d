import Foundation

/// Drives the UI from a file instead of a keyboard (TDL_SCRIPT), the way tig's test suite
/// does: one key or `:command` per line.
///
///     a
///     :type http://127.0.0.1:8080/file.iso
///     <Enter>
///     :wait-idle 30
///     :save-display /tmp/screen.txt
///
/// Commands: `:type TEXT`, `:paste TEXT` (as a terminal's bracketed paste; `\n` is a line
/// break), `:save-display FILE`, `:wait-idle [SECONDS]` (until nothing
/// downloads or waits), `:sleep MS`, `:resize COLSxROWS` (as TDL_SCRIPT_SIZE). Keys: one
/// character, or a name in angle brackets such as `<Enter>`, `<Down>`, `<Space>`, `<Esc>`,
/// `<Del>`, `<^L>`.
final class ScriptRunner {
    enum Command {
        case key(Key)
        case type(String)
        case paste(String)
        case saveDisplay(String)
        case resize(columns: Int, rows: Int)
    }

    private var lines: [String]
    private var waitUntil: Double?
    private var waitForIdle = false
    private(set) var finished = false

    init(path: String) {
        let text = (try? String(contentsOfFile: path, encoding: .utf8)) ?? ""
        lines = text.split(separator: "\n", omittingEmptySubsequences: false).map(String.init).reversed()
    }

    private var now: Double { Date().timeIntervalSinceReferenceDate }

    /// The next command, or nil while waiting (or when done: then `finished` is true).
    func next(isBusy: Bool) -> Command? {
        if let until = waitUntil {
            if now < until && (!waitForIdle || isBusy) { return nil }
            waitUntil = nil
            waitForIdle = false
        }
        while let line = lines.popLast() {
            let trimmed = line.trimmingCharacters(in: .whitespaces)
            if trimmed.isEmpty || trimmed.hasPrefix("#") { continue }
            if trimmed.hasPrefix(":") {
                let parts = trimmed.dropFirst().split(separator: " ", maxSplits: 1).map(String.init)
                let argument = parts.count > 1 ? parts[1] : ""
                switch parts.first ?? "" {
                case "type": return .type(argument)
                case "paste": return .paste(argument.replacingOccurrences(of: "\\n", with: "\n"))
                case "save-display": return .saveDisplay(argument)
                case "wait-idle":
                    waitUntil = now + (Double(argument) ?? 30)
                    waitForIdle = true
                    return nil
                case "sleep":
                    waitUntil = now + (Double(argument) ?? 100) / 1000
                    return nil
                case "resize":
                    let numbers = argument.split(separator: "x").compactMap { Int($0) }.filter { (1...9_999).contains($0) }
                    if numbers.count == 2 { return .resize(columns: numbers[0], rows: numbers[1]) }
                    continue
                default:
                    continue
                }
            }
            var name = trimmed
            if name.hasPrefix("<") && name.hasSuffix(">") && name.count > 2 { name = String(name.dropFirst().dropLast()) }
            if let key = KeyName.key(named: name) { return .key(key) }
        }
        finished = true
        return nil
    }
}
