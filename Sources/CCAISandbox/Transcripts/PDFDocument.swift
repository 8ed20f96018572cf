import CCAIWire
import CPangoCairo
import Foundation

/// A text document rendered to PDF with cairo (its PDF surface, written to memory) and
/// pango (layout, wrapping, fonts through fontconfig: DejaVu Sans). Blocks flow down A4
/// pages line by line, so a block longer than a page continues on the next; each page
/// is numbered. Text is kept as text: `pdftotext` reads it back, accents, Greek and
/// Cyrillic included.
///
/// The work is linear in the text: pango lays a block out in pieces of at most
/// ``pieceBytes`` bytes (laying out one long paragraph costs more than linear time), each
/// piece's last line laid out again with the next piece, so lines wrap as they would in
/// one. A document has at most ``maximumPages`` pages: what does not fit is left out, and
/// the notice `render(closing:)` is given ends the document in room the last page keeps.
///
/// ```swift
/// var document = PDFDocument(maximumPages: 10)
/// document.add("Chat 7", style: .title)
/// document.add("Ava · 10:02", style: .label)
/// document.add("Hi, how can I help?")
/// let pdf = try document.render { firstBlockLeftOut in firstBlockLeftOut.map { "blocks \($0 + 1)... left out" } }
/// ```
struct PDFDocument {
    enum Style {
        case title
        case label
        case body
        case notice
    }

    private var blocks: [(text: String, style: Style)] = []
    let maximumPages: Int

    init(maximumPages: Int = .max) {
        self.maximumPages = maximumPages
    }

    mutating func add(_ text: String, style: Style = .body) {
        blocks.append((Self.printable(text), style))
    }

    /// The blocks added so far.
    var blockCount: Int { blocks.count }

    struct RenderingError: Error, CustomStringConvertible {
        var description: String
    }

    /// Pango's objects are not thread-safe, and renderings run on more than one thread
    /// (each sandbox's renderer has its own): one rendering at a time, in the process.
    private static let lock = NSLock()

    /// The font map of every rendering: pango's default one belongs to the calling thread,
    /// and a renderer's thread comes and goes. Used under ``lock`` only.
    nonisolated(unsafe) private static let fontMap = pango_cairo_font_map_new()

    /// The most bytes of a block pango lays out at once.
    static let pieceBytes = 2_048

    private static let pageWidth = 595.0, pageHeight = 842.0, margin = 56.0
    /// Room the last page keeps for the closing notice (three lines of it).
    private static let closingRoom = 40.0

    /// The PDF's bytes. `closing` is given the index of the first block left out for want
    /// of pages (nil when every block fits) and returns the notice that ends the document,
    /// if any.
    func render(closing: (_ firstBlockLeftOut: Int?) -> String? = { _ in nil }) throws -> Data {
        try Self.lock.withLock { try draw(closing: closing) }
    }

    private func draw(closing: (Int?) -> String?) throws -> Data {
        let sink = ByteSink()
        let write: cairo_write_func_t = { closure, bytes, length in
            guard let closure, let bytes else { return CAIRO_STATUS_WRITE_ERROR }
            Unmanaged<ByteSink>.fromOpaque(closure).takeUnretainedValue().data.append(bytes, count: Int(length))
            return CAIRO_STATUS_SUCCESS
        }
        guard let surface = cairo_pdf_surface_create_for_stream(write, Unmanaged.passUnretained(sink).toOpaque(),
                                                                 Self.pageWidth, Self.pageHeight)
        else { throw RenderingError(description: "cairo could not create a PDF surface") }
        defer { cairo_surface_destroy(surface) }
        guard let cairo = cairo_create(surface) else { throw RenderingError(description: "cairo could not create a context") }
        defer { cairo_destroy(cairo) }
        guard let context = pango_font_map_create_context(Self.fontMap) else {
            throw RenderingError(description: "pango could not create a context")
        }
        defer { g_object_unref(UnsafeMutableRawPointer(context)) }
        pango_cairo_update_context(cairo, context)
        guard let layout = pango_layout_new(context) else { throw RenderingError(description: "pango could not create a layout") }
        defer { g_object_unref(UnsafeMutableRawPointer(layout)) }
        // Its own layout: a page break comes in the middle of iterating a block's lines,
        // and changing the block's layout there would invalidate the iterator.
        guard let footerLayout = pango_layout_new(context) else {
            throw RenderingError(description: "pango could not create a layout")
        }
        defer { g_object_unref(UnsafeMutableRawPointer(footerLayout)) }
        pango_layout_set_width(layout, Int32((Self.pageWidth - 2 * Self.margin) * Double(PANGO_SCALE)))
        pango_layout_set_wrap(layout, PANGO_WRAP_WORD_CHAR)

        var pages = Pages(cairo: cairo, footer: footerLayout, maximum: maximumPages)
        var firstLeftOut: Int?
        for (index, block) in blocks.enumerated() {
            guard pages.flow(block.text, style: block.style, in: layout) else {
                firstLeftOut = index
                break
            }
        }
        if let notice = closing(firstLeftOut) { pages.close(with: notice, in: layout) }
        pages.finish()
        cairo_surface_finish(surface)
        let status = cairo_surface_status(surface)
        guard status == CAIRO_STATUS_SUCCESS else {
            throw RenderingError(description: "cairo: " + String(cString: cairo_status_to_string(status)))
        }
        return sink.data
    }

    /// The pages being drawn: where the next line goes, and the page breaks.
    private struct Pages {
        let cairo: OpaquePointer
        let footer: OpaquePointer
        let maximum: Int
        var page = 1
        var y = PDFDocument.margin

