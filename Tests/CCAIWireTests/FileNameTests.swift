import CCAIWire
import Testing

/// Names are names, never paths; a name in a header cannot end the header.
@Suite struct FileNameTests {
    @Test func namesThatArePathsOrCarryControlsAreRefused() {
        #expect(FileName.problem("receipt.jpg") == nil)
        #expect(FileName.problem("résumé ελληνικά.pdf") == nil)
        for bad in ["", ".", "..", "../../../../tmp/pwned.txt", "a/b", "/etc/passwd", "a\\b", "x\u{0}y", "a\nb.txt",
                    "a\r\nSet-Cookie: x", "\u{1b}]0;title\u{7}", String(repeating: "a", count: 256)] {
            #expect(FileName.problem(bad) != nil, "\(bad.debugDescription)")
        }
    }

    @Test func contentDispositionEncodesTheNameAndReadsItBack() {
        let header = ContentDisposition.attachment(named: "évier \"x\".pdf")
        #expect(!header.contains("\n") && !header.contains("\r"))
        #expect(ContentDisposition.fileName(of: header) == "évier \"x\".pdf")
        let injected = ContentDisposition.attachment(named: "a\r\nSet-Cookie: stolen=1")
        #expect(!injected.contains("\n") && !injected.contains("\r"), "\(injected)")
        #expect(ContentDisposition.fileName(of: injected) == nil, "a name with control characters is not a name")
        #expect(ContentDisposition.fileName(of: "attachment; filename=\"a b.pdf\"") == "a b.pdf")
        #expect(ContentDisposition.fileName(of: "attachment; filename=plain.txt; size=3") == "plain.txt")
        #expect(ContentDisposition.fileName(of: "attachment; filename=\"../../etc/passwd\"") == nil)
        #expect(ContentDisposition.fileName(of: "inline") == nil && ContentDisposition.fileName(of: nil) == nil)
    }

    @Test func mistypedNamesGetASuggestion() {
        #expect(Suggestion.closest(to: "deflecton", among: ["deflection", "forms"]) == "deflection")
        #expect(Suggestion.didYouMean("chanels", among: ["channels", "children"]) == " (did you mean 'channels'?)")
        #expect(Suggestion.closest(to: "xyz", among: ["deflection"]) == nil, "nothing close, no guess")
    }
}
