import FlyingFox
import Foundation
import TDLCore

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
final class SocketHub: Sendable {
    private struct Client {
        let out: AsyncStream<WSMessage>.Continuation
        var calls = 0
        var held: [String] = []
    }

    private struct State {
        var clients: [Int: Client] = [:]
        var next = 0
    }

    /// Guards the clients; a message is yielded under it, so a client's order is the lock's order.
    private let state = Locked(State())

    func add(_ client: AsyncStream<WSMessage>.Continuation) -> Int {
        state.withLock { s in
            s.next += 1
            s.clients[s.next] = Client(out: client)
            return s.next
        }
    }

    func remove(_ id: Int) {
        state.withLock { _ = $0.clients.removeValue(forKey: id) }
    }

    var count: Int { state.withLock { $0.clients.count } }

    /// Answers one call of client `id`, holding its notifications until the answer is sent.
    func answer(_ id: Int, _ out: AsyncStream<WSMessage>.Continuation, _ make: () async -> JSON) async {
        state.withLock { $0.clients[id]?.calls += 1 }
        let reply = await make()
        state.withLock { s in
            out.yield(.text(reply.text))
            guard var client = s.clients[id] else { return }
            client.calls -= 1
            if client.calls == 0 {
                for text in client.held { out.yield(.text(text)) }
                client.held = []
            }
            s.clients[id] = client
        }
    }

    func broadcast(_ text: String) {
        state.withLock { s in
            for (id, client) in s.clients {
                if client.calls > 0 {
                    // Bounded as the client's own queue is.
                    if s.clients[id]!.held.count >= 1_000 { s.clients[id]!.held.removeFirst() }
                    s.clients[id]!.held.append(text)
                } else {
                    client.out.yield(.text(text))
                }
            }
        }
    }

    func finishAll() {
        state.withLock { s in
            for client in s.clients.values { client.out.finish() }
            s.clients = [:]
        }
    }
}
