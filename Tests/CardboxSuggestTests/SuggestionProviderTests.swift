import CardboxCore
import CardboxImaging
import CardboxStore
import Foundation
import Testing

@testable import CardboxSuggest

@Suite("The offline suggestion provider on Debian's dictionaries")
struct OfflineProviderTests {
    let provider = DictionarySuggestionProvider()

    func request(
        _ cards: [(String, String)], front: String = "es", back: String = "en", limit: Int = 10,
        excluded: Set<String> = []
    ) -> SuggestionRequest {
        SuggestionRequest(
            deckName: "D", frontLanguage: front, backLanguage: back,
            cards: cards.map { .init(front: $0.0, back: $0.1) }, limitPerCategory: limit, excludedFronts: excluded)
    }

    @Test("a Spanish–English deck with 'el perro' gets real, correctly translated cards")
    func perro() async throws {
        let candidates = try await provider.candidates(for: request([("el perro", "dog")]))
        let lexicon = try BilingualLexicon(language: "es", folder: RealDictionaries.dictd)
        let byCategory = Dictionary(grouping: candidates, by: \.category)
        #expect(!(byCategory[.relatedVocabulary] ?? []).isEmpty)
        // WordNet's example sentences are English: not a front of a Spanish-front deck.
        #expect(byCategory[.usageExamples] == nil)
        for draft in candidates {
            // Every word card is a pair both of FreeDict's dictionaries agree on.
            #expect(lexicon.english(for: draft.front).contains(draft.back), "\(draft.front) → \(draft.back)")
            #expect(!draft.context.isEmpty)
            #expect(draft.imagePrompt?.isEmpty == false)
        }
        #expect(!candidates.contains { SuggestionMatch.frontKey($0.front) == "perro" })
        #expect(candidates.contains { $0.front == "lobo" && $0.back == "wolf" })
    }

    @Test("a deck of a few words gets every category its front language allows, each with its reason")
    func allCategories() async throws {
        let candidates = try await provider.candidates(for: request(OfflineProviderTests.fourWords))
        let byCategory = Dictionary(grouping: candidates, by: \.category)
        #expect(Set(byCategory.keys) == Set(SuggestionCategory.allCases).subtracting([.usageExamples]))
        let english = try await provider.candidates(
            for: request(OfflineProviderTests.fourWords.map { ($0.1, $0.0) }, front: "en", back: "es"))
        #expect(Set(english.map(\.category)) == Set(SuggestionCategory.allCases))
        #expect(english.contains { $0.category == .usageExamples && $0.front.hasPrefix("the ___ barked all night") })
        #expect(
            byCategory[.progressiveComplexity]?.contains {
                $0.front == "desayuno" && $0.context == "More specific than 'comer' (eat): to breakfast is a way to eat"
            } == true)
        #expect(
            byCategory[.relatedVocabulary]?.contains {
                $0.front == "construcción" && $0.context.contains("a house is a kind of building")
            } == true)
    }

    static let fourWords = [("el perro", "dog"), ("grande", "big"), ("la casa", "house"), ("comer", "to eat")]

    @Test("opposites come from WordNet's antonyms, translated")
    func opposites() async throws {
        let candidates = try await provider.candidates(for: request([("grande", "big")]))
        let opposites = candidates.filter { $0.category == .opposites }
        // "grande" is "big" (whose WordNet antonym is "little") and "large" (whose antonym is "small").
        #expect(opposites.contains { $0.back == "little" && ["pequeño", "chico"].contains($0.front) })
        #expect(opposites.allSatisfy { $0.context.contains("opposite of 'grande'") })
    }

    @Test("an English-front deck puts the English word first")
    func englishFront() async throws {
        let candidates = try await provider.candidates(for: request([("big", "grande")], front: "en", back: "es"))
        #expect(candidates.contains { $0.category == .opposites && $0.front == "small" })
    }

    @Test("an English-only deck: the word, and its WordNet definition on the back")
    func englishOnly() async throws {
        let candidates = try await provider.candidates(for: request([("dog", "a pet")], front: "en", back: "en"))
        let canine = try #require(candidates.first { $0.front == "canine" })
        #expect(canine.back.hasPrefix("any of various fissiped mammals"))
    }

    @Test("excluded fronts and the limit per category are kept")
    func exclusions() async throws {
        let all = try await provider.candidates(for: request([("el perro", "dog")], limit: 3))
        #expect(Dictionary(grouping: all, by: \.category).values.allSatisfy { $0.count <= 3 })
        let first = try #require(all.first)
        let again = try await provider.candidates(
            for: request([("el perro", "dog")], limit: 3, excluded: [SuggestionMatch.frontKey(first.front)]))
        #expect(!again.contains { $0.front == first.front })
        #expect(Set(all.map(\.front)).count == all.count)
    }

    @Test("a language pair without dictionaries says so")
    func noDictionary() async throws {
        await #expect(throws: CardboxError.self) {
            _ = try await provider.candidates(for: request([("el perro", "der Hund")], front: "es", back: "de"))
        }
        do {
            _ = try await provider.candidates(for: request([("el perro", "der Hund")], front: "es", back: "de"))
        } catch {
            #expect("\(error)".contains("Spanish–German"))
            #expect("\(error)".contains("must be English"))
        }
        do {
            _ = try await provider.candidates(for: request([("kot", "cat")], front: "uk", back: "en"))
            Issue.record("Ukrainian has no FreeDict dictionary")
        } catch {
            #expect("\(error)".contains("no FreeDict dictionary between Ukrainian and English"))
        }
        // Italian exists in FreeDict, but its package is not installed here.
        do {
            _ = try await provider.candidates(for: request([("il cane", "dog")], front: "it", back: "en"))
            Issue.record("no Italian dictionary is installed")
        } catch {
            #expect("\(error)".contains("apt install dict-freedict-ita-eng dict-freedict-eng-ita"))
        }
    }
}

