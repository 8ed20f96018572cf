import CCAIWire
import CPangoCairo
import Foundation

/// A text document rendered to PDF with cairo (its PDF surface, written to memory) and
/// pango (layout, wrapping, fonts through fontconfig: DejaVu Sans). Blocks flow down A4
/// pages line by line, so a block longer than a page continues on the next; each page
/// is numbered. Text is kept as text: `pdftotext` reads it back, accents, Greek and
/// Cyrillic included.
///
/// ```swift
/// var document = PDFDocument()
/// document.add("Chat 7", style: .title)
/// document.add("Ava · 10:02", style: .label)
/// document.add("Hi, how can I help?")
/// let pdf = try document.render()
/// ```
struct PDFDocument {
    enum Style {
        case title
        case label
        case body
        case notice
    }

    private var blocks: [(text: String, style: Style)] = []

    mutating func add(_ text: String, style: Style = .body) {
        blocks.append((Self.printable(text), style))
    }

    struct RenderingError: Error, CustomStringConvertible {
        var description: String
    }

    /// Pango's default font map belongs to the calling thread; one rendering at a time
    /// keeps font maps and fontconfig's caches from racing.
    private static let lock = NSLock()

    private static let pageWidth = 595.0, pageHeight = 842.0, margin = 56.0

    func render() throws -> Data {
        try Self.lock.withLock { try draw() }
    }

    private func draw() throws -> Data {
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
        guard let layout = pango_cairo_create_layout(cairo) else { throw RenderingError(description: "pango could not create a layout") }
        defer { g_object_unref(UnsafeMutableRawPointer(layout)) }
        // Its own layout: a page break comes in the middle of iterating a block's lines,
        // and changing the block's layout there would invalidate the iterator.
        guard let footerLayout = pango_cairo_create_layout(cairo) else {
            throw RenderingError(description: "pango could not create a layout")
        }
        defer { g_object_unref(UnsafeMutableRawPointer(footerLayout)) }
        pango_layout_set_width(layout, Int32((Self.pageWidth - 2 * Self.margin) * Double(PANGO_SCALE)))
        pango_layout_set_wrap(layout, PANGO_WRAP_WORD_CHAR)

        var page = 1
        var y = Self.margin
        let bottom = Self.pageHeight - Self.margin
        func newPage() {
            footer(cairo, footerLayout, page: page)
            cairo_show_page(cairo)
            page += 1
            y = Self.margin
        }
        for block in blocks {
            Self.style(layout, block.style)
            set(layout, block.text)
            y += block.style == .label ? 8 : 2
            guard let lines = pango_layout_get_iter(layout) else { continue }
            repeat {
                var logical = PangoRectangle()
                pango_layout_iter_get_line_extents(lines, nil, &logical)
                let height = Double(logical.height) / Double(PANGO_SCALE)
                if y + height > bottom { newPage() }
                let baseline = Double(pango_layout_iter_get_baseline(lines) - logical.y) / Double(PANGO_SCALE)
                cairo_move_to(cairo, Self.margin, y + baseline)
                pango_cairo_show_layout_line(cairo, pango_layout_iter_get_line_readonly(lines))
                y += height
            } while pango_layout_iter_next_line(lines) != 0
            pango_layout_iter_free(lines)
            if block.style == .title { y += 6 }
        }
        footer(cairo, footerLayout, page: page)
        cairo_show_page(cairo)
        cairo_surface_finish(surface)
        let status = cairo_surface_status(surface)
        guard status == CAIRO_STATUS_SUCCESS else {
            throw RenderingError(description: "cairo: " + String(cString: cairo_status_to_string(status)))
        }
        return sink.data
    }

    private func footer(_ cairo: OpaquePointer, _ layout: OpaquePointer, page: Int) {
        Self.style(layout, .notice)
        set(layout, "Page \(page)")
        cairo_move_to(cairo, Self.margin, Self.pageHeight - Self.margin + 16)
        pango_cairo_show_layout(cairo, layout)
    }

    private func set(_ layout: OpaquePointer, _ text: String) {
        var bytes = Array(text.utf8)
        bytes.withUnsafeMutableBufferPointer { buffer in
            buffer.baseAddress!.withMemoryRebound(to: CChar.self, capacity: buffer.count) { pointer in
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
