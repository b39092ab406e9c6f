import Foundation

/// ISO 8601 times as review files and ListAll exports write them. The UTC form `2025-01-01T09:00:00Z`
/// (optionally with fractional seconds) is parsed by hand: Foundation's formatter goes through ICU and
/// was most of the time of reading a large review file. Other forms (offsets) fall back to the
/// formatter. Either way every field is checked: 31 February or hour 24 is refused, not rolled over.
public enum ISOTime {
    public static func parse(_ text: String) -> Date? {
        let bytes = Array(text.utf8)
        if let date = parseUTC(bytes) { return date }
        // A hand-parsed shape with an impossible field is refused here, not handed to the formatter,
        // which would roll it over into the next month.
        guard !hasUTCShape(bytes) else { return nil }
        guard fields(bytes) != nil else { return nil }
        // Foundation's formatter dies (SIGFPE) on a fraction of dozens of digits (found by fuzzing): the
        // longest form it is given is nine fractional digits and an offset, 35 characters.
        guard bytes.count <= 35 else { return nil }
        let formatter = ISO8601DateFormatter()
        if let date = formatter.date(from: text) { return date }
        formatter.formatOptions = [.withInternetDateTime, .withFractionalSeconds]
        return formatter.date(from: text)
    }

    /// At most this many fractional digits count; more are allowed (ISO 8601 sets no limit) but cannot
    /// change a `Date`, whose resolution is far coarser.
    static let significantFractionDigits = 9

    private static func hasUTCShape(_ bytes: [UInt8]) -> Bool {
        bytes.count >= 20 && bytes.last == UInt8(ascii: "Z") && bytes[4] == UInt8(ascii: "-")
            && bytes[7] == UInt8(ascii: "-") && bytes[10] == UInt8(ascii: "T") && bytes[13] == UInt8(ascii: ":")
            && bytes[16] == UInt8(ascii: ":")
    }

    private static func number(_ bytes: [UInt8], _ range: Range<Int>) -> Int? {
        guard range.upperBound <= bytes.count else { return nil }
        var value = 0
        for index in range {
            let digit = Int(bytes[index]) - 48
            guard (0...9).contains(digit) else { return nil }
            value = value * 10 + digit
        }
        return value
    }

    private static func isDigit(_ byte: UInt8) -> Bool { (UInt8(ascii: "0")...UInt8(ascii: "9")).contains(byte) }

    /// The date and time fields of any `YYYY-MM-DDThh:mm:ss…` text, or nil when one is not a number
    /// or not possible (31 February, hour 24).
    private static func fields(_ bytes: [UInt8]) -> (
        year: Int, month: Int, day: Int, hour: Int, minute: Int, second: Int
    )? {
        guard bytes.count >= 19, let year = number(bytes, 0..<4), let month = number(bytes, 5..<7),
            let day = number(bytes, 8..<10), let hour = number(bytes, 11..<13), let minute = number(bytes, 14..<16),
            let second = number(bytes, 17..<19), (1...12).contains(month), hour < 24, minute < 60, second < 60,
            (1...daysIn(month: month, year: year)).contains(day)
        else { return nil }
        return (year, month, day, hour, minute, second)
    }

    static func daysIn(month: Int, year: Int) -> Int {
        switch month {
        case 2: (year % 4 == 0 && year % 100 != 0) || year % 400 == 0 ? 29 : 28
        case 4, 6, 9, 11: 30
        default: 31
        }
    }

    private static func parseUTC(_ bytes: [UInt8]) -> Date? {
        guard hasUTCShape(bytes), let (year, month, day, hour, minute, second) = fields(bytes) else { return nil }
        var fraction = 0.0
        if bytes.count > 20 {
            let digitCount = bytes.count - 21
            let significant = min(digitCount, significantFractionDigits)
            guard bytes[19] == UInt8(ascii: "."), digitCount > 0,
                let digits = number(bytes, 20..<(20 + significant)),
                bytes[(20 + significant)..<(bytes.count - 1)].allSatisfy(isDigit)
            else { return nil }
            fraction = Double(digits) / pow(10, Double(significant))
        }
        // Days from 1970-01-01 to the date (Howard Hinnant's days_from_civil).
        let y = month <= 2 ? year - 1 : year
        let era = (y >= 0 ? y : y - 399) / 400
        let yearOfEra = y - era * 400
        let dayOfYear = (153 * (month + (month > 2 ? -3 : 9)) + 2) / 5 + day - 1
        let dayOfEra = yearOfEra * 365 + yearOfEra / 4 - yearOfEra / 100 + dayOfYear
        let days = era * 146_097 + dayOfEra - 719_468
        let seconds = Double(days * 86_400 + hour * 3_600 + minute * 60 + second) + fraction
        return Date(timeIntervalSince1970: seconds)
    }
}
