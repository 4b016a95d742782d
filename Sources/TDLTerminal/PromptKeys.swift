import Foundation
import TDLCore

/// Keys while a prompt is open: a question takes y as yes and any other key as no; a text
/// line takes what is typed, Enter submits it and Esc cancels.
struct PromptKeys {
    let manager: DownloadManager
    let state: ScreenState
    /// Reads what typed URLs stand for (a Metalink document: its files), see `TerminalApp.Options`.
    var expandURLs: TerminalApp.URLExpander?

    func handle(_ key: Key, in prompt: Prompt) -> Reaction {
        switch prompt {
        case .question(let question):
            guard case .character(let c) = key, c == "y" || c == "Y" else { return decline(question) }
            return accept(question)
        case .text(let entry):
            return edit(entry, with: key)
        }
    }

    private func accept(_ question: Question) -> Reaction {
        state.prompt = nil
        let urls = question.urls
        switch question {
        case .deleteFinishedFiles(_, let path):
            let n = manager.deleteFilesOfTasks(urls).count
            state.say(urls.count == 1 && n == 1 ? "deleted \(path)" : "deleted \(n) of \(urls.count) files")
        case .deleteFromTrash: state.say(state.done("deleted", manager.cleanupToDeleteTasks(urls).count, of: urls) + " for good")
        case .restartFinished, .restartPartial: state.say(state.done("restarted", manager.restartTasks(urls).count, of: urls))
        case .leaveManualOrder(let key, _):
            manager.arrange(.sorted(key, manager.arrangement.sortOrder ?? .ascending))
            state.say("sorted by \(key.title)")
        }
        state.sayDeleteFailures(manager)
        state.rows.marked.subtract(urls)
        return .listEdited
    }

    private func decline(_ question: Question) -> Reaction {
        state.prompt = nil
        switch question {
        case .deleteFromTrash, .deleteFinishedFiles: state.say("nothing deleted")
        case .restartFinished, .restartPartial: state.say("nothing restarted")
        case .leaveManualOrder: state.say("still in manual order")
        }
        return .redraw
    }

    private func edit(_ entry: TextEntry, with key: Key) -> Reaction {
        var entry = entry
        if case .paste(let pasted) = key {
            entry.insert(Self.oneLine(pasted))
            return changed(entry)
        }
        switch KeyName.name(of: key) {
        case "Esc":
            state.prompt = nil
            // What was there before the prompt opened comes back (the filter applied as typed).
            guard entry.purpose == .filter, state.filterText != entry.original else { return .redraw }
            state.filterText = entry.original
            return [.redraw, .rebuildRows]
        case "Enter":
            state.prompt = nil
            state.remember(entry)
            return submit(entry)
        case "Backspace": entry.deleteBackward()
        case "Del", "^D": entry.deleteForward()
        case "Left", "^B": entry.moveLeft()
        case "Right", "^F": entry.moveRight()
        case "Home", "^A": entry.moveHome()
        case "End", "^E": entry.moveEnd()
        case "^U": entry.killToStart()
        case "^K": entry.killToEnd()
        case "^W": entry.killWordBackward()
        case "Up", "Down":
            let earlier = state.history[entry.purpose.historyKind] ?? []
            guard !earlier.isEmpty else { return [] }
            if KeyName.name(of: key) == "Up" {
                if entry.historyIndex == nil { entry.draft = entry.text }
                entry.historyIndex = max(0, (entry.historyIndex ?? earlier.count) - 1)
                entry.setText(earlier[entry.historyIndex!])
            } else {
                guard let index = entry.historyIndex else { return [] }
                if index + 1 < earlier.count {
                    entry.historyIndex = index + 1
                    entry.setText(earlier[index + 1])
                } else {
                    entry.historyIndex = nil
                    entry.setText(entry.draft)
                }
            }
        default:
            guard case .character(let c) = key, !Self.isControl(c) else { return [] }
            entry.insert(String(c))
        }
        return changed(entry)
    }

    /// The entry after an edit: on the prompt line, and for the filter in the list as it is typed.
    private func changed(_ entry: TextEntry) -> Reaction {
        let before = state.prompt
        state.prompt = .text(entry)
        guard entry.purpose == .filter, state.filterText != entry.text else { return before == state.prompt ? [] : .redraw }
        state.filterText = entry.text
        return [.redraw, .rebuildRows]
    }

    static func isControl(_ c: Character) -> Bool {
        c.unicodeScalars.contains { $0.value < 0x20 || ($0.value >= 0x7F && $0.value < 0xA0) }
    }

    /// Pasted text on one line: line breaks and tabs separate words (URLs), other controls go.
    static func oneLine(_ pasted: String) -> String {
        var result = ""
        for c in pasted {
            if c == "\n" || c == "\r" || c == "\r\n" || c == "\t" {
                if !result.isEmpty && result.last != " " { result.append(" ") }
            } else if !isControl(c) {
                result.append(c)
            }
        }
        return result.last == " " ? String(result.dropLast()) : result
    }

