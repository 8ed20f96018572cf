/// A one-way gate a test awaits instead of sleeping: `wait()` returns once `open()` has
/// been called (at once if it already was).
///
/// ```swift
/// let entered = Latch()
/// router.add("GET", "/slow", authentication: .none) { _ in await entered.open(); ... }
/// await entered.wait()      // the request is being handled now
/// ```
public actor Latch {
    private var isOpen = false
    private var waiting: [CheckedContinuation<Void, Never>] = []

    public init() {}

    public func open() {
        isOpen = true
        waiting.forEach { $0.resume() }
        waiting = []
    }

    public func wait() async {
        if isOpen { return }
        await withCheckedContinuation { waiting.append($0) }
    }
}
