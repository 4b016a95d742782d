import TDLCore

extension AddInParts {
    /// A part added and taken for its commit, which may have begun.
    private struct AddedPart {
        let manager: DownloadManager
        let result: AddResult
        let save: DetachedSave?
    }

    /// The parts into an empty session: no part reads rows, so each part's manager is made
    /// (a read of the settings) before the part ahead of it is committed, and that commit runs
    /// on a second thread while this one adds the part and reads the next; committing and
    /// adding took about half of the time each. What is said follows the commits as one part
    /// after another says it: a part's lines once it is committed, the problems of the next
    /// part's lines after that, nothing of the parts after a failed commit (their tasks are
    /// dropped, as if never read). Only one commit runs at a time, in the file's order, so a
    /// crash leaves the session with a prefix of the file, as before.
    static func overlapped(_ given: [DownloadRequest], input: InputFileParts, opened: Session,
                           fill: (inout [DownloadRequest]) -> Void, batch: inout AddBatch,
                           reply: inout PartsReply, sawProblems: inout Bool) throws {
        var part = given
        // The problems of `part`'s lines: said once the part before it is committed.
        var partProblems: [String] = []
        // Added, its commit not awaited yet: the part before `part`.
        var ahead: AddedPart?
        // A part whose commit was awaited, freed once the next commit runs rather than before.
        var retired: [AddedPart] = []
        var recovery = opened.recovery
        // A part was added: committed, or to be committed next.
        var addedAny = false
        // Waits for `added`'s commit (begun if it was not); false when it failed.
        func settle(_ added: AddedPart) -> Bool {
            let saveError = added.manager.finish(added.save)
            reply.take(added.result, saveError: saveError)
            return saveError == nil
        }
        while true {
            fill(&part)
            var manager: DownloadManager?
            if !part.isEmpty {
                // No commit runs: the one of the part before `ahead` was awaited.
                manager = try partManager(opened, rows: [], recovery: &recovery, afterAdding: addedAny, reply: &reply)
                if manager == nil { return }
            }
            ahead?.save?.begin()
            retired.removeAll()
            let added = manager.map { manager -> AddedPart in
                let result = manager.add(part, batch: &batch)
                return AddedPart(manager: manager, result: result, save: manager.takeSave())
            }
            part = []
            addedAny = addedAny || added != nil
            // The next part is read while `ahead` is committed; what it says waits for that.
            let read: Result<(entries: [DownloadRequest], problems: [String])?, CLIError>
            do {
                read = .success(try input.next())
            } catch let error as CLIError {
                read = .failure(error)
            }
            if let before = ahead {
                ahead = nil
                retired.append(before)
                if !settle(before) { return }
            }
            partProblems.forEach(warn)
            sawProblems = sawProblems || !partProblems.isEmpty
            ahead = added
            switch read {
            case .failure(let error):
                // A line that cannot be read ends the add; what was committed is said first.
                if let last = ahead, !settle(last) { return }
                reply.fail(error.description, status: error.exitCode)
                return
            case .success(nil):
                if let last = ahead { _ = settle(last) }
                return
            case .success(let next?):
                part = next.entries
                partProblems = next.problems
            }
        }
    }
}
