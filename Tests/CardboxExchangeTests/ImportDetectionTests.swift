import CardboxCore
import CardboxExchange
import Foundation
import Testing

@Suite("Telling an import file's format")
struct ImportDetectionTests {
    func detect(_ text: String) throws -> ImportFileFormat {
        try ImportFileFormat.detect(Data(text.utf8), file: "in.json")
    }

    func message(_ text: String) -> String? {
        do {
            _ = try detect(text)
            return nil
        } catch {
            return (error as? CardboxError)?.localizedDescription
        }
    }

    @Test("each format is told from its content")
    func formats() throws {
        #expect(try detect(#"{"version":"1.0","exportDate":"2025-01-01T00:00:00Z","lists":[]}"#) == .listall)
        #expect(try detect(#"  {"lists":[],"version":"1.0"}"#) == .listall)
        #expect(try detect(#"{"name":"Home","lists":[],"cards":[]}"#) == .trello)
        #expect(try detect(#"{"format":"cardbox-backup","version":1}"#) == .backup)
        #expect(try detect("hola\thello\n") == .csv)
        #expect(try detect("\u{FEFF}hola,hello\n") == .csv)
    }

    @Test("a file that looks like JSON but does not parse is refused with its line and column, never read as CSV")
    func truncatedJSON() {
        #expect(
            message(#"{"lists": [ {"title": "x", "#)
                == "in.json: is not valid JSON: ends in the middle of a value at line 1, column 28")
        #expect(
            message("{\n  \"title\": \"1.0\",\n  \"lists\": [x]\n}")
                == "in.json: is not valid JSON: has invalid JSON at line 3, column 13")
    }

    @Test("JSON of no known shape says which shapes are known")
    func unknownShape() {
        #expect(message(#"{"title":"x"}"#)?.hasPrefix("in.json: is JSON, but not a ListAll export") == true)
        #expect(message("[1, 2]")?.hasPrefix("in.json: is JSON, but not") == true)
    }

    @Test("a truncated ListAll file read as ListAll names the line and column too")
    func truncatedListAll() {
        #expect {
            _ = try ListAllFormat.read(Data(#"{"version": "1.0", "lists": [ {"#.utf8), file: "l.json")
        } throws: { error in
            (error as? CardboxError)?.localizedDescription
                == "l.json: is not valid JSON: ends in the middle of a value at line 1, column 32"
        }
    }

    @Test("format detection is guarded against deep nesting and parses nothing")
    func deepNesting() {
        let deep = String(repeating: "[", count: 100_000)
        #expect(!ListAllFormat.matches(Data(deep.utf8)) && !TrelloFormat.matches(Data(deep.utf8)))
        #expect(message(deep)?.contains("nested more than 64 levels") == true)
        let keys = try? InputGuard.topLevelKeys(Data(#"{"a":{"b":1},"c":["d",{"e":2}],"f\"g":3}"#.utf8), file: "x")
        #expect(keys == ["a", "c", "f\\\"g"])
    }
}
