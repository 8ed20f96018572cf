import Foundation
import LuaRuntime

/// The memory of a run: what the process holds (its resident set), and the most it may
/// hold (`options.max_memory`, by default three quarters of what the machine or its
/// container has). A run that would pass it stops with an error that says so, rather than
/// taking the machine down with it (a Lua state's 64 MiB limit is per VU, and a script may
/// ask for 100,000 of them).
///
/// ```lua
/// options = { vus = 500, duration = "10m", max_memory = "4GiB" }
/// ```
public struct RunMemory: Sendable, Equatable {
    /// The most bytes the process may hold.
    public var limit: Int

    public init(limit: Int) {
        self.limit = limit
    }

    /// The default: three quarters of the machine's memory, or of the container's when it
    /// has a smaller limit (cgroup v2 `memory.max`).
    public static var machineDefault: RunMemory {
        let pages = sysconf(Int32(_SC_PHYS_PAGES)), pageSize = sysconf(Int32(_SC_PAGESIZE))
        var total = pages > 0 && pageSize > 0 ? pages.multipliedReportingOverflow(by: pageSize).partialValue : 8 << 30
        if let text = try? String(contentsOfFile: "/sys/fs/cgroup/memory.max", encoding: .utf8),
            let container = Int(text.trimmingCharacters(in: .whitespacesAndNewlines)), container > 0 {
            total = min(total, container)
        }
        return RunMemory(limit: total / 4 * 3)
    }

    /// The process's resident set now, in bytes (`/proc/self/statm`); nil where it cannot be read.
    public static func resident() -> Int? {
        guard let text = try? String(contentsOfFile: "/proc/self/statm", encoding: .utf8) else { return nil }
        let fields = text.split(separator: " ")
        guard fields.count > 1, let pages = Int(fields[1]) else { return nil }
        return pages * Int(sysconf(Int32(_SC_PAGESIZE)))
    }

    /// Why making `more` VUs, each about `perUser` bytes, over `resident` would pass the
    /// limit; nil when it would not.
    func problem(making more: Int, perUser: Int, resident: Int, madeSoFar: Int, wanted: Int) -> String? {
        let projected = resident + more * perUser
        guard projected > limit else { return nil }
        return "the run would need about \(Self.format(projected)) for its \(wanted) VUs (\(madeSoFar) made, about "
            + "\(Self.format(perUser)) each), over options.max_memory (\(Self.format(limit))): give fewer VUs, or a larger "
            + "options.max_memory if the machine has it"
    }

    /// Why the process holding `resident` bytes is over the limit; nil when it is not.
    func problem(resident: Int, during what: String) -> String? {
        guard resident > limit else { return nil }
        return "the run held \(Self.format(resident)) \(what), over options.max_memory (\(Self.format(limit))): it was "
            + "stopped; give fewer VUs, lighter iterations, or a larger options.max_memory if the machine has it"
    }

    /// The budget the VUs' Lua states share: what the limit leaves beside the `resident`
    /// bytes the process held before them (at least 16 MiB). Their allocations are checked
    /// against it as they are made, so a run's Lua code cannot outgrow the limit between
    /// two of the once-a-second checks of the process's resident set.
    func luaPool(resident: Int?) -> LuaMemoryPool {
        LuaMemoryPool(limitBytes: max((limit - (resident ?? 0)) / (1 << 20) * (1 << 20), 16 << 20))
    }

    /// Why a run whose VUs' Lua states filled `pool` was stopped.
    func problem(filled pool: LuaMemoryPool) -> String {
        "the run's VUs held \(Self.format(pool.limitBytes)) in Lua, all the room options.max_memory (\(Self.format(limit))) "
            + "left them beside the rest of the process: it was stopped; give fewer VUs, lighter iterations, or a larger "
            + "options.max_memory if the machine has it"
    }

    /// `"1.5 GiB"`, `"300 MiB"`.
    static func format(_ bytes: Int) -> String {
        let units = [("GiB", 1 << 30), ("MiB", 1 << 20), ("KiB", 1 << 10)]
        for (unit, size) in units where bytes >= size {
            let value = Double(bytes) / Double(size)
            let tenths = (value * 10).rounded() / 10
            return tenths == tenths.rounded() ? "\(Int(tenths)) \(unit)" : String(format: "%.1f", tenths) + " " + unit
        }
        return "\(bytes) bytes"
    }

    /// Reads `options.max_memory`: a number of bytes, or a string with a unit (`"512MB"`,
    /// `"4GiB"`; KB, MB, GB are powers of 1,000, KiB, MiB, GiB of 1,024); at least 64 MiB.
    static func parse(_ value: LuaValue) throws -> RunMemory {
        let option = "options.max_memory"
        let expected = "a number of bytes or a size such as \"4GiB\" or \"512MB\" (at least 64 MiB) expected, got "
            + ScenarioOptions.shown(value)
        var bytes: Double?
        switch value {
        case .integer(let number): bytes = Double(number)
        case .number(let number): bytes = number
        case .string(let text):
            let trimmed = text.trimmingCharacters(in: .whitespaces)
            let digits = trimmed.prefix { $0.isNumber || $0 == "." }
            let unit = trimmed.dropFirst(digits.count).trimmingCharacters(in: .whitespaces).lowercased()
            let scales: [String: Double] = ["": 1, "b": 1, "kb": 1e3, "mb": 1e6, "gb": 1e9, "tb": 1e12,
                                            "kib": 1024, "mib": Double(1 << 20), "gib": Double(1 << 30), "tib": Double(1 << 40)]
            if let number = Double(digits), let scale = scales[unit] { bytes = number * scale }
        default: bytes = nil
        }
        guard let bytes, bytes.isFinite, bytes >= Double(64 << 20), bytes < 9e18 else {
            throw ScenarioOptions.Problem(option: option, message: expected)
        }
        return RunMemory(limit: Int(bytes))
    }
}
