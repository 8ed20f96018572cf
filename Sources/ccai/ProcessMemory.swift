import CLuaShim
import Foundation

/// How the process's allocator is set up, before any thread allocates.
enum ProcessMemory {
    /// Has glibc's allocator keep at most ``arenaLimit(environment:cores:)`` arenas, unless
    /// the environment sets the limit itself.
    ///
    /// An arena is a heap of its own. glibc gives a thread the arena it last used, and
    /// another when that one is busy, up to eight arenas a core. What a thread frees stays
    /// in the arena it came from, and serves only the threads that allocate there next. A
    /// run's VUs allocate on whichever thread their task resumes on, so each arena kept its
    /// own share of what the others had freed: at 1,000 VUs of the peer flow on two cores,
    /// eight arenas held 19 MB of free chunks, and the resident set crept up for the whole
    /// run. With two, the free chunks were 8 MB and the resident set stayed flat
    /// (docs/benchmarks.md).
    static func limitArenas(environment: [String: String] = ProcessInfo.processInfo.environment) {
        guard let limit = arenaLimit(environment: environment, cores: ProcessInfo.processInfo.activeProcessorCount) else { return }
        lrt_limit_arenas(limit)
    }

    /// The arenas to keep at most with `cores` cores: one a core, and at least two, since
    /// more threads allocate than run at once (the Swift pool's, the Lua states', the
    /// transport's). Nil when the environment sets a limit glibc takes: a positive
    /// `MALLOC_ARENA_MAX`, or `glibc.malloc.arena_max` in `GLIBC_TUNABLES`
    /// (`NAME=VALUE` pairs separated by colons).
    static func arenaLimit(environment: [String: String], cores: Int) -> Int32? {
        let tunables = (environment["GLIBC_TUNABLES"] ?? "").split(separator: ":").compactMap { pair -> Substring? in
            let parts = pair.split(separator: "=", maxSplits: 1)
            return parts.count == 2 && parts[0] == "glibc.malloc.arena_max" ? parts[1] : nil
        }
        let chosen = tunables + [environment["MALLOC_ARENA_MAX"].map { Substring($0) }].compactMap { $0 }
        if chosen.contains(where: { (Int($0) ?? 0) > 0 }) { return nil }
        return Int32(clamping: max(2, cores))
    }
}
