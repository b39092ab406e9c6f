import CardboxCore
import CardboxStore
import Foundation

/// A deck as page headings and rows show it.
struct DeckHeading: Encodable {
    let id: String
    let name: String
    let frontLanguage: String
    let backLanguage: String
    /// "Spanish → English".
    let languages: String

    init(_ deck: Deck) {
        id = deck.id.description
        name = deck.name
        frontLanguage = deck.frontLanguage
        backLanguage = deck.backLanguage
        languages = PageText.languagePair(deck.frontLanguage, deck.backLanguage)
    }
}

/// A deck's size, and what is left to study today: due (learning and review) and new cards.
struct DeckCountsView: Encodable {
    let current: Int
    let due: Int
    let new: Int
    let canStudy: Bool

    init(_ counts: DeckCounts, _ today: StudyCounts) {
        current = counts.currentCards
        due = today.learning + today.review
        new = today.new
        canStudy = due + today.new > 0
    }
}

/// A language in a menu of names.
struct LanguageChoice: Encodable {
    let code: String
    let name: String
    let selected: Bool

    /// Every ISO 639-1 language by name, `selected` chosen.
    static func all(selected: String) -> [LanguageChoice] {
        byName.map { LanguageChoice(code: $0.code, name: $0.name, selected: $0.code == selected) }
    }

    private static let byName = LanguageNames.byName
}

/// An option of a `<select>` whose values are not languages.
struct MenuOption: Encodable {
    let value: String
    let label: String
    let selected: Bool
}

/// Texts every page writes the same way.
enum PageText {
    /// A deck's languages as every page shows them: "Spanish → English".
    static func languagePair(_ front: String, _ back: String) -> String { LanguageNames.pair(front, back) }

    /// A moment as people read it, in the account's zone (the browser's, given at sign-in):
    /// "26 Nov 2026, 14:32".
    static func time(_ date: Date, _ zone: TimeZone) -> String {
        date.formatted(
            Date.VerbatimFormatStyle(
                format: """
                    \(day: .defaultDigits) \(month: .abbreviated) \(year: .defaultDigits), \
                    \(hour: .twoDigits(clock: .twentyFourHour, hourCycle: .zeroBased)):\(minute: .twoDigits)
                    """, locale: Locale(identifier: "en_GB"), timeZone: zone, calendar: Calendar(identifier: .gregorian)
            ))
    }

    /// A study day's date in the account's zone: "2026-11-26".
    static func day(_ date: Date, _ zone: TimeZone) -> String {
        date.formatted(Date.ISO8601FormatStyle(timeZone: zone).year().month().day().dateSeparator(.dash))
    }
}
