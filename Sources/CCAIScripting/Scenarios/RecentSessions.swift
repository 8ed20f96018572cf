/// What a VU's metrics recorder knows of its most recent sessions (chats, calls) by id: at
/// most `capacity` of them, the oldest forgotten first, so that sessions whose end never
/// comes cannot grow it.
///
/// ```swift
/// var chats = RecentSessions<Date?>(capacity: 16)
/// let began = chats.update(7, new: nil) { $0 = Date() }
/// chats.forget(7)
/// ```
struct RecentSessions<Times> {
    let capacity: Int
    private var byID: [Int: Times] = [:]
    private var order: [Int] = []

    init(capacity: Int) {
        self.capacity = capacity
    }

    /// Changes what is known of session `id` (`new` when nothing is yet) and returns it.
    @discardableResult
    mutating func update(_ id: Int, new: @autoclosure () -> Times, _ change: (inout Times) -> Void) -> Times {
        if byID[id] == nil {
            if order.count >= capacity { byID[order.removeFirst()] = nil }
            order.append(id)
        }
        var times = byID[id] ?? new()
        change(&times)
        byID[id] = times
        return times
    }

    /// Stops following session `id`; returns what was known of it.
    @discardableResult
    mutating func forget(_ id: Int) -> Times? {
        order.removeAll { $0 == id }
        return byID.removeValue(forKey: id)
    }

    /// Stops following every session; returns what was known of them.
    mutating func forgetAll() -> [Times] {
        defer {
            byID = [:]
            order = []
        }
        return order.compactMap { byID[$0] }
    }

    subscript(id: Int) -> Times? { byID[id] }
}
