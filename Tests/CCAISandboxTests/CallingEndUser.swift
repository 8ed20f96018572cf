@testable import CCAISandbox
import CCAIWire
import Foundation
import TestSupport
import Testing

/// An end user of `client`'s sandbox, for the call tests: their token and id, their
/// requests, and the events published to them.
struct CallingEndUser {
    let client: InProcessClient
    let token: String
    let id: Int

    init(_ client: InProcessClient, _ identifier: String) async throws {
        self.client = client
        token = try await client.signIn(identifier, at: client.sandbox.clock.now())
        id = try #require(try await client.call("GET", "/end_user", token: token).decode(as: EndUser.self).id)
    }

    func call(_ method: String, _ path: String, _ json: String? = nil, query: [String: String] = [:]) async -> InProcessClient.Reply {
        await client.call(method, path, query: query, token: token, json: json)
    }

    func start(_ json: String) async throws -> CallResponse {
        let reply = await call("POST", "/calls", json)
        #expect(reply.status == 201, "\(reply.text)")
        return try reply.decode(as: CallResponse.self)
    }

    /// The call as it stands once `condition` holds (an agent works on it in another task).
    /// The wait is long: with the whole suite on two cores, an agent's script may get the
    /// CPU only seconds later.
    func call(_ id: Int, until condition: @escaping (CallResponse) -> Bool) async throws -> CallResponse {
        var found: CallResponse?
        let held = try await eventually(timeout: 120) {
            found = try await call("GET", "/calls/\(id)").decode(as: CallResponse.self)
            return found.map(condition) ?? false
        }
        #expect(held, "the call as it stands: \(String(describing: found))")
        return try #require(found)
    }

    /// The events published to this end user so far, named `name`, as their JSON data.
    func events(_ name: PlatformEventName) async throws -> [JSONValue] {
        try await client.sandbox.store.events(endUserID: id, after: 0).filter { $0.name == name.rawValue }
            .map { try JSONValue(jsonText: $0.data) }
    }

    /// The statuses of the `call_received` events published to this end user, once the last
    /// one is `last`: a call changes in the store a moment before its event is published, so
    /// a test that saw the call's new status over HTTP waits here for its event too.
    func callStatuses(endingWith last: String) async throws -> [String] {
        var statuses: [String] = []
        _ = try await eventually(timeout: 120) {
            statuses = try await events(.callReceived).compactMap { $0["status"]?.stringValue }
            return statuses.last == last
        }
        return statuses
    }
}
