import CardboxCore

/// Charts drawn as SVG on the server, so the stats page needs no script and no library: a bar
/// for each value, its label beneath the first, middle and last, and each bar's exact figure in a
/// `<title>` (a tooltip on hover, read by screen readers).
enum SVGChart {
    struct Bar {
        var label: String
        var value: Double
        /// What the bar's tooltip says (e.g. "12 reviews on 2026-11-20").
        var title: String
    }

    static let width = 600.0
    static let height = 180.0
    private static let bottom = 24.0
    private static let top = 16.0

    /// Bars scaled to the largest value (or to `maximum`, for shares that top out at 1).
    static func bars(_ bars: [Bar], description: String, maximum: Double? = nil, id: String) -> String {
        let scale = max(maximum ?? bars.map(\.value).max() ?? 0, 1e-9)
        let slot = width / Double(max(bars.count, 1))
        let plot = height - bottom - top
        var svg = """
            <svg id="\(id)" class="chart" viewBox="0 0 \(Int(width)) \(Int(height))" role="img" \
            aria-label="\(HTMLText.escape(description))" xmlns="http://www.w3.org/2000/svg">
            <line x1="0" y1="\(height - bottom)" x2="\(width)" y2="\(height - bottom)" class="axis"/>

            """
        let labelled = Set([0, bars.count / 2, bars.count - 1])
        for (index, bar) in bars.enumerated() {
            let barHeight = (bar.value / scale * plot).clamped(to: 0...plot)
            let x = Double(index) * slot + slot * 0.15
            svg += """
                <rect x="\(format(x))" y="\(format(height - bottom - barHeight))" width="\(format(slot * 0.7))" \
                height="\(format(barHeight))"><title>\(HTMLText.escape(bar.title))</title></rect>

                """
            if labelled.contains(index) {
                // The first and last labels keep inside the chart's edges.
                let (anchor, labelX) =
                    bars.count > 2 && index == 0
                    ? ("start", x)
                    : bars.count > 2 && index == bars.count - 1 ? ("end", x + slot * 0.7) : ("middle", x + slot * 0.35)
                svg += """
                    <text x="\(format(labelX))" y="\(format(height - 6))" text-anchor="\(anchor)">\
                    \(HTMLText.escape(bar.label))</text>

                    """
            }
        }
        let peak = maximum.map { _ in "100%" } ?? String(Int(scale.rounded()))
        svg += "<text x=\"2\" y=\"2\" class=\"scale\" dominant-baseline=\"hanging\">\(peak)</text>\n</svg>"
        return svg
    }

    private static func format(_ value: Double) -> String { String(Double(Int(value * 10)) / 10) }
}
