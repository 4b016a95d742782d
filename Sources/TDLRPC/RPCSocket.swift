import FlyingFox
import Foundation

/// One WebSocket client: its text messages are calls (answered in order), and it hears every
/// notification.
struct RPCSocket: WSMessageHandler {
    let hub: SocketHub
    let limits: RPCServer.Limits
    let answer: @Sendable (JSON?) async -> JSON

    func makeMessages(for client: AsyncStream<WSMessage>) async throws -> AsyncStream<WSMessage> {
        let (messages, out) = AsyncStream<WSMessage>.makeStream(bufferingPolicy: .bufferingNewest(limits.queuedNotifications))
        let id = hub.add(out)
        let answer = self.answer, hub = self.hub, maxBody = limits.maxBody
        Task {
            for await message in client {
                switch message {
                case .text(let text):
                    guard text.utf8.count <= maxBody else {
                        out.yield(.close(WSCloseCode(1009, reason: "message too big")))
                        continue
                    }
                    await hub.answer(id, out) { await answer(Aria2RPC.request(Data(text.utf8))) }
                case .data(let data):
                    guard data.count <= maxBody else { continue }
                    await hub.answer(id, out) { await answer(Aria2RPC.request(data)) }
                case .close:
                    break
                }
            }
            hub.remove(id)
            out.finish()
        }
        return messages
    }
}

/// The WebSocket clients, from any thread. While a client's call is being answered, the
/// notifications it would hear wait, and follow its answer: a client learns of its own call's
/// outcome (an add's GID) before the events it caused (the download's start).
final class SocketHub: @unchecked Sendable {
    private struct Client {
        let out: AsyncStream<WSMessage>.Continuation
        var calls = 0
        var held: [String] = []
    }

    private let lock = NSLock()
    private var clients: [Int: Client] = [:]
    private var next = 0

    func add(_ client: AsyncStream<WSMessage>.Continuation) -> Int {
        lock.lock(); defer { lock.unlock() }
        next += 1
        clients[next] = Client(out: client)
        return next
    }

    func remove(_ id: Int) {
        lock.lock(); defer { lock.unlock() }
        clients[id] = nil
    }

    var count: Int {
        lock.lock(); defer { lock.unlock() }
        return clients.count
    }

    /// Answers one call of client `id`, holding its notifications until the answer is sent.
    func answer(_ id: Int, _ out: AsyncStream<WSMessage>.Continuation, _ make: () async -> JSON) async {
        lock.withLock { clients[id]?.calls += 1 }
        let reply = await make()
        lock.withLock {
            out.yield(.text(reply.text))
            guard var client = clients[id] else { return }
            client.calls -= 1
            if client.calls == 0 {
                for text in client.held { out.yield(.text(text)) }
                client.held = []
            }
            clients[id] = client
        }
    }

    func broadcast(_ text: String) {
        lock.lock(); defer { lock.unlock() }
        for (id, client) in clients {
            if client.calls > 0 {
                // Bounded as the client's own queue is.
                if clients[id]!.held.count >= 1_000 { clients[id]!.held.removeFirst() }
                clients[id]!.held.append(text)
            } else {
                client.out.yield(.text(text))
            }
        }
    }

    func finishAll() {
        lock.lock(); defer { lock.unlock() }
        for client in clients.values { client.out.finish() }
        clients = [:]
    }
}
