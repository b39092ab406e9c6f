// The FSRS step's WebAssembly interface, compiled with Sources/CardboxFSRS into one module for the
// browser (Embedded Swift, no allocation): the deck's settings are set once, then each `review`
// takes a card's state as plain numbers and leaves the next state to be read back.
// `Sources/CardboxHTTP/Web/Scripts/scheduler.js` is the page's side of it.

nonisolated(unsafe) var weights = InlineArray<21, Double>(repeating: 0)
nonisolated(unsafe) var desiredRetention = 0.9
nonisolated(unsafe) var maximumInterval = 36_500
/// Learning steps (kind 0) and relearning steps (kind 1), in seconds: at most `maximumSteps` each.
nonisolated(unsafe) var steps = (InlineArray<32, Double>(repeating: 0), InlineArray<32, Double>(repeating: 0))
nonisolated(unsafe) var stepCounts = (0, 0)
nonisolated(unsafe) var result = FSRSStep.Card(due: 0)

@_expose(wasm, "maximumSteps") @_cdecl("maximumSteps")
func maximumSteps() -> Int32 { 32 }

@_expose(wasm, "setWeight") @_cdecl("setWeight")
func setWeight(_ index: Int32, _ value: Double) {
    if index >= 0 && index < 21 { weights[Int(index)] = value }
}

@_expose(wasm, "setRetention") @_cdecl("setRetention")
func setRetention(_ retention: Double, _ longestInterval: Int32) {
    desiredRetention = retention
    maximumInterval = Int(longestInterval)
}

/// Sets the steps of `kind` (0: learning, 1: relearning) to the first `count` set by `setStep`.
@_expose(wasm, "setStepCount") @_cdecl("setStepCount")
func setStepCount(_ kind: Int32, _ count: Int32) {
    let bounded = Int(min(max(count, 0), 32))
    if kind == 0 { stepCounts.0 = bounded } else { stepCounts.1 = bounded }
}

@_expose(wasm, "setStep") @_cdecl("setStep")
func setStep(_ kind: Int32, _ index: Int32, _ seconds: Double) {
    guard index >= 0 && index < 32 else { return }
    if kind == 0 { steps.0[Int(index)] = seconds } else { steps.1[Int(index)] = seconds }
}

/// Reviews a card: `step` −1 and NaN stability, difficulty or last review stand for none. With
/// `fuzz`, the day is drawn from the card's id (two 64-bit halves) and review count, as on a
/// device. Answers the next due time; the rest of the next state is read with the `result…`
/// functions.
@_expose(wasm, "review") @_cdecl("review")
func review(
    _ phase: Int32, _ step: Int32, _ stability: Double, _ difficulty: Double, _ due: Double, _ lastReview: Double,
    _ rating: Int32, _ now: Double, _ fuzz: Int32, _ idHigh: UInt64, _ idLow: UInt64, _ reps: Int64
) -> Double {
    guard rating >= 1 && rating <= 4 else { return .nan }
    let card = FSRSStep.Card(
        phase: FSRSStep.Phase(rawValue: phase) ?? .review, step: step < 0 ? nil : Int(step),
        stability: stability.isNaN ? nil : stability, difficulty: difficulty.isNaN ? nil : difficulty, due: due,
        lastReview: lastReview.isNaN ? nil : lastReview)
    let scheduler = FSRSStep(weights: weights, desiredRetention: desiredRetention, maximumInterval: maximumInterval)
    let draw = FuzzPick(idHigh: idHigh, idLow: idLow, reps: reps)
    result = withSteps(0) { learning in
        withSteps(1) { relearning in
            scheduler.review(
                card, rating: Int(rating), at: now, learningSteps: learning, relearningSteps: relearning,
                fuzz: fuzz != 0, pick: draw.pick)
        }
    }
    return result.due
}

/// The steps of `kind` as a buffer, for the length of `body` (an inline array's elements lie side by
/// side; no copy, no allocation).
func withSteps(_ kind: Int32, _ body: (UnsafeBufferPointer<Double>) -> FSRSStep.Card) -> FSRSStep.Card {
    if kind == 0 {
        let count = stepCounts.0
        return withUnsafePointer(to: &steps.0) { body(elements($0, count)) }
    }
    let count = stepCounts.1
    return withUnsafePointer(to: &steps.1) { body(elements($0, count)) }
}

func elements(_ array: UnsafePointer<InlineArray<32, Double>>, _ count: Int) -> UnsafeBufferPointer<Double> {
    UnsafeBufferPointer(start: UnsafeRawPointer(array).assumingMemoryBound(to: Double.self), count: count)
}

@_expose(wasm, "resultPhase") @_cdecl("resultPhase")
func resultPhase() -> Int32 { result.phase.rawValue }

@_expose(wasm, "resultStep") @_cdecl("resultStep")
func resultStep() -> Int32 { result.step.map { Int32($0) } ?? -1 }

@_expose(wasm, "resultStability") @_cdecl("resultStability")
func resultStability() -> Double { result.stability ?? .nan }

@_expose(wasm, "resultDifficulty") @_cdecl("resultDifficulty")
func resultDifficulty() -> Double { result.difficulty ?? .nan }

/// The probability of recalling a card `days` after a review that left `stability`.
@_expose(wasm, "retrievability") @_cdecl("retrievability")
func retrievability(_ days: Double, _ stability: Double) -> Double {
    FSRSStep(weights: weights, desiredRetention: desiredRetention, maximumInterval: maximumInterval)
        .retrievability(days: days, stability)
}
