import Foundation

/// Waits until `condition` holds, checking it again after other tasks have run, 10 ms
/// later at first and backing off to every 250 ms (a poll over HTTP must not spend a
/// sandbox's rate limit, which a manual clock never refills), for at most `timeout`
/// seconds; returns whether it held. For state that another task changes with no event
/// to wait for (an agent's reply stored in the sandbox): a test waits for the state,
/// never for a fixed time.
///
/// ```swift
/// #expect(await eventually { try await store.messages(chatID: 1).count == 2 })
/// ```
public func eventually(timeout: TimeInterval = 10, _ condition: () async throws -> Bool) async rethrows -> Bool {
    let deadline = Date().addingTimeInterval(timeout)
    var pause: UInt64 = 10_000_000
    while true {
        if try await condition() { return true }
        if Date() > deadline { return false }
        await Task.yield()
        // One of the two real sleeps left in the tests: the state polled (a row another task
        // writes, an agent's reply over HTTP) announces itself with no event a test can await.
        try? await Task.sleep(nanoseconds: pause)
        pause = min(pause * 2, 250_000_000)
    }
}