    private func submit(_ entry: TextEntry) -> Reaction {
        let text = entry.text
        switch entry.purpose {
        case .addURLs:
            if CurlCommand.looksLikeOne(text) {
                // "Copy as cURL" from a browser: its URL with the headers and cookies it needs.
                let (message, isError) = manager.add(curlCommand: text)
                state.say(ScreenText.clean(message), error: isError)
                return .listEdited
            }
            let words = text.split(whereSeparator: { $0 == " " || $0 == "\n" || $0 == "\t" }).map(String.init)
            guard !words.isEmpty else {
                state.say("no URL given")
                return .redraw
            }
            switch AddLine.requests(words) {
            case .success(let requests):
                if let expandURLs, requests.contains(where: { Metalink.isMetalinkName($0.url) }) {
                    // Read (fetched) away from the loop: keys are answered meanwhile, and the
                    // line's downloads are added when the documents are in.
                    state.say(Self.reading(requests.map(\.url).filter(Metalink.isMetalinkName)))
                    let keys = self
                    expandURLs(requests) { expanded, problems in keys.report(keys.manager.add(expanded), problems: problems) }
                    return .redraw
                } else {
                    report(manager.add(requests))
                }
            case .failure(let mistake):
                state.say(ScreenText.clean(mistake.text), error: true)
                return .redraw
            }
        case .rename(let url):
            // The file on disk takes the name, as `tdl list` then says.
            let name = text.trimmingCharacters(in: .whitespaces)
            guard !name.isEmpty else {
                state.say("a file needs a name: the name stays", error: true)
                return .redraw
            }
            if let problem = manager.renameFile(of: url, to: name) {
                state.say(problem, error: true)
            } else {
                state.say("renamed to " + name)
            }
        case .sectionTitle(let section):
            let title = text.trimmingCharacters(in: .whitespaces)
            guard !title.isEmpty else {
                state.say("a section needs a title: the title stays", error: true)
                return .redraw
            }
            manager.changeTitleOfSection(section, to: title)
        case .newSection:
            let title = text.trimmingCharacters(in: .whitespaces)
            guard !title.isEmpty else {
                state.say("a section needs a title: no section added", error: true)
                return .redraw
            }
            // Above the selected row: on a header, before its section; on a task, the section
            // splits there (before the section when the task is its first).
            var at = ListIndex(section: 0, row: 0)
            switch state.rows.current {
            case .section(let index, _, _)?: at = ListIndex(section: index, row: 0)
            case .task(let url)?: at = manager.indexPath(of: url) ?? at
            case nil: break
            }
            manager.insertSection(at: at, withTitle: title)
            state.say("new section \"\(ScreenText.clean(title))\"")
        case .filter:
            state.filterText = text
            return [.redraw, .rebuildRows]
        case .rateLimit:
            let rate: Int64
            do { rate = try RateText.parse(text) } catch {
                state.say("\(error)", error: true)
                return .redraw
            }
            manager.setGlobalRateLimit(rate == 0 ? nil : rate)
            // In the user's words, then in the list's (the same units; "Ki" counts 1024s).
            let typed = ScreenText.clean(text.trimmingCharacters(in: .whitespaces))
            state.say(rate == 0 ? "no rate limit" : "rate limit \(typed) (\(ByteFormat.rate(rate)))")
            return [.redraw, .save]
        case .moveToQueue(let urls, _):
            return moveToQueue(urls, text)
        }
        return .listEdited
    }

    /// The message line while typed documents are read.
    static func reading(_ documents: [String]) -> String {
        guard documents.count == 1, let document = documents.first else { return "reading \(documents.count) Metalink documents…" }
        let shown = ScreenText.fit(ScreenText.clean(URLCheck.withoutPassword(document)), 60)
        return (document.contains("://") && !document.lowercased().hasPrefix("file:") ? "fetching " : "reading ") + shown + "…"
    }

    /// What an add did, on the message line; `problems` (a Metalink that could not be read) first.
    private func report(_ result: AddResult, problems: [String] = []) {
        var parts: [String] = problems.map { ScreenText.clean($0) }
        for problem in problems { state.note(problem, error: true) }
        if !result.added.isEmpty { parts.append("added " + Phrase.downloads(result.added.count)) }
        for (what, again) in Dictionary(grouping: result.duplicates, by: \.reason).sorted(by: { $0.key < $1.key }) {
            parts.append("\(again.count) \(what)")
        }
        for rejection in result.rejected { parts.append("\"\(ScreenText.fit(ScreenText.clean(URLCheck.withoutPassword(rejection.url)), 40))\": \(rejection.reason)") }
        let cut = result.rejected.contains { ScreenText.width(ScreenText.clean(URLCheck.withoutPassword($0.url))) > 40 }
        state.say(parts.joined(separator: "; ") + (cut ? " (m shows them whole)" : ""), error: !result.rejected.isEmpty || !problems.isEmpty)
        // The message line cuts long URLs: the log keeps each one whole.
        for rejection in result.rejected {
            state.note("rejected \(URLCheck.withoutPassword(rejection.url)): \(rejection.reason)", error: true)
        }
        if let first = result.added.first {
            // The first new row is selected, so it must be among the rows now.
            state.readRows(from: manager)
            state.rows.select(task: first)
        }
    }
}
