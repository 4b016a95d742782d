import ArgumentParser
import Foundation
import TDLCore
import TDLRPC
import TDLSession
import TDLTransfer

/// aria2's JSON-RPC options, named as aria2 names them. `tdl serve` always answers; the
/// full-screen list answers with `--rpc`. Given once, the session keeps them.
struct RPCOptions: ParsableArguments {
    @Option(help: ArgumentHelp("JSON-RPC port (default 6800). The session keeps it.", valueName: "port"))
    var rpcListenPort: Int?

    @Flag(inversion: .prefixedNo, help: "Answer JSON-RPC on every address, not only 127.0.0.1 (needs --rpc-secret). The session keeps it.")
    var rpcListenAll: Bool?

    @Option(help: ArgumentHelp("The secret JSON-RPC clients send as token:SECRET (\"\" forgets it). The session keeps it.", valueName: "secret"))
    var rpcSecret: String?

    func validate() throws {
        if let rpcListenPort, !(1024...65_535).contains(rpcListenPort) {
            throw ValidationError("--rpc-listen-port must be between 1024 and 65535")
        }
    }

    /// Saves what was given into the session, then starts the server with the session's
    /// settings. Listening beyond 127.0.0.1 without a secret is refused.
    func startServer(for manager: DownloadManager) throws -> RPCServer {
        var settings = manager.settings
        if let rpcListenPort { settings.rpcListenPort = rpcListenPort }
        if let rpcListenAll { settings.rpcListenAll = rpcListenAll }
        if let rpcSecret { settings.rpcSecret = rpcSecret.isEmpty ? nil : rpcSecret }
        // Checked before the session keeps anything: a refused setting is not kept.
        if settings.rpcListenAll && settings.rpcSecret == nil {
            throw CLIError.badArgument("refusing to answer JSON-RPC on every address without a secret: give --rpc-secret SECRET (or --no-rpc-listen-all)")
        }
        let chosen = settings
        manager.updateSettings { settings in
            settings.rpcListenPort = chosen.rpcListenPort
            settings.rpcListenAll = chosen.rpcListenAll
            settings.rpcSecret = chosen.rpcSecret
        }
        manager.flush()
        let rpc = Aria2RPC(manager: manager, secret: settings.rpcSecret, tdlVersion: EngineSettings.version,
                           listenPort: settings.rpcListenPort, listenAll: settings.rpcListenAll)
        do {
            return try RPCServer(rpc: rpc, port: settings.rpcListenPort, listenAll: settings.rpcListenAll)
        } catch let error as RPCServerError {
            throw CLIError.badArgument(error.description)
        }
    }
}
