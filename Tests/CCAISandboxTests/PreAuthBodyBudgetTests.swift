import CHTTPShim
import Foundation
import Testing

/// The budget of request bodies without a token, driven by hand (the HTTP server asks it
/// on its daemon's threads with the monotonic clock; here the time is the test's): what
/// one address may hold, what all hold, and which body gives way when one needs room.
@Suite struct PreAuthBodyBudgetTests {
    /// A budget of 100,000 bytes, 40,000 per address, slow after one second.
    private final class Budget {
        let budget = chttp_body_budget_create(100_000, 40_000, 1)!
        private var shares: [OpaquePointer] = []

        deinit {
            shares.forEach { chttp_body_share_close($0) }
            chttp_body_budget_destroy(budget)
        }

        /// A body from `address` whose headers came at `time`.
        func open(_ address: String, at time: Double, perAddress: Bool = true) -> OpaquePointer {
            let share = chttp_body_share_open(budget, inet_addr(address), perAddress ? 1 : 0, -1, time)!
            shares.append(share)
            return share
        }

        func close(_ share: OpaquePointer) {
            shares.removeAll { $0 == share }
            chttp_body_share_close(share)
        }

        func grow(_ share: OpaquePointer, to bytes: Int, at time: Double) -> Bool {
            chttp_body_share_grow(share, bytes, time) == 1
        }

        func held(by address: String? = nil) -> Int {
            address.map { chttp_body_budget_held_by(budget, inet_addr($0)) } ?? chttp_body_budget_held(budget)
        }
    }

    @Test func oneAddressHoldsAtMostItsShareAndItsOwnSlowBodyGivesWayFirst() {
        let budget = Budget()
        let first = budget.open("198.51.100.7", at: 0)
        let second = budget.open("198.51.100.7", at: 0.5)
        #expect(budget.grow(first, to: 20_000, at: 0) && budget.grow(second, to: 20_000, at: 0.5))
        let third = budget.open("198.51.100.7", at: 0.6)
        #expect(!budget.grow(third, to: 20_000, at: 0.6), "the address's share is full and no body of it is slow yet")
        let elsewhere = budget.open("203.0.113.9", at: 0.6)
        #expect(budget.grow(elsewhere, to: 40_000, at: 0.6), "another address has a share of its own")
        #expect(budget.grow(third, to: 20_000, at: 1.2), "a second later the address's oldest body is slow")
        #expect(chttp_body_share_evicted(first) == 1 && chttp_body_share_evicted(second) == 0, "the oldest gave way, only it")
        #expect(!budget.grow(first, to: 20_001, at: 1.2), "an evicted body holds nothing more")
        #expect(chttp_body_share_complete(first) == 0, "and is not to be used once it is in")
        #expect(budget.held(by: "198.51.100.7") == 40_000 && budget.held(by: "203.0.113.9") == 40_000 && budget.held() == 80_000)
        #expect(chttp_body_budget_evictions(budget.budget) == 1)
    }

    @Test func aFullBudgetTakesTheOldestSlowBodyNeverOneThatCameAtOnce() {
        let budget = Budget()
        let slow = budget.open("198.51.100.7", at: 0)
        let complete = budget.open("198.51.100.8", at: 0)
        let loopback = budget.open("127.0.0.1", at: 0.1, perAddress: false)
        #expect(budget.grow(slow, to: 30_000, at: 0) && budget.grow(complete, to: 30_000, at: 0))
        #expect(budget.grow(loopback, to: 40_000, at: 0.1), "an exempt address is not held to 40,000 but to the whole")
        #expect(budget.held(by: "127.0.0.1") == 0 && budget.held() == 100_000)
        #expect(chttp_body_share_complete(complete) == 1, "a complete body keeps its share")
        let young = budget.open("203.0.113.9", at: 0.5)
        #expect(!budget.grow(young, to: 40_000, at: 0.5), "nothing is slow yet, nothing arriving is larger: the budget is full")
        #expect(budget.grow(young, to: 30_000, at: 1.05), "the oldest still arriving, now slow, gave way")
        #expect(chttp_body_share_evicted(slow) == 1 && chttp_body_share_evicted(complete) == 0)
        #expect(chttp_body_share_evicted(loopback) == 0, "one eviction made the room")
        let small = budget.open("203.0.113.10", at: 1.05)
        #expect(budget.grow(small, to: 10_000, at: 1.05), "a larger body still arriving gives way to a smaller one")
        #expect(chttp_body_share_evicted(loopback) == 1 && chttp_body_share_evicted(young) == 0)
        #expect(!budget.grow(budget.open("203.0.113.12", at: 1.2), to: 40_000, at: 1.2),
                "what is left is young, complete, or no larger: nothing gives way")
        budget.close(complete)
        #expect(budget.held() == 40_000, "a closed share gives its bytes back")
    }

    /// Bodies of 32 KB re-sent every 0.9 s, never slow, once filled the budget and kept
    /// real sign-ins out (issue 38's re-try: 6 of 40 got in). A smaller body now takes the
    /// room of the largest still arriving; bodies as large as those arriving do not churn.
    @Test func aSmallBodyIsNotKeptOutByLargerOnesResentBeforeTheyAreSlow() {
        let budget = Budget()
        let fillers = (0..<5).map { budget.open("198.51.100.\($0 + 1)", at: Double($0) / 10) }
        for (index, filler) in fillers.enumerated() { #expect(budget.grow(filler, to: 20_000, at: Double(index) / 10)) }
        let another = budget.open("198.51.100.9", at: 0.6)
        #expect(!budget.grow(another, to: 20_000, at: 0.6), "as large as every body arriving: none gives way")
        let signIn = budget.open("203.0.113.9", at: 0.6)
        #expect(budget.grow(signIn, to: 2_000, at: 0.6), "a sign-in gets in while none is slow")
        #expect(fillers.map { chttp_body_share_evicted($0) } == [1, 0, 0, 0, 0], "the oldest of the largest gave way")
        #expect(chttp_body_share_complete(signIn) == 1 && budget.held() == 82_000)
    }
}
