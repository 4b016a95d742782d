import Foundation
import TDLCore

/// Keys while a prompt is open: a question takes y as yes and any other key as no; a text
/// line takes what is typed, Enter submits it and Esc cancels.
struct PromptKeys {
    let manager: DownloadManager
    let state: ScreenState

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
        case .deleteWithFiles: state.say("deleted " + Phrase.downloads(manager.deleteTasks(urls).count))
        case .deleteFromTrash: state.say("deleted \(Phrase.downloads(manager.cleanupToDeleteTasks(urls).count)) for good")
        case .restartFinished: state.say("restarted " + Phrase.downloads(manager.restartTasks(urls).count))
        }
        state.rows.marked.subtract(urls)
        return .listEdited
    }

    private func decline(_ question: Question) -> Reaction {
        state.prompt = nil
        switch question {
        case .deleteWithFiles, .deleteFromTrash: state.say("nothing deleted")
        case .restartFinished: state.say("nothing restarted")
        }
        return .redraw
    }

    private func edit(_ entry: TextEntry, with key: Key) -> Reaction {
        var entry = entry
        switch KeyName.name(of: key) {
        case "Esc":
            state.prompt = nil
            return .redraw
        case "Enter":
            state.prompt = nil
            return submit(entry)
        case "Backspace":
            if !entry.text.isEmpty { entry.text.removeLast() }
        default:
            if case .character(let c) = key, !c.isASCII || !(c.asciiValue! < 0x20 || c.asciiValue! == 0x7F) {
                entry.text.append(c)
            }
        }
        state.prompt = .text(entry)
        guard entry.purpose == .filter else { return .redraw }
        // The list follows the filter as it is typed.
        state.filterText = entry.text
        return [.redraw, .rebuildRows]
    }

    private func submit(_ entry: TextEntry) -> Reaction {
        let text = entry.text
        switch entry.purpose {
        case .addURLs:
            let urls = text.split(whereSeparator: { $0 == " " || $0 == "\n" || $0 == "\t" }).map(String.init)
            guard !urls.isEmpty else {
                state.say("no URL given")
                return .redraw
            }
            add(urls)
        case .rename(let url):
            manager.changeDisplayNameOfTask(url, to: text.trimmingCharacters(in: .whitespaces))
        case .sectionTitle(let section):
            manager.changeTitleOfSection(section, to: text)
        case .newSection:
            let at = state.rows.currentSection(in: manager) ?? 0
            manager.insertPlaceHolderSection(at: at, withTitle: text.isEmpty ? "New section" : text)
        case .filter:
            state.filterText = text
            return [.redraw, .rebuildRows]
        case .rateLimit:
            guard let rate = ByteFormat.parseRate(text) else {
                state.say("\"\(ScreenText.clean(text))\" is not a rate (try 500K or 2M)", error: true)
                return .redraw
            }
            manager.setGlobalRateLimit(rate == 0 ? nil : rate)
            // K and M count 1024s, the list counts 1000s: say it in the user's words, then in the list's.
            let typed = ScreenText.clean(text.trimmingCharacters(in: .whitespaces))
            state.say(rate == 0 ? "no rate limit" : "rate limit \(typed) (\(ByteFormat.rate(rate)))")
            return [.redraw, .save]
        }
        return .listEdited
    }

    private func add(_ urls: [String]) {
        let result = manager.add(urls)
        var parts: [String] = []
        if !result.added.isEmpty { parts.append("added " + Phrase.downloads(result.added.count)) }
        for (what, again) in Dictionary(grouping: result.duplicates, by: \.reason).sorted(by: { $0.key < $1.key }) {
            parts.append("\(again.count) \(what)")
        }
        for rejection in result.rejected { parts.append("\"\(ScreenText.fit(ScreenText.clean(URLCheck.withoutPassword(rejection.url)), 40))\": \(rejection.reason)") }
        state.say(parts.joined(separator: "; "), error: !result.rejected.isEmpty)
        if let first = result.added.first {
            // The first new row is selected, so it must be among the rows now.
            state.readRows(from: manager)
            state.rows.select(task: first)
        }
    }
}
