import CardboxCore
import Foundation
import Synchronization

/// One card's reviews in order: whole days since the previous review (0 for the first) and the rating.
public struct ReviewHistory: Sendable, Equatable {
    public var reviews: [(elapsedDays: Int, rating: Rating)]

    public init(_ reviews: [(elapsedDays: Int, rating: Rating)]) { self.reviews = reviews }

    public static func == (lhs: ReviewHistory, rhs: ReviewHistory) -> Bool {
        lhs.reviews.elementsEqual(rhs.reviews) { $0.elapsedDays == $1.elapsedDays && $0.rating == $1.rating }
    }

    /// Histories from timestamped reviews (any order), elapsed time counted in whole 24-hour periods.
    public static func from(_ reviews: [(card: String, rating: Rating, time: Date)]) -> [ReviewHistory] {
        var byCard: [String: [(rating: Rating, time: Date)]] = [:]
        var order: [String] = []
        for review in reviews {
            if byCard[review.card] == nil { order.append(review.card) }
            byCard[review.card, default: []].append((review.rating, review.time))
        }
        return order.map { card in
            let sorted = byCard[card]!.sorted { $0.time < $1.time }
            var previous: Date?
            return ReviewHistory(
                sorted.map { review in
                    defer { previous = review.time }
                    return (previous.map { Scheduler.wholeDays(from: $0, to: review.time) } ?? 0, review.rating)
                })
        }
    }
}

/// How well parameters predict recall: mean log loss, and RMSE(bins) as the FSRS benchmark computes
/// it (predictions grouped by interval, review count and lapses, weighted by group size).
public struct ModelMetrics: Sendable, Codable, Equatable {
    public var logLoss: Double
    public var rmseBins: Double
    /// Reviews predicted (those at least a day after the card's previous review).
    public var reviews: Int

    public init(logLoss: Double, rmseBins: Double, reviews: Int) {
        self.logLoss = logLoss
        self.rmseBins = rmseBins
        self.reviews = reviews
    }
}

public struct FitResult: Sendable, Equatable {
    public var parameters: [Double]
    public var before: ModelMetrics
    public var after: ModelMetrics

    public init(parameters: [Double], before: ModelMetrics, after: ModelMetrics) {
        self.parameters = parameters
        self.before = before
        self.after = after
    }

    /// Whether the fitted parameters predict the reviews better (a lower log loss) than those the fit
    /// started from: only then are they worth storing.
    public var improves: Bool { after.logLoss < before.logLoss }

    /// A deck's study settings with the fitted parameters when they are better; nil keeps the deck's
    /// settings as they are.
    public func adopted(by settings: StudySettings) -> StudySettings? {
        guard improves else { return nil }
        var adopted = settings
        adopted.fsrsParameters = parameters
        return adopted
    }
}

/// Fits FSRS-6's 21 parameters to review histories, as fsrs-rs does: the initial stabilities (w0…w3)
/// from each first rating's second reviews, then the rest by Adam on the log loss (cosine-annealed
/// learning rate), every step clamped to FSRS's bounds. Gradients come from reverse-mode
/// differentiation over each card's history (`ReverseGradient`).
public struct FSRSOptimizer: Sendable {
    /// Fewer usable reviews than this give parameters that fit noise; Anki asks for a few hundred too.
    public static let minimumReviews = 400

    public var epochs = 5
    public var learningRate = 0.04
    public var batchSize = 512
    public var seed: UInt64 = 42

    public init() {}

