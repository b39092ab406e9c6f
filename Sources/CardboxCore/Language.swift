import CardboxReplica
import Foundation

/// ISO 639-1 language codes: decks have a pair (front = the language being learned, back = the user's).
public enum Language {
    /// Returns the lowercased code when it is an ISO 639-1 code, else an error naming `field`.
    public static func validate(_ code: String, field: String) throws -> String {
        try LanguageNames.validate(code, field: field)
    }

    /// Every code `validate` takes, sorted.
    public static var codes: [String] { iso6391LanguageNames.keys.sorted() }

    /// The English name of a code ("es" → "Spanish"), or the code itself when unknown.
    public static func name(of code: String) -> String { LanguageNames.name(of: code) }
}
