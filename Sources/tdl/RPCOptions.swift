import ArgumentParser
import Foundation
import TDLCore
import TDLRPC
import TDLSession
import TDLTransfer

/// aria2's JSON-RPC options, named as aria2 names them. `tdl serve` always answers; the
/// full-screen list answers with `--rpc`. Given once, the session keeps them.
///
/// Safe by default: a secret always (the user's, or one tdl makes in the home), web pages
/// only from origins the user allowed, downloads only into the session's folder and the
/// folders the user allowed.
struct RPCOptions: ParsableArguments {
    @Option(help: ArgumentHelp("JSON-RPC port (default 6800). The session keeps it.", valueName: "port"))
    var rpcListenPort: Int?

    @Flag(inversion: .prefixedNo, help: "Answer JSON-RPC on every address, not only 127.0.0.1. The session keeps it.")
    var rpcListenAll: Bool?

    @Option(help: ArgumentHelp("The secret JSON-RPC clients send as token:SECRET, instead of the one tdl makes in <home>/rpc-secret (\"\" goes back to that one). The session keeps it.", valueName: "secret"))
    var rpcSecret: String?

    @Option(help: ArgumentHelp("A web page's origin (http://host:port) allowed to call JSON-RPC (repeatable; \"\" allows none again). The session keeps them.", valueName: "origin"))
    var rpcAllowOrigin: [String] = []

    @Flag(inversion: .prefixedNo, help: "Let every web page call JSON-RPC (aria2's option; unsafe: any page that learns the secret drives tdl). The session keeps it.")
    var rpcAllowOriginAll: Bool?

    @Option(help: ArgumentHelp("A folder JSON-RPC callers may download into, beside the session's download folder (repeatable; \"\" allows none again). The session keeps them.", valueName: "dir"))
    var rpcAllowedDir: [String] = []

    func validate() throws {
        if let rpcListenPort, !(1024...65_535).contains(rpcListenPort) {
            throw ValidationError("--rpc-listen-port must be between 1024 and 65535")
        }
        for origin in rpcAllowOrigin where !origin.isEmpty && RPCAccess.normalizedOrigin(origin) == nil {
            throw ValidationError("--rpc-allow-origin \(origin): give an origin as a browser names it, such as http://localhost:8080")
        }
    }

    /// Puts the values given (nil or empty: not given) into `settings`.
    static func apply(port: Int?, all: Bool?, secret: String?, origins: [String], allOrigins: Bool?, dirs: [String],
                      to settings: inout SessionSettings) {
        if let port { settings.rpcListenPort = port }
        if let all { settings.rpcListenAll = all }
        if let secret { settings.rpcSecret = secret.isEmpty ? nil : secret }
        if !origins.isEmpty { settings.rpcAllowOrigins = origins.compactMap(RPCAccess.normalizedOrigin) }
        if let allOrigins { settings.rpcAllowOriginAll = allOrigins }
        if !dirs.isEmpty {
            settings.rpcAllowedDirs = dirs.filter { !$0.isEmpty }.map { URL(fileURLWithPath: $0).standardizedFileURL.path }
        }
    }

    /// What the server says when it starts: where it listens, where its secret is.
    struct Started {
        let server: RPCServer
        let notices: [String]
    }

    /// Saves what was given into the session, then starts the server with the session's
    /// settings, the config file's over them for this run (never saved) where the command line
    /// gave none, and the secret (the session's own, else the home's).
    func startServer(for saver: SessionSaver, home: String, config: ConfigFile?) throws -> Started {
        let manager = saver.manager
        var given = manager.settings
        Self.apply(port: rpcListenPort, all: rpcListenAll, secret: rpcSecret, origins: rpcAllowOrigin,
                   allOrigins: rpcAllowOriginAll, dirs: rpcAllowedDir, to: &given)
        var settings = given
        if let config {
            Self.apply(port: rpcListenPort == nil ? config.value("rpc-listen-port").flatMap { Int($0.value) } : nil,
                       all: rpcListenAll == nil ? ConfigDefaults.flag(config, "rpc-listen-all") : nil,
                       secret: rpcSecret == nil ? config.value("rpc-secret")?.value : nil,
                       origins: rpcAllowOrigin.isEmpty ? config.values("rpc-allow-origin").map(\.value) : [],
                       allOrigins: rpcAllowOriginAll == nil ? ConfigDefaults.flag(config, "rpc-allow-origin-all") : nil,
                       dirs: rpcAllowedDir.isEmpty ? config.values("rpc-allowed-dir").map(\.value) : [], to: &settings)
        }
        let secret: String
        var notices: [String] = []
        if let own = settings.rpcSecret {
            secret = own
            notices.append(own != given.rpcSecret
                ? "JSON-RPC secret: the config file's rpc-secret (aria2p -s SECRET; a web UI's secret token setting)"
                : "JSON-RPC secret: the session's own, given with --rpc-secret (aria2p -s SECRET; a web UI's secret token setting)")
        } else {
            do {
                let made = try RPCSecretFile.secret(home: home)
                secret = made.secret
                let path = RPCSecretFile.path(home: home)
                notices.append("JSON-RPC secret in \(path)\(made.created ? " (made now)" : ""), owner only: "
                               + "aria2p -s \"$(cat \(path))\" …; in a web UI, its secret token setting")
            } catch let problem as RPCSecretFile.Problem {
                throw CLIError.badArgument(problem.description)
            }
        }
        if settings.rpcAllowOriginAll {
            notices.append("warning: --rpc-allow-origin-all: every web page you open may call JSON-RPC (with the secret)")
        } else if settings.rpcAllowOrigins.isEmpty {
            notices.append("web pages may not call JSON-RPC (allow one with --rpc-allow-origin http://host:port)")
        } else {
            notices.append("web pages of \(settings.rpcAllowOrigins.joined(separator: ", ")) may call JSON-RPC")
        }
        let chosen = given
        manager.updateSettings { settings in
            settings.rpcListenPort = chosen.rpcListenPort
            settings.rpcListenAll = chosen.rpcListenAll
            settings.rpcSecret = chosen.rpcSecret
            settings.rpcAllowOrigins = chosen.rpcAllowOrigins
            settings.rpcAllowOriginAll = chosen.rpcAllowOriginAll
            settings.rpcAllowedDirs = chosen.rpcAllowedDirs
        }
        saver.changed()  // written at the end of the loop's first turn
        let rpc = Aria2RPC(manager: manager, secret: secret, tdlVersion: EngineSettings.version,
                           listenPort: settings.rpcListenPort, listenAll: settings.rpcListenAll)
        rpc.policy = RPCPolicy(roots: [manager.downloadDirectory] + settings.rpcAllowedDirs)
        rpc.durablePoint = { saver.durablePoint() }
        let access = RPCAccess(allowedOrigins: settings.rpcAllowOrigins, allowsEveryOrigin: settings.rpcAllowOriginAll,
                               listenAll: settings.rpcListenAll, port: settings.rpcListenPort)
        do {
            let server = try RPCServer(rpc: rpc, port: settings.rpcListenPort, listenAll: settings.rpcListenAll, access: access)
            return Started(server: server, notices: notices)
        } catch let error as RPCServerError {
            throw CLIError.badArgument(error.description)
        }
    }
}