    public func fit(
        _ histories: [ReviewHistory], from start: [Double] = FSRSParameters.defaultValues,
        progress: ((Int, Int) -> Void)? = nil
    ) throws -> FitResult {
        let bins = BinTable(histories)
        let before = Self.evaluate(start, on: histories, bins: bins)
        guard before.reviews >= Self.minimumReviews else {
            throw SchedulingError.invalidOption(
                "not enough reviews to optimize: \(before.reviews) usable reviews (at least a day after the card's "
                    + "previous review); at least \(Self.minimumReviews) are needed")
        }
        var weights = Self.pretrainInitialStabilities(histories, from: start)
        var adam = Adam(learningRate: learningRate)
        var random = SplitMix64(state: seed)
        let totalSteps = max(1, epochs * max(1, before.reviews / batchSize))
        let predicted = histories.map { $0.reviews.dropFirst().count { $0.elapsedDays > 0 } }
        var step = 0
        for epoch in 0..<epochs {
            progress?(epoch + 1, epochs)
            // Batches of at least `batchSize` predicted reviews, histories whole, in a shuffled order.
            let order = histories.indices.shuffled(using: &random)
            var batchStart = 0
            var batchItems = 0
            for (position, index) in order.enumerated() {
                batchItems += predicted[index]
                guard batchItems >= batchSize || position == order.count - 1 else { continue }
                if batchItems > 0 {
                    let gradient = Self.gradient(weights, on: order[batchStart...position].lazy.map { histories[$0] })
                    weights = adam.step(weights, gradient: gradient / Double(batchItems), step: step, of: totalSteps)
                    step += 1
                }
                batchStart = position + 1
                batchItems = 0
            }
        }
        return FitResult(parameters: weights, before: before, after: Self.evaluate(weights, on: histories, bins: bins))
    }

    /// `work` over each of `parts` consecutive pieces of `items`, at once on as many threads (a
    /// fit's evaluations, a review file's lines: two cores halve them); results in the pieces'
    /// order.
    static func inParts<Item: Sendable, Part: Sendable>(
        _ items: [Item], parts: Int = ProcessInfo.processInfo.activeProcessorCount,
        _ work: @Sendable ([Item]) -> Part
    ) -> [Part] {
        let count = max(1, min(parts, items.count / 16))
        guard count > 1 else { return [work(items)] }
        let results = Mutex<[Part?]>(Array(repeating: nil, count: count))
        DispatchQueue.concurrentPerform(iterations: count) { part in
            let piece = Array(items[items.count * part / count..<items.count * (part + 1) / count])
            let result = work(piece)
            results.withLock { $0[part] = result }
        }
        return results.withLock { $0.map { $0! } }
    }

    /// The gradient of the summed log loss over `histories` (`totalLoss`), by reverse-mode
    /// differentiation (`ReverseGradient`). On one thread: a batch takes tens of microseconds, and
    /// handing half of it to another core cost as much as it saved.
    static func gradient(_ parameters: [Double], on histories: some Collection<ReviewHistory>) -> Gradient {
        var reverse = ReverseGradient(parameters)
        for history in histories { reverse.add(history) }
        return reverse.gradient
    }

    /// The same gradient by forward-mode differentiation (`Model<Dual>`): slower, and simple enough
    /// to be the check of the reverse mode's derivatives.
    static func forwardModeGradient(_ parameters: [Double], on histories: [ReviewHistory]) -> Gradient {
        let model = Model<Dual>(differentiating: parameters)
        var total = Dual(0)
        for history in histories { _ = model.loss(history, into: &total) }
        return total.gradient
    }

    public static func evaluate(_ parameters: [Double], on histories: [ReviewHistory]) -> ModelMetrics {
        evaluate(parameters, on: histories, bins: BinTable(histories))
    }

