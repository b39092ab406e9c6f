import Foundation

/// A progress bar on standard error, drawn only when it is a terminal (scripts and pipes see nothing).
struct ProgressBar {
    let label: String
    let isTerminal: Bool

    init(label: String, isTerminal: Bool = Terminal.current.errorIsTerminal) {
        self.label = label
        self.isTerminal = isTerminal
    }

    /// `[##########··········]  50%  5,000/10,000 cards`
    static func render(label: String, done: Int, total: Int, width: Int = 30) -> String {
        let fraction = total == 0 ? 1 : min(1, Double(done) / Double(total))
        let filled = Int((fraction * Double(width)).rounded(.down))
        let formatter = NumberFormatter()
        formatter.numberStyle = .decimal
        let count = { (value: Int) in formatter.string(from: NSNumber(value: value)) ?? String(value) }
        return "[" + String(repeating: "#", count: filled) + String(repeating: "·", count: width - filled) + "] "
            + String(format: "%3d%%", Int((fraction * 100).rounded(.down)))
            + "  \(count(done))/\(count(total)) \(label)"
    }

    func update(_ done: Int, _ total: Int) {
        guard isTerminal else { return }
        Terminal.current.writeError(Data(("\r\u{1B}[K" + Self.render(label: label, done: done, total: total)).utf8))
        if done >= total { Terminal.current.writeError(Data("\n".utf8)) }
    }
}
