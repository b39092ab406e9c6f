import ArgumentParser
import CardboxCore
import CardboxStore
import Foundation

struct StatsCommand: StoreCommand {
    static let configuration = CommandConfiguration(
        commandName: "stats", abstract: "Study statistics: reviews, true retention, due forecast, cards by state.",
        discussion: Help.paragraphs(
            """
            Charts cover the last 30 study days and the next 30 (--days changes both); --json gives
            the numbers. A study day starts at the dayStartHour setting, in local time.

            Examples:
              cardbox stats Spanish
              cardbox stats --days 7 --json
            """))
    @OptionGroup var global: GlobalOptions
    @OptionGroup var output: OutputOptions
    @Argument(help: "The deck (id or name); every deck when left out.") var deck: String?
    @Option(help: "How many study days back and ahead the figures cover (1 to 3650).") var days = 30

    func run(store: CardboxStore) throws {
        try Console.emit(
            try store.stats(in: try deck.map { try store.resolve($0) }, days: days), json: output.json, Self.describe)
    }

    static func describe(_ stats: StudyStats) -> String {
        let total = stats.reviewsPerDay.map(\.count).reduce(0, +)
        let due = stats.dueForecast.map(\.count).reduce(0, +)
        var lines = ["Reviews per day, last \(Wording.counted(stats.days, "day")) (\(total) in all)"]
        lines += Chart.columns(stats.reviewsPerDay)
        lines += [
            "",
            "Due forecast, next \(Wording.counted(stats.days, "day")) (\(Wording.counted(due, "card")); today includes overdue)",
        ]
        lines += Chart.columns(stats.dueForecast)
        lines += [
            "", "True retention (reviews of review cards rated Hard or better)",
            "  last \(Wording.counted(stats.days, "day")): \(Chart.percent(stats.retentionRecent))",
            "  all time:     \(Chart.percent(stats.retentionAllTime))", "", "Cards by state",
        ]
        let states = ["new", "learning", "review", "relearning", "archived"]
        lines += Chart.bars(states.map { ($0, stats.cardCounts[$0] ?? 0) })
        return lines.joined(separator: "\n")
    }
}

/// Charts drawn with block characters.
enum Chart {
    static let levels: [Character] = [" ", "▁", "▂", "▃", "▄", "▅", "▆", "▇", "█"]

    /// A column chart four rows high, one column per day, with the first and last day under it.
    static func columns(_ days: [DayCount]) -> [String] {
        let peak = max(days.map(\.count).max() ?? 0, 1)
        let height = 4
        var rows: [String] = []
        for row in (0..<height).reversed() {
            let line = days.map { day -> String in
                let eighths = Int((Double(day.count) / Double(peak) * Double(height * 8)).rounded(.up))
                let filled = min(max(eighths - row * 8, 0), 8)
                return String(levels[day.count > 0 && row == 0 ? max(filled, 1) : filled])
            }.joined()
            rows.append("  " + line + (row == height - 1 ? "  \(peak)" : ""))
        }
        let formatter = DateFormatter()
        formatter.dateFormat = "MMM d"
        let first = days.first.map { formatter.string(from: $0.day) } ?? ""
        let last = days.last.map { formatter.string(from: $0.day) } ?? ""
        let gap = max(1, days.count - first.count - last.count)
        rows.append("  " + first + String(repeating: " ", count: gap) + last)
        return rows
    }

    /// Horizontal bars, 40 characters for the largest value.
    static func bars(_ values: [(String, Int)]) -> [String] {
        let peak = max(values.map(\.1).max() ?? 0, 1)
        let width = values.map(\.0.count).max() ?? 0
        return values.map { name, value in
            let length = Int((Double(value) / Double(peak) * 40).rounded())
            return "  " + name.padding(toLength: width, withPad: " ", startingAt: 0) + "  "
                + String(repeating: "█", count: length) + (length > 0 ? " " : "") + "\(value)"
        }
    }

    static func percent(_ retention: Retention) -> String {
        guard let rate = retention.rate else { return "no reviews of review cards yet" }
        return String(format: "%.1f%%", rate * 100) + " (\(retention.passed) of \(retention.reviews))"
    }
}
