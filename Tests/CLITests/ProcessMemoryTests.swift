import Testing

@testable import ccai

/// How many arenas `ccai` keeps glibc's allocator to, and when the environment decides.
@Suite struct ProcessMemoryTests {
    @Test func oneArenaACoreAndAtLeastTwo() {
        #expect(ProcessMemory.arenaLimit(environment: [:], cores: 2) == 2)
        #expect(ProcessMemory.arenaLimit(environment: [:], cores: 16) == 16)
        #expect(ProcessMemory.arenaLimit(environment: [:], cores: 1) == 2)
        #expect(ProcessMemory.arenaLimit(environment: [:], cores: 0) == 2)
        #expect(ProcessMemory.arenaLimit(environment: [:], cores: .max) == .max)
    }

    @Test func aLimitGlibcTakesFromTheEnvironmentDecides() {
        #expect(ProcessMemory.arenaLimit(environment: ["MALLOC_ARENA_MAX": "4"], cores: 2) == nil)
        #expect(ProcessMemory.arenaLimit(environment: ["GLIBC_TUNABLES": "glibc.malloc.arena_max=8"], cores: 2) == nil)
        #expect(ProcessMemory.arenaLimit(environment: ["GLIBC_TUNABLES": "glibc.malloc.tcache_count=0:glibc.malloc.arena_max=1"],
                                         cores: 2) == nil)
    }

    @Test func aLimitGlibcIgnoresLeavesOurs() {
        for environment in [["MALLOC_ARENA_MAX": ""], ["MALLOC_ARENA_MAX": "0"], ["MALLOC_ARENA_MAX": "many"],
                            ["GLIBC_TUNABLES": "glibc.malloc.arena_max=0"], ["GLIBC_TUNABLES": "glibc.malloc.arena_max"],
                            ["GLIBC_TUNABLES": "glibc.malloc.arena_test=4"], ["GLIBC_TUNABLES": "glibc.malloc.tcache_count=0"]] {
            #expect(ProcessMemory.arenaLimit(environment: environment, cores: 2) == 2, "\(environment)")
        }
    }
}
