import Foundation
import Testing

/// `ccai jwt sign`.
@Suite struct CommandHelpTests {
    @Test(arguments: [["run", "-h"], ["run", "--help"], ["sandbox", "serve", "--help"], ["jwt", "sign", "-h"], ["plugins", "-h"]])
    func everyCommandShowsItsHelp(_ arguments: [String]) async throws {
        let output = try await CLI.run(arguments)
        #expect(output.status == 0 && output.stdout.hasPrefix("Usage: ccai \(arguments[0])"), "\(output.stdout) \(output.stderr)")
    }
}
