import CCAISandbox
import Foundation

/// A sandbox open around the clock: queue 1 plain, queue 2 asking for a text before
/// the session.
func openSandbox() async throws -> Sandbox {
    let path = FileManager.default.temporaryDirectory.appendingPathComponent("attachments-\(UUID().uuidString).lua").path
    try """
        return { company = { name = "x", languages = { "en" }, time_zone = "UTC", key = "dev-key", secret = "dev-secret" },
                 menus = { { id = 1, name = "Help", channels = { chat = {} } },
                           { id = 2, name = "Devices", pre_session_smart_action = true, channels = { chat = {} } } },
                 agents = { { name = "Ada", menus = { 1, 2 } } } }
        """.write(toFile: path, atomically: true, encoding: .utf8)
    defer { try? FileManager.default.removeItem(atPath: path) }
    return try Sandbox(configuration: try await SandboxConfiguration.load(file: path))
}
