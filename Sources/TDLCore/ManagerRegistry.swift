import Foundation

/// Several independent managers by identifier (SDE's `manager(identifier:)`, Tiercel's
/// modules, Reed's contexts). Each has its own list, settings and download limit.
public final class ManagerRegistry {
    public let defaultDirectory: String
    /// Builds the engine and store for a new identifier (nil: none, as in list-only tests).
    let makeEngine: (String) -> TransferEngine?
    let makeStore: (String) -> SessionStore?
    private var managers: [String: DownloadManager] = [:]
    private var creationOrder: [String] = []

    public init(defaultDirectory: String,
                makeEngine: @escaping (String) -> TransferEngine? = { _ in nil },
                makeStore: @escaping (String) -> SessionStore? = { _ in nil }) {
        self.defaultDirectory = defaultDirectory
        self.makeEngine = makeEngine
        self.makeStore = makeStore
    }

    /// The manager with this identifier, created on first use. `manualMode` only matters for a
    /// new, empty manager (a loaded session keeps its own sort).
    public func manager(identifier: String, manualMode: Bool = false) -> DownloadManager {
        if let existing = managers[identifier] { return existing }
        let manager = DownloadManager(identifier: identifier, defaultDirectory: defaultDirectory,
                                      engine: makeEngine(identifier), store: makeStore(identifier))
        if manualMode { manager.arrange(.manual) }
        managers[identifier] = manager
        creationOrder.append(identifier)
        return manager
    }

    /// The manager if it exists; never creates one.
    public func existingManager(identifier: String) -> DownloadManager? { managers[identifier] }

    /// Identifiers in creation order.
    public var identifiers: [String] { creationOrder }

    /// Forgets a manager (its transfers are stopped and its session flushed first).
    @discardableResult
    public func removeManager(identifier: String) -> Bool {
        guard let manager = managers.removeValue(forKey: identifier) else { return false }
        manager.shutdown()
        creationOrder.removeAll { $0 == identifier }
        return true
    }
}
