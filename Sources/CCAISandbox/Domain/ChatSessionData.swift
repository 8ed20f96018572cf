import CCAIWire
import Foundation

/// What a chat's session carries for its agents, kept with the chat (a restarted sandbox
/// hands it to the agent that takes the chat again): the custom data, `unsigned` from the
/// app and `signed` (the end user's JWT claims with the chat's own signed JWT over them),
/// and the two settings of the seed's `ChatRequest` that are for the agent's side.
///
/// ```swift
/// let session = ChatSessionData(customData: ["unsigned": items], isVerifiable: true, displayOrderInAdapter: ["plan"])
/// session.adapterOrder   // ["plan", "os_version"]: listed keys first, then the others by name
/// ```
struct ChatSessionData: Codable, Equatable, Sendable {
    /// `{ unsigned = {...}, signed = {...} }`, each part present when the session has it.
    var customData: JSONValue
    /// `is_verifiable` of the request (false when not given). The seeds name it without
    /// saying what the platform does with it; the sandbox hands it to agent scripts.
    var isVerifiable: Bool
    /// `display_order_in_adapter` of the request, as given.
    var displayOrderInAdapter: [String]

    /// At most this many keys in `display_order_in_adapter`.
    static let maximumDisplayOrderKeys = 100

    init(customData: JSONValue = [:], isVerifiable: Bool = false, displayOrderInAdapter: [String] = []) {
        self.customData = customData
        self.isVerifiable = isVerifiable
        self.displayOrderInAdapter = displayOrderInAdapter
    }

    enum CodingKeys: String, CodingKey {
        case customData = "custom_data"
        case isVerifiable = "is_verifiable"
        case displayOrderInAdapter = "display_order_in_adapter"
    }

    /// The keys of the custom data in the order the agent's adapter lists them: those
    /// `display_order_in_adapter` names, in its order, then the others by name. A listed
    /// key the session does not carry is left out; items hidden from agents are left out
    /// when `agentView` is true.
    func adapterOrder(agentView: Bool = false) -> [String] {
        var present = Set<String>()
        for case .object(let items) in (customData.objectValue ?? [:]).values {
            for (key, item) in items where !(agentView && item["invisible_to_agent"]?.boolValue == true) { present.insert(key) }
        }
        var order: [String] = []
        for key in displayOrderInAdapter where present.remove(key) != nil { order.append(key) }
        return order + present.sorted()
    }

    /// Why `order` cannot be a request's `display_order_in_adapter`, or nil: too many keys,
    /// a key that is empty, too long or not a name, or a key listed twice.
    static func problem(displayOrder order: [String]) -> String? {
        let field = "display_order_in_adapter"
        guard order.count <= maximumDisplayOrderKeys else {
            return "the field '\(field)' may list at most \(maximumDisplayOrderKeys) keys, got \(order.count)"
        }
        var seen = Set<String>()
        for (index, key) in order.enumerated() {
            let name = "\(field)[\(index + 1)]"
            if key.isEmpty { return "the field '\(name)' must not be empty" }
            if let problem = FieldLimits.nameProblem(name, key) { return problem }
            if !seen.insert(key).inserted { return "the field '\(name)' repeats the key '\(key)'" }
        }
        return nil
    }
}