    /// As `evaluate(_:on:)`, with the predictions' bins found already (a fit evaluates twice).
    static func evaluate(_ parameters: [Double], on histories: [ReviewHistory], bins: BinTable) -> ModelMetrics {
        typealias Tally = (loss: Double, count: Int, bins: [(count: Double, predicted: Double, actual: Double)])
        let tallies = inParts(Array(histories.indices)) { piece -> Tally in
            let model = Model<Double>(parameters)
            var tally: Tally = (0, 0, Array(repeating: (0, 0, 0), count: bins.order.count))
            for index in piece {
                var next = bins.firstPrediction[index]
                model.predictions(histories[index]) { recall, remembered, _, _, _ in
                    let bin = Int(bins.numbers[next])
                    next += 1
                    tally.loss -= remembered ? log(recall) : log(1 - recall)
                    tally.count += 1
                    tally.bins[bin].count += 1
                    tally.bins[bin].predicted += recall
                    tally.bins[bin].actual += remembered ? 1 : 0
                }
            }
            return tally
        }
        let loss = tallies.reduce(0) { $0 + $1.loss }
        let count = tallies.reduce(0) { $0 + $1.count }
        var squared = 0.0
        // Summed in a fixed order, so the same data always gives the same figure to the last digit.
        for bin in bins.order {
            let (binCount, predicted, actual) = tallies.reduce((0.0, 0.0, 0.0)) {
                ($0.0 + $1.bins[bin].count, $0.1 + $1.bins[bin].predicted, $0.2 + $1.bins[bin].actual)
            }
            guard binCount > 0 else { continue }
            squared += binCount * pow(predicted / binCount - actual / binCount, 2)
        }
        return ModelMetrics(
            logLoss: count == 0 ? 0 : loss / Double(count), rmseBins: count == 0 ? 0 : sqrt(squared / Double(count)),
            reviews: count)
    }

    /// The RMSE bin of every predicted review, found once: bins depend on the reviews only (their
    /// gap, the card's lapses so far and its review count), never on the parameters.
    struct BinTable {
        /// Bin numbers in the bins' key order (lapses, days, reviews): every bin once.
        let order: [Int]
        /// The bin number of each predicted review, history after history.
        let numbers: [Int32]
        /// Where each history's predictions start in `numbers`.
        let firstPrediction: [Int]

        init(_ histories: [ReviewHistory]) {
            var keys: [Bin] = []
            var numbers: [Int32] = []
            var firstPrediction: [Int] = []
            var found: [Bin: Int32] = [:]
            var cases: [SIMD3<Int>: Int32] = [:]
            // Which reviews are predicted does not depend on the parameters either.
            let model = Model<Double>(FSRSParameters.defaultValues)
            for history in histories {
                firstPrediction.append(numbers.count)
                model.predictions(history) { _, _, lapses, days, index in
                    let place = SIMD3(lapses, days, index)
                    if let number = cases[place] { return numbers.append(number) }
                    let bin = Bin(lapses: lapses, days: days, reviews: index)
                    let number: Int32
                    if let known = found[bin] {
                        number = known
                    } else {
                        number = Int32(keys.count)
                        found[bin] = number
                        keys.append(bin)
                    }
                    cases[place] = number
                    numbers.append(number)
                }
            }
            (self.numbers, self.firstPrediction) = (numbers, firstPrediction)
            order = keys.indices.sorted {
                (keys[$0].lapses, keys[$0].days, keys[$0].reviews) < (keys[$1].lapses, keys[$1].days, keys[$1].reviews)
            }
        }
    }

    /// The summed log loss over all predicted reviews (for checks of the gradient).
    static func totalLoss(_ parameters: [Double], on histories: [ReviewHistory]) -> Double {
        let model = Model<Double>(parameters)
        var total = 0.0
        for history in histories { _ = model.loss(history, into: &total) }
        return total
    }

