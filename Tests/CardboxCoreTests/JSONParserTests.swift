import CardboxCore
import Foundation
import Testing

@Suite("JSON parser")
struct JSONParserTests {
    @Test(
        "reads what Foundation's decoder reads, alike",
        arguments: [
            #"{"a":[1,2.5,-0,1e3,2.0,true,false,null,"x\u00e9\ud83d\ude00\n\"\\\/"],"b":{}}"#,
            " [ ] ", #""\u0000""#, "9223372036854775807", "-9223372036854775808", "9223372036854775808", "0.1",
            "-12.5e-3", "1E2", #"{"a":1,"a":2}"#, #"{"a":{"x":1},"a":2}"#, "[[[[[[[[[[]]]]]]]]]]", #""日本語 ✓""#,
        ])
    func agreesWithFoundation(_ text: String) throws {
        let ours = try JSONParser.parse(text)
        #expect(ours == (try JSONDecoder().decode(JSONValue.self, from: Data(text.utf8))))
        #expect(try JSONParser.parse(ours.jsonText) == ours)
    }

    @Test(
        "refuses what is not JSON, naming the byte",
        arguments: [
            ("[1,]", 3), ("01", 1), ("\"a\tb\"", 2), ("1 2", 2), ("[1e400]", 6), (#""\ud800""#, 7), ("{\"a\" 1}", 5),
            ("tru", 0), ("", 0), ("[", 1), ("\"abc", 4), ("-", 1), ("1.", 2), ("{1:2}", 1), (#""\x""#, 3),
        ])
    func refuses(_ text: String, _ offset: Int) {
        #expect {
            try JSONParser.parse(text)
        } throws: { error in
            (error as? JSONParser.Failure)?.offset == offset
        }
        // Foundation allows a trailing comma; RFC 8259 does not.
        if text != "[1,]" { #expect((try? JSONDecoder().decode(JSONValue.self, from: Data(text.utf8))) == nil) }
    }

    @Test("refuses nesting deeper than 512 levels, and reads 512")
    func depth() throws {
        let deepest = String(repeating: "[", count: 512) + String(repeating: "]", count: 512)
        #expect(throws: Never.self) { try JSONParser.parse(deepest) }
        #expect(throws: JSONParser.Failure.self) { try JSONParser.parse("[" + deepest + "]") }
    }
}
