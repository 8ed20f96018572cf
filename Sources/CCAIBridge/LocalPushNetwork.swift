import CCAIKit
import CCAISandbox
import CCAIWire
import Foundation

/// APNs and PushKit for devices in the same process as the sandbox: the SDK instances
/// register their tokens (``PushNetwork``) and the sandbox sends to them (``PushSink``), so
/// a push reaches the instance holding its token, as the OS hands a notification to the
/// app that owns it. A token no instance holds any more is dropped, as APNs drops a push
/// for an uninstalled app; the addresses of instances gone are swept as registrations come.
///
/// ```swift
/// let network = LocalPushNetwork()
/// let sandbox = try Sandbox(pushSink: network)
/// let ccai = CCAI(http: HTTPClient(transport: RouterTransport(router: sandbox.router)), pushNetwork: network)
/// ```
public final class LocalPushNetwork: PushNetwork, PushSink, @unchecked Sendable {
    private struct Address: Hashable {
        var token: String
        var type: PushTokenType
    }

    private struct Holder {
        weak var device: PushNotificationService?
    }

    private let lock = NSLock()
    private var devices: [Address: Holder] = [:]
    /// Each device's tokens, so that a new token of a type replaces its old one.
    private var tokens: [ObjectIdentifier: [PushTokenType: String]] = [:]
    /// The number of addresses past which those of devices gone are swept (doubling, so
    /// that sweeping costs O(1) a registration).
    private var sweepAt = 64

    public init() {}

    /// How many device addresses (token and type) the network holds now.
    var addressCount: Int { lock.withLock { devices.count } }

    public func register(_ token: String?, type: PushTokenType, for device: PushNotificationService) {
        let id = ObjectIdentifier(device)
        lock.withLock {
            if let old = tokens[id]?[type], devices[Address(token: old, type: type)]?.device === device {
                devices[Address(token: old, type: type)] = nil
            }
            tokens[id, default: [:]][type] = token
            if let token { devices[Address(token: token, type: type)] = Holder(device: device) }
            if tokens[id]?.values.isEmpty ?? true { tokens[id] = nil }
            if devices.count >= sweepAt { sweep() }
        }
    }

    /// Forgets the addresses of devices that are gone, and their tokens. Called with the lock held.
    private func sweep() {
        devices = devices.filter { $0.value.device != nil }
        tokens = tokens.filter { id, byType in
            byType.contains { type, token in devices[Address(token: token, type: type)]?.device.map(ObjectIdentifier.init) == id }
        }
        sweepAt = max(64, devices.count * 2)
    }

    public func deliver(_ push: PushRecord, to token: String) async {
        let address = Address(token: token.lowercased(), type: push.type)
        let device = lock.withLock { () -> PushNotificationService? in
            guard let device = devices[address]?.device else {
                devices[address] = nil
                return nil
            }
            return device
        }
        guard let device, let received = try? ReceivedPush(type: push.type, platformPart: push.payload) else { return }
        device.receive(received)
    }
}
