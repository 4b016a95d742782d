import TDLCore

/// What `tdl queue …` asks of a session: carried out by the running tdl or on the saved one.
public enum QueueChange: Codable, Sendable {
    case list
    /// A new queue (`add`, which fails when it exists) or changes to one (`set`, which fails
    /// when it does not).
    case edit(QueueEdit)
    case remove(String)
}

/// The fields a `tdl queue add|set` gives; the others stay as they are (or default, for a new queue).
public struct QueueEdit: Codable, Sendable {
    public var name: String
    public var creating: Bool
    public var maxActive: Int?
    /// 0 lifts the queue's cap.
    public var rateLimit: Int64?
    /// Nil: the windows stay; empty: any time.
    public var hours: OpenHours?

    public init(name: String, creating: Bool, maxActive: Int? = nil, rateLimit: Int64? = nil, hours: OpenHours? = nil) {
        self.name = name
        self.creating = creating
        self.maxActive = maxActive
        self.rateLimit = rateLimit
        self.hours = hours
    }

    /// The queue this edit makes of `existing`.
    public func applied(to existing: QueueDefinition?) -> QueueDefinition {
        let base = existing ?? QueueDefinition(name: name)
        return QueueDefinition(name: name, maxActive: maxActive ?? base.maxActive,
                               rateLimit: rateLimit.map { $0 > 0 ? $0 : nil } ?? base.rateLimit,
                               hours: hours ?? base.hours)
    }
}

extension ControlActions {
    /// Lists, adds, changes or removes a queue of the session; each line says what holds now.
    static func queue(_ change: QueueChange, on saver: SessionSaver) -> ControlReply {
        let manager = saver.manager
        var reply = ControlReply()
        switch change {
        case .list:
            let queues = manager.queues
            if queues.definition(for: nil) == nil {
                reply.lines.append("\(QueueDefinition.defaultName): \(QueueDefinition(name: QueueDefinition.defaultName).summary)")
            }
            for definition in queues.definitions {
                let open = definition.hours.isAlways ? "" : manager.isQueueOpen(definition.name) ? " (open)" : " (closed)"
                reply.lines.append("\(definition.name): \(definition.summary)\(open)")
            }
            return reply
        case .edit(let edit):
            if let problem = QueueDefinition.problem(withName: edit.name) {
                reply.problems.append(problem)
                reply.status = ExitStatus.badInput
                return reply
            }
            let existing = manager.settings.queues[edit.name]
            if edit.creating && existing != nil {
                reply.problems.append("a queue named \(edit.name) exists already: tdl queue set \(edit.name) … changes it")
                reply.status = ExitStatus.badInput
                return reply
            }
            if !edit.creating && existing == nil && edit.name != QueueDefinition.defaultName {
                reply.problems.append("no queue named \(edit.name): tdl queue add \(edit.name) … makes one")
                reply.status = ExitStatus.badInput
                return reply
            }
            let definition = edit.applied(to: existing)
            manager.setQueue(definition)
            reply.lines.append("\(definition.name): \(definition.summary)")
            reply.note = "queue \(definition.name) \(existing == nil ? "added" : "changed") from another tdl"
        case .remove(let name):
            guard manager.removeQueue(name) else {
                reply.problems.append("no queue named \(ScreenSafe.clean(name))")
                reply.status = ExitStatus.badInput
                return reply
            }
            reply.lines.append("removed queue \(name): its downloads run in the default queue")
            reply.note = "queue \(name) removed from another tdl"
        }
        if let saveError = saver.durablePoint() {
            reply.problems.append(saveError)
            reply.status = ExitStatus.session
        }
        return reply
    }
}