@Suite("Seed 000's suggestion maintenance")
struct SuggestionMaintenanceTests {
    func store(queued: Int, cards: [(String, String)] = OfflineProviderTests.fourWords) throws
        -> CardboxStore
    {
        let store = try CardboxStore.inMemory()
        let deck = try store.createDeck(
            name: "Spanish", frontLanguage: "es", backLanguage: "en", queuedSuggestions: queued)
        for (front, back) in cards { _ = try store.addCard(to: deck.id, CardDraft(front: front, back: back)) }
        return store
    }

    @Test("fills the queue to queuedSuggestions, invisible until their images, spread over the categories")
    func fills() async throws {
        let store = try store(queued: 8)
        let deck = try store.resolve("Spanish") as DeckID
        let report = try await SuggestionMaintenance.refill(deck, in: store, provider: DictionarySuggestionProvider())
        #expect(report.added.count == 8)
        #expect(report.queuedAfter == 8)
        #expect(report.added.allSatisfy { !$0.isVisible })
        let perCategory = Dictionary(grouping: report.added, by: \.category).mapValues(\.count)
        #expect(perCategory.count == 3)  // no usage examples in a Spanish-front deck
        #expect(perCategory.values.allSatisfy { (2...3).contains($0) })
        let again = try await SuggestionMaintenance.refill(deck, in: store, provider: DictionarySuggestionProvider())
        #expect(again.added.isEmpty)
        #expect(try store.suggestions(in: deck, includeAll: true).count == 8)
    }

    @Test("a queue is spread over the deck's cards, not drawn from the newest alone")
    func spread() async throws {
        let store = try store(queued: 4)
        let deck = try store.resolve("Spanish") as DeckID
        let report = try await SuggestionMaintenance.refill(deck, in: store, provider: DictionarySuggestionProvider())
        #expect(report.added.count == 4)
        let request = SuggestionRequest(
            deckName: "D", frontLanguage: "es", backLanguage: "en",
            cards: OfflineProviderTests.fourWords.reversed().map { .init(front: $0.0, back: $0.1) },
            limitPerCategory: 4, excludedFronts: [])
        let drafts = SuggestionMaintenance.balanced(
            try await DictionarySuggestionProvider().candidates(for: request), queued: [:], needed: 4)
        #expect(Set(drafts.compactMap(\.seed)).count >= 3, "\(drafts.map { "\($0.front) from \($0.seed ?? "-")" })")
    }

    @Test("never proposes a front that is a card, a queued or a rejected suggestion of the deck")
    func dedupe() async throws {
        let store = try store(queued: 6)
        let deck = try store.resolve("Spanish") as DeckID
        let provider = DictionarySuggestionProvider()
        let first = try await SuggestionMaintenance.refill(deck, in: store, provider: provider)
        let picture = try ImageIngest.sample(width: 8, height: 6, format: .png)
        let rejected = try store.markSuggestionReady(first.added[0].id, image: picture)
        _ = try store.rejectSuggestion(rejected.id)
        let accepted = try store.markSuggestionReady(first.added[1].id, image: picture)
        _ = try store.acceptSuggestion(accepted.id)
        let second = try await SuggestionMaintenance.refill(deck, in: store, provider: provider)
        #expect(second.added.count == 2)
        let fronts = second.added.map { SuggestionMatch.frontKey($0.front) }
        #expect(!fronts.contains(SuggestionMatch.frontKey(rejected.front)))
        #expect(!fronts.contains(SuggestionMatch.frontKey(accepted.front)))
        let queued = try store.suggestions(in: deck, includeAll: true).map { SuggestionMatch.frontKey($0.front) }
        #expect(Set(queued).count == queued.count)
    }

    @Test("queuedSuggestions 0 turns it off; an empty deck has nothing to relate to")
    func off() async throws {
        let off = try store(queued: 0)
        let report = try await SuggestionMaintenance.refill(
            try off.resolve("Spanish"), in: off, provider: DictionarySuggestionProvider())
        #expect(report.added.isEmpty)
        #expect(report.note?.contains("automatic suggestions are off") == true)
        let empty = try store(queued: 3, cards: [])
        let nothing = try await SuggestionMaintenance.refill(
            try empty.resolve("Spanish"), in: empty, provider: DictionarySuggestionProvider())
        #expect(nothing.added.isEmpty)
        #expect(nothing.note?.contains("no cards") == true)
    }

    @Test("balancing: the emptiest category first, others make up for one with no candidates")
    func balancing() {
        func drafts(_ category: SuggestionCategory, _ count: Int) -> [SuggestionDraft] {
            (0..<count).map { SuggestionDraft(front: "\(category.rawValue)\($0)", back: "x", category: category) }
        }
        let candidates = drafts(.relatedVocabulary, 5) + drafts(.usageExamples, 5) + drafts(.progressiveComplexity, 1)
        let chosen = SuggestionMaintenance.balanced(
            candidates, queued: [.relatedVocabulary: 2, .opposites: 0], needed: 5)
        let counts = Dictionary(grouping: chosen, by: \.category).mapValues(\.count)
        #expect(counts == [.usageExamples: 3, .progressiveComplexity: 1, .relatedVocabulary: 1])
        #expect(chosen.first?.category == .usageExamples)
    }
}