        init(cairo: OpaquePointer, footer: OpaquePointer, maximum: Int) {
            self.cairo = cairo
            self.footer = footer
            self.maximum = maximum
        }

        /// Where lines end on this page: the last one keeps room for the closing notice.
        private var bottom: Double {
            PDFDocument.pageHeight - PDFDocument.margin - (page >= maximum ? PDFDocument.closingRoom : 0)
        }

        /// Draws a block, piece by piece; false when the pages ran out before its end.
        mutating func flow(_ text: String, style: Style, in layout: OpaquePointer) -> Bool {
            PDFDocument.style(layout, style)
            y += style == .label ? 8 : 2
            let bytes = Array(text.utf8)
            var start = 0
            repeat {
                var end = min(bytes.count, start + PDFDocument.pieceBytes)
                while end < bytes.count, end > start + 1, bytes[end] & 0xC0 == 0x80 { end -= 1 }
                PDFDocument.set(layout, bytes[start..<end])
                switch drawLines(of: layout, keepingLastLine: end < bytes.count) {
                case .all: start = end
                case .allButTheLast(let lastLineStart): start += lastLineStart
                case .pagesRanOut: return false
                }
            } while start < bytes.count
            if style == .title { y += 6 }
            return true
        }

        private enum Drawn {
            case all
            /// Every line but the last, which starts at this byte of the piece.
            case allButTheLast(Int)
            case pagesRanOut
        }

        /// Draws the layout's lines, the last one too unless `keepingLastLine` (and it is
        /// not the only one), for the next piece to start with.
        private mutating func drawLines(of layout: OpaquePointer, keepingLastLine: Bool) -> Drawn {
            guard let lines = pango_layout_get_iter(layout) else { return .all }
            defer { pango_layout_iter_free(lines) }
            repeat {
                let line = pango_layout_iter_get_line_readonly(lines)
                if keepingLastLine, pango_layout_iter_at_last_line(lines) != 0, let start = line?.pointee.start_index, start > 0 {
                    return .allButTheLast(Int(start))
                }
                var logical = PangoRectangle()
                pango_layout_iter_get_line_extents(lines, nil, &logical)
                let height = Double(logical.height) / Double(PANGO_SCALE)
                if y + height > bottom {
                    guard page < maximum else { return .pagesRanOut }
                    newPage()
                }
                let baseline = Double(pango_layout_iter_get_baseline(lines) - logical.y) / Double(PANGO_SCALE)
                cairo_move_to(cairo, PDFDocument.margin, y + baseline)
                pango_cairo_show_layout_line(cairo, line)
                y += height
            } while pango_layout_iter_next_line(lines) != 0
            return .all
        }

        /// Ends the document with a notice: here, or on the next page if this one is full
        /// and is not the last (the last keeps room for it).
        mutating func close(with notice: String, in layout: OpaquePointer) {
            PDFDocument.style(layout, .notice)
            PDFDocument.set(layout, Array(PDFDocument.printable(notice).utf8)[...])
            var logical = PangoRectangle()
            pango_layout_get_extents(layout, nil, &logical)
            if y + 8 + Double(logical.height) / Double(PANGO_SCALE) > bottom, page < maximum { newPage() }
            cairo_move_to(cairo, PDFDocument.margin, y + 8)
            pango_cairo_show_layout(cairo, layout)
        }

        private mutating func newPage() {
            finish()
            page += 1
            y = PDFDocument.margin
        }

        /// Numbers the page and shows it.
        func finish() {
            PDFDocument.style(footer, .notice)
            PDFDocument.set(footer, Array("Page \(page)".utf8)[...])
            cairo_move_to(cairo, PDFDocument.margin, PDFDocument.pageHeight - PDFDocument.margin + 16)
            pango_cairo_show_layout(cairo, footer)
            cairo_show_page(cairo)
        }
    }

    private static func set(_ layout: OpaquePointer, _ bytes: ArraySlice<UInt8>) {
        bytes.withUnsafeBufferPointer { buffer in
            guard let base = buffer.baseAddress, !buffer.isEmpty else { return pango_layout_set_text(layout, "", 0) }
            base.withMemoryRebound(to: CChar.self, capacity: buffer.count) { pointer in
                pango_layout_set_text(layout, pointer, Int32(buffer.count))
            }
        }
    }

    private static func style(_ layout: OpaquePointer, _ style: Style) {
        let name: String
        switch style {
        case .title: name = "DejaVu Sans Bold 16"
        case .label: name = "DejaVu Sans Bold 9"
        case .body: name = "DejaVu Sans 10"
        case .notice: name = "DejaVu Sans Oblique 9"
        }
        let font = pango_font_description_from_string(name)
        pango_layout_set_font_description(layout, font)
        pango_font_description_free(font)
    }

    /// The text without control characters other than line breaks and tabs (pango
    /// takes UTF-8 text; a NUL would cut it short), its format characters (a U+202E bidi
    /// override) shown escaped as `\u{202e}`, so nothing reads in another order than stored.
    static func printable(_ text: String) -> String {
        let scalars = text.unicodeScalars.map { scalar -> Unicode.Scalar in
            scalar == "\n" || scalar == "\t" || !(scalar.value < 0x20 || (0x7F...0x9F).contains(scalar.value)) ? scalar : "\u{FFFD}"
        }
        return TerminalText.escaped(String(String.UnicodeScalarView(scalars)), keepingNewlines: true)
    }
}

/// Collects what cairo writes.
private final class ByteSink {
    var data = Data()
}
