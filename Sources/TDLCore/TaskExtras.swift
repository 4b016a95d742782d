/// The fields of a task that most tasks of a large list leave unset (a waiting or stopped
/// download has no name of the user's, MIME type, validators, segments, note or options of its
/// own). They are kept apart and allocated only once one is set, so that a million tasks do
/// not each carry some 300 bytes of empty fields; copies share them until one changes, as an
/// `Array` would.
struct TaskExtras: Equatable, Sendable {
    var customDisplayName: String?
    var mimeType: String?
    var failReason: FailReason?
    var finalURL: String?
    var etag: String?
    var lastModified: String?
    var segments: [Segment] = []
    var retries = 0
    var note: String?
    var metaInfo: [String: String] = [:]
    var completedPath: String?
    var options = DownloadOptions()

    static let unset = TaskExtras()
}

/// `TaskExtras` behind one optional reference: nil while every field is unset. Equal when
/// the fields are, whoever holds them. Guarded by copy on write, as `DownloadTask.Box`:
/// `makeOwn` makes the storage this holder's alone before any write.
struct TaskExtrasStorage: Equatable, @unchecked Sendable {
    private final class Box {
        // Copied on write like the task's own box (see `DownloadTask.Box`).
        @exclusivity(unchecked) var extras: TaskExtras
        init(_ extras: TaskExtras) { self.extras = extras }

        /// Whether the fields equal `other`'s, compared where they lie: reading `extras` out of
        /// the box would copy every field first (a retain each), once per task of a load.
        func holds(_ other: TaskExtras) -> Bool {
            withUnsafeMutablePointer(to: &extras) { $0.pointee == other }
        }

        func holdsSame(as other: Box) -> Bool {
            withUnsafeMutablePointer(to: &other.extras) { holds($0.pointee) }
        }
    }

    private var box: Box?

    init() {}

    var value: TaskExtras { box?.extras ?? .unset }

    /// Reads a field without copying the rest.
    @inline(__always)
    func get<Value>(_ field: KeyPath<TaskExtras, Value>) -> Value {
        if let box { return box.extras[keyPath: field] }
        return TaskExtras.unset[keyPath: field]
    }

    /// Sets a field; setting a field to its unset value on a task without extras allocates nothing.
    @inline(__always)
    mutating func set<Value: Equatable>(_ field: WritableKeyPath<TaskExtras, Value>, _ newValue: Value) {
        if box == nil && newValue == TaskExtras.unset[keyPath: field] { return }
        makeOwn()
        box!.extras[keyPath: field] = newValue
    }

    /// For changes in place (a segment's progress, one header): the fields are made this
    /// holder's own first, so a collection is changed without being copied.
    var mutable: TaskExtras {
        get { value }
        _modify {
            makeOwn()
            yield &box!.extras
        }
    }

    /// Gives this holder fields of its own to change: new ones, or a copy of shared ones.
    @inline(__always)
    private mutating func makeOwn() {
        if box == nil {
            box = Box(.unset)
        } else if !isKnownUniquelyReferenced(&box) {
            box = Box(box!.extras)
        }
    }

    /// No field is set.
    var isEmpty: Bool { box == nil }

    /// Both hold the same storage (or none).
    func isShared(with other: TaskExtrasStorage) -> Bool { box === other.box }

    /// Compares the fields where they are: `value` would copy them first (a task read from the
    /// session is compared with the one before it).
    static func == (lhs: TaskExtrasStorage, rhs: TaskExtrasStorage) -> Bool {
        switch (lhs.box, rhs.box) {
        case (nil, nil): return true
        case let (left?, right?): return left === right || left.holdsSame(as: right)
        case let (held?, nil), let (nil, held?): return held.holds(.unset)
        }
    }
}

/// Storage holding options alone, for the next task given the same options (see
/// `DownloadTask.setOptions(_:sharing:)`).
public struct SharedOptions {
    let storage: TaskExtrasStorage
    let options: DownloadOptions
}
