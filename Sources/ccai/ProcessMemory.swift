import CLuaShim
import Foundation

/// How the process's allocator is set up, before any thread allocates.
enum ProcessMemory {
    /// glibc's most arenas by default: eight for each core.
    ///
    /// An arena is a heap of its own, which a thread takes when the one it used is busy.
    /// What a thread frees stays in the arena it came from, and serves only the threads
    /// that allocate there next. A run's VUs allocate on whichever thread their task
    /// resumes on, so each arena kept its own share of what the others had freed: at
    /// 1,000 VUs of the peer flow on two cores, eight arenas held 19 MB of free chunks,
    /// and the resident set crept up for the whole run. No more threads run at once than
    /// there are cores, so one arena a core leaves no allocation waiting for want of one
    /// (docs/benchmarks.md).
    ///
    /// `MALLOC_ARENA_MAX` or `GLIBC_TUNABLES=glibc.malloc.arena_max=N` in the
    /// environment still decide.
    static func limitArenas(environment: [String: String] = ProcessInfo.processInfo.environment) {
        guard environment["MALLOC_ARENA_MAX"] == nil, environment["GLIBC_TUNABLES"]?.contains("glibc.malloc.arena_max") != true
        else { return }
        lrt_limit_arenas(Int32(clamping: ProcessInfo.processInfo.activeProcessorCount))
    }
}
