import CLuaShim
import Foundation
import LuaRuntime
import Testing

/// The blocks Lua states are made of (Sources/CLuaShim/blocks.c): small ones from size
/// classes without headers, shared by the process's states; larger ones from `malloc`.
/// What a state writes in a block is kept when the block is resized, whichever side of the
/// small limit either size is; blocks of neighbouring classes do not overlap; states on
/// several threads at once share the classes safely. Under AddressSanitizer and
/// ThreadSanitizer every block comes from `malloc`, and these check that path.
@Suite struct BlockTests {
    /// Fills `bytes` bytes of `block` with a pattern that differs from block to block.
    private func fill(_ block: UnsafeMutableRawPointer, _ bytes: Int, seed: Int) {
        for offset in 0..<bytes { block.storeBytes(of: UInt8(truncatingIfNeeded: offset &* 31 &+ seed), toByteOffset: offset, as: UInt8.self) }
    }

    private func holds(_ block: UnsafeMutableRawPointer, _ bytes: Int, seed: Int) -> Bool {
        (0..<bytes).allSatisfy { block.load(fromByteOffset: $0, as: UInt8.self) == UInt8(truncatingIfNeeded: $0 &* 31 &+ seed) }
    }

    @Test func resizedBlocksKeepWhatTheyHeldAcrossEverySize() throws {
        let sizes = Array(1...264) + [300, 1_000, 70_000]
        for from in sizes {
            for to in Set([1, 7, 8, 9, 100, 255, 256, 257, 1_000, 70_000, from - 1, from + 1, from + 8]).filter({ $0 > 0 }).sorted() {
                let block = try #require(lrt_block_alloc(from))
                fill(block, from, seed: from)
                let resized = try #require(lrt_block_resize(block, from, to))
                #expect(holds(resized, min(from, to), seed: from), "\(from) -> \(to) bytes")
                fill(resized, to, seed: to)
                #expect(holds(resized, to, seed: to))
                lrt_block_free(resized, to)
            }
        }
    }

    @Test func blocksOfNeighbouringClassesDoNotOverlap() throws {
        var blocks: [(UnsafeMutableRawPointer, Int)] = []
        for round in 0..<20 {
            for bytes in stride(from: 1, through: 256, by: 5) {
                let block = try #require(lrt_block_alloc(bytes))
                fill(block, bytes, seed: bytes &+ round)
                blocks.append((block, bytes))
            }
        }
        for (index, (block, bytes)) in blocks.enumerated() {
            #expect(holds(block, bytes, seed: bytes &+ index / 52), "block \(index) of \(bytes) bytes")
        }
        for (block, bytes) in blocks { lrt_block_free(block, bytes) }
    }

    /// A class's free blocks serve no other class, so the slabs grow only while they are at
    /// most twice the small bytes in use (plus an allowance): blocks that fill one class and
    /// are freed, then the next class, and so on through all 32, are not given slabs for
    /// each; past the bound they come from `malloc`, and every block is freed where it came
    /// from. A set of blocks of the test's own, so that no other test's states count.
    @Test func freedClassesDoNotPinSlabsForEach() throws {
        let reserve = 1 << 30, allowance = 1 << 20
        let blocks = try #require(lrt_blocks_new(reserve, allowance))
        defer { lrt_blocks_destroy(blocks) }
        let perClass = 2 << 20
        for size in stride(from: 8, through: 256, by: 8) {
            var held: [UnsafeMutableRawPointer] = []
            for index in 0..<(perClass / size) {
                let block = try #require(lrt_blocks_alloc(blocks, size))
                block.storeBytes(of: UInt64(index), as: UInt64.self)
                held.append(block)
            }
            for (index, block) in held.enumerated() {
                #expect(block.load(as: UInt64.self) == UInt64(index))
                lrt_blocks_free(blocks, block, size)
            }
        }
        // The slabs served blocks (but in a sanitized build, where `malloc` serves all).
        #expect(lrt_blocks_carved(blocks) > 0 || lrt_blocks_small_max() == 0)
        // 2 MiB a class held at once: the slabs stay within twice that plus the allowance,
        // where slabs kept for each class apart would be 64 MiB.
        #expect(lrt_blocks_carved(blocks) <= 2 * perClass + allowance, "\(lrt_blocks_carved(blocks) >> 20) MiB carved")
        // What was freed serves its class again without carving more.
        let carved = lrt_blocks_carved(blocks)
        let again = try #require(lrt_blocks_alloc(blocks, 8))
        lrt_blocks_free(blocks, again, 8)
        #expect(lrt_blocks_carved(blocks) == carved)
    }

    /// States on the runtime's threads at once, each building and dropping strings and
    /// tables of every small size and growing tables past the small limit.
    @Test func statesOnSeveralThreadsShareTheClasses() async throws {
        let script = """
            local total = 0
            for round = 1, 40 do
              local parts, grown = {}, {}
              for n = 1, 300 do
                parts[#parts + 1] = ("x"):rep(n % 97) .. n
                grown[n] = { n, tostring(n) }
              end
              for n = 300, 1, -3 do grown[n] = nil end
              for n = 1, 300 do
                if parts[n] ~= ("x"):rep(n % 97) .. n then error("string " .. n .. " changed") end
              end
              for n = 1, 300 do
                local kept = grown[n]
                if kept and (kept[1] ~= n or kept[2] ~= tostring(n)) then error("table " .. n .. " changed") end
              end
              total = total + #parts
            end
            return total
            """
        let results = try await withThrowingTaskGroup(of: Int64.self) { group in
            for _ in 0..<8 {
                group.addTask {
                    let state = try LuaState()
                    let values = try await state.run(source: script, chunkName: "=blocks")
                    await state.close()
                    return values.first?.integerValue ?? -1
                }
            }
            return try await group.reduce(into: [Int64]()) { $0.append($1) }
        }
        #expect(results == Array(repeating: 12_000, count: 8))
    }
}