    /// w0…w3: for each first rating, the stability whose forgetting curve best fits the first review
    /// a day or more later (same-day learning steps in between are passed over, as fsrs-rs does);
    /// golden-section search on log stability, kept increasing from Again to Easy. A rating with
    /// fewer than 20 such reviews keeps its starting value.
    static func pretrainInitialStabilities(_ histories: [ReviewHistory], from start: [Double]) -> [Double] {
        var weights = start
        let decay = -start[20]
        let factor = pow(0.9, 1 / decay) - 1
        // The reviews grouped by their gap: each loss below is a sum over a few dozen gaps, not over
        // every card (the same sum, grouped).
        var groups: [[Int: (remembered: Double, forgotten: Double)]] = Array(repeating: [:], count: 4)
        var counts = [0, 0, 0, 0]
        for history in histories {
            guard let first = history.reviews.first,
                let later = history.reviews.dropFirst().first(where: { $0.elapsedDays > 0 })
            else { continue }
            let rating = first.rating.rawValue - 1
            counts[rating] += 1
            if later.rating != .again {
                groups[rating][later.elapsedDays, default: (0, 0)].remembered += 1
            } else {
                groups[rating][later.elapsedDays, default: (0, 0)].forgotten += 1
            }
        }
        for rating in 0..<4 where counts[rating] >= 20 {
            let samples = groups[rating].sorted { $0.key < $1.key }.map { (days: Double($0.key), counts: $0.value) }
            func loss(_ logStability: Double) -> Double {
                let stability = exp(logStability)
                return samples.reduce(0) { sum, sample in
                    let recall = min(max(pow(1 + factor * sample.days / stability, decay), 1e-6), 1 - 1e-6)
                    return sum - sample.counts.remembered * log(recall) - sample.counts.forgotten * log(1 - recall)
                }
            }
            var (low, high) = (log(FSRSParameters.lowerBounds[rating]), log(FSRSParameters.upperBounds[rating]))
            let ratio = (sqrt(5) - 1) / 2
            // Each narrowing keeps one of the two inner points, and its loss: one new loss a step.
            var (a, b) = (high - ratio * (high - low), low + ratio * (high - low))
            var (lossA, lossB) = (loss(a), loss(b))
            for _ in 0..<60 {
                if lossA < lossB {
                    (high, b, lossB) = (b, a, lossA)
                    a = high - ratio * (high - low)
                    lossA = loss(a)
                } else {
                    (low, a, lossA) = (a, b, lossB)
                    b = low + ratio * (high - low)
                    lossB = loss(b)
                }
            }
            weights[rating] = exp((low + high) / 2)
        }
        for rating in 1..<4 { weights[rating] = max(weights[rating], weights[rating - 1]) }
        return weights
    }

    struct Bin: Hashable {
        var lapses: Double
        var days: Double
        var reviews: Double

        init(lapses: Int, days: Int, reviews: Int) {
            func bucket(_ value: Int, _ scale: Double, _ base: Double, places: Double) -> Double {
                guard value > 0 else { return 0 }
                let raw = scale * pow(base, floor(log(Double(value)) / log(base)))
                return (raw * places).rounded() / places
            }
            self.lapses = bucket(lapses, 1.65, 1.73, places: 1)
            self.days = bucket(days, 2.48, 3.62, places: 100)
            self.reviews = bucket(reviews, 1.99, 1.89, places: 1)
        }
    }
}

/// The FSRS-6 forward pass over one card's history: in plain numbers to evaluate parameters, in dual
/// numbers (`Model<Dual>`) for the gradient too.
private struct Model<Number: ModelNumber> {
    let w: [Number]
    let decay: Number
    let factor: Number
    /// The initial difficulty of Easy, which every difficulty update reverts towards.
    let easyInitialDifficulty: Number

    init(_ w: [Number]) {
        self.w = w
        decay = -w[20]
        factor = Number.pow(0.9, Number(1) / decay) - 1
        easyInitialDifficulty = w[4] - Number.exp(w[5] * 3) + 1
    }

    func initialDifficulty(_ rating: Int) -> Number { w[4] - Number.exp(w[5] * Double(rating - 1)) + 1 }

    func nextDifficulty(_ difficulty: Number, _ rating: Int) -> Number {
        let delta = -(w[6] * Double(rating - 3))
        let damped = difficulty + (10 - difficulty) * delta / 9
        return (w[7] * easyInitialDifficulty + (1 - w[7]) * damped).clamped(1, 10)
    }

    func shortTermStability(_ stability: Number, _ rating: Int) -> Number {
        var increase = Number.exp(w[17] * (w[18] + Double(rating - 3))) * Number.pow(stability, -w[19])
        if rating > 1 { increase = Number.max(increase, 1) }
        return (stability * increase).clamped(FSRSParameters.stabilityMinimum, .infinity)
    }

