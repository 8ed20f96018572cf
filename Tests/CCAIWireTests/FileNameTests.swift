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

    /// Format characters reorder or hide what a name shows: `invoice\u{202E}fdp.exe` reads
    /// as `invoiceexe.pdf`. Names refuse them; logs show them escaped.
    @Test func formatCharactersAreRefusedInNamesAndEscapedInLogs() {
        for bad in ["invoice\u{202E}fdp.exe", "a\u{200B}b.png", "\u{FEFF}bom.txt", "a\u{2066}b\u{2069}.txt", "line\u{2028}2.txt",
                    "para\u{2029}2.txt", "soft\u{AD}hyphen.txt"] {
            let problem = FileName.problem(bad)
            #expect(problem?.contains("format characters") == true, "\(bad.debugDescription): \(problem ?? "accepted")")
        }
        #expect(TerminalText.escaped("invoice\u{202E}fdp.exe") == #"invoice\u{202e}fdp.exe"#)
        #expect(TerminalText.escaped("a\u{2028}b\u{200B}c") == #"a\u{2028}b\u{200b}c"#)
        #expect(TerminalText.escaped("line 1\n\u{2029}", keepingNewlines: true) == "line 1\n\\u{2029}")
        #expect(TerminalText.escaped("emoji 👍🏽 ελληνικά") == "emoji 👍🏽 ελληνικά", "visible text stays")
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
