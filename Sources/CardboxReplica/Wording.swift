/// How Cardbox words what it tells people.
public enum Wording {
    /// A count with its noun, singular for one: "1 card", "2 cards", "0 cards". `plural` is for nouns
    /// that do not take an "s" ("1 match", "2 matches").
    public static func counted(_ count: Int, _ noun: String, plural: String? = nil) -> String {
        "\(count) \(count == 1 ? noun : plural ?? noun + "s")"
    }

    /// Choices as a sentence says them: "a, b or c".
    public static func either(_ choices: [String]) -> String {
        guard let last = choices.last, choices.count > 1 else { return choices.first ?? "" }
        return choices.dropLast().joined(separator: ", ") + " or " + last
    }
}
