import ArgumentParser
import Foundation

/// `tdl man`: a short man page made from the commands' own help, so the two never disagree
/// (`make man` writes it to man/tdl.1).
struct ManPageCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "man",
        abstract: "Print tdl's man page (troff) made from the help of every command.",
        shouldDisplay: false
    )

    static let documented: [(name: String, command: ParsableCommand.Type)] = [
        ("tdl", TDLCommand.self), ("tdl get", GetCommand.self), ("tdl add", AddCommand.self), ("tdl list", ListCommand.self),
        ("tdl pause", PauseCommand.self), ("tdl resume", ResumeCommand.self), ("tdl stop", StopCommand.self),
        ("tdl restart", RestartCommand.self), ("tdl rm", RemoveCommand.self),
        ("tdl session list", SessionCommand.List.self), ("tdl session destroy", SessionCommand.Destroy.self),
    ]

    func run() {
        print(Self.page())
    }

    static func page() -> String {
        var lines = [
            ".TH TDL 1",
            ".SH NAME",
            "tdl \\- " + escape(TDLCommand.configuration.abstract),
            ".SH DESCRIPTION",
            "Typing tdl opens a full-screen list of downloads; press ? there for every key.",
            "The commands below serve scripts and other terminals.",
        ]
        for (name, command) in documented {
            lines.append(".SH \"\(name.uppercased())\"")
            lines.append(".nf")
            let help = TDLCommand.helpMessage(for: command, columns: 78).split(separator: "\n", omittingEmptySubsequences: false)
            lines += help.map { escape(String($0)) }
            lines.append(".fi")
        }
        lines += [".SH SHELL COMPLETION", "tdl --generate-completion-script bash|zsh|fish"]
        return lines.joined(separator: "\n")
    }

    /// troff reads a backslash as an escape and a leading dot or quote as a request.
    static func escape(_ text: String) -> String {
        let escaped = text.replacingOccurrences(of: "\\", with: "\\e")
        return escaped.hasPrefix(".") || escaped.hasPrefix("'") ? "\\&" + escaped : escaped
    }
}