    func nextStability(_ difficulty: Number, _ stability: Number, _ recall: Number, _ rating: Int) -> Number {
        if rating == 1 {
            let longTerm =
                w[11] * Number.pow(difficulty, -w[12]) * (Number.pow(stability + 1, w[13]) - 1)
                * Number.exp((1 - recall) * w[14])
            return Number.min(longTerm, stability / Number.exp(w[17] * w[18])).clamped(
                FSRSParameters.stabilityMinimum, .infinity)
        }
        var growth =
            Number.exp(w[8]) * (11 - difficulty) * Number.pow(stability, -w[9]) * (Number.exp((1 - recall) * w[10]) - 1)
        if rating == 2 { growth = growth * w[15] }
        if rating == 4 { growth = growth * w[16] }
        return (stability * (growth + 1)).clamped(FSRSParameters.stabilityMinimum, .infinity)
    }

    /// Walks the history, calling `observe` with each predicted recall (reviews a day or more apart),
    /// whether it was remembered, and what places it in a bin: lapses so far, days since the previous
    /// review, its position in the history.
    func predictions(
        _ history: ReviewHistory, observe: (Number, Bool, _ lapses: Int, _ days: Int, _ index: Int) -> Void
    ) {
        guard let first = history.reviews.first else { return }
        var stability = w[first.rating.rawValue - 1].clamped(FSRSParameters.stabilityMinimum, .infinity)
        var difficulty = initialDifficulty(first.rating.rawValue).clamped(1, 10)
        var lapses = first.rating == .again ? 1 : 0
        for (index, review) in history.reviews.enumerated().dropFirst() {
            let rating = review.rating.rawValue
            if review.elapsedDays == 0 {
                stability = shortTermStability(stability, rating)
            } else {
                let recall = Number.pow(1 + factor * Double(review.elapsedDays) / stability, decay).clamped(
                    1e-6, 1 - 1e-6)
                observe(recall, rating > 1, lapses, review.elapsedDays, index)
                stability = nextStability(difficulty, stability, recall, rating)
            }
            difficulty = nextDifficulty(difficulty, rating)
            if rating == 1 { lapses += 1 }
        }
    }

    /// Adds this history's log loss to `total`; returns how many reviews it predicted.
    func loss(_ history: ReviewHistory, into total: inout Number) -> Int {
        var count = 0
        predictions(history) { recall, remembered, _, _, _ in
            total = total - (remembered ? Number.log(recall) : Number.log(1 - recall))
            count += 1
        }
        return count
    }
}

extension Model<Dual> {
    /// The model whose every number carries its derivatives with respect to the parameters.
    init(differentiating parameters: [Double]) {
        self.init(parameters.enumerated().map { Dual.parameter($1, index: $0) })
    }
}

/// Adam with a cosine-annealed learning rate; the initial stabilities (w0…w3) stay as pretrained.
private struct Adam {
    let learningRate: Double
    var first = Gradient.zero
    var second = Gradient.zero

    init(learningRate: Double) { self.learningRate = learningRate }

    mutating func step(_ weights: [Double], gradient raw: Gradient, step: Int, of total: Int) -> [Double] {
        var gradient = raw
        for index in 0..<4 { gradient[index] = 0 }
        first = first * 0.9 + gradient * 0.1
        second = second * 0.999 + gradient * gradient * 0.001
        let t = Double(step + 1)
        let rate = learningRate * 0.5 * (1 + cos(Double.pi * Double(min(step, total)) / Double(total)))
        var updated = weights
        for index in 4..<weights.count {
            let corrected = first[index] / (1 - pow(0.9, t))
            let scale = second[index] / (1 - pow(0.999, t))
            updated[index] -= rate * corrected / (scale.squareRoot() + 1e-8)
            updated[index] = min(
                max(updated[index], FSRSParameters.lowerBounds[index]), FSRSParameters.upperBounds[index])
        }
        return updated
    }
}

/// SplitMix64: repeatable shuffles of the training order (and repeatable simulations in tests).
struct SplitMix64: RandomNumberGenerator {
    var state: UInt64

    mutating func next() -> UInt64 {
        state &+= 0x9E37_79B9_7F4A_7C15
        var z = state
        z = (z ^ (z >> 30)) &* 0xBF58_476D_1CE4_E5B9
        z = (z ^ (z >> 27)) &* 0x94D0_49BB_1331_11EB
        return z ^ (z >> 31)
    }
}
