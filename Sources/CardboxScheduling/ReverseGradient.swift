import Foundation

/// The gradient of the log loss over card histories by reverse-mode differentiation: one pass
/// forward in plain numbers that records, for each review, how the state after it (stability S,
/// difficulty D) and its loss change with the state before it and with the parameters; then one
/// pass back that carries ∂loss/∂S and ∂loss/∂D from the last review to the first, adding each
/// review's parameter terms on the way.
///
/// It computes what `Model<Dual>` does (forward mode, kept as its check: `forwardModeGradient`),
/// with the same one-sided rules at clamps, minimums and maximums, in about a tenth of the
/// arithmetic: forward mode carries all 21 derivatives through every operation of every review.
struct ReverseGradient {
    /// The parameters and the terms that depend on them only, computed once per batch.
    private let w: [Double]
    private let decay: Double
    private let factor: Double
    /// ∂factor/∂w20 (decay is -w20).
    private let factorByW20: Double
    private let easyInitialDifficulty: Double
    /// ∂(easy initial difficulty)/∂w5.
    private let easyByW5: Double
    /// exp(w8), and exp(w17·w18) (the most a lapse leaves of the stability).
    private let growthScale: Double
    private let lapseCap: Double

    /// What one review did, as partial derivatives: the state after it by the state before it, its
    /// loss by the stability before it, and both by the parameters.
    private struct Step {
        var stabilityByStability = 0.0
        var stabilityByDifficulty = 0.0
        var difficultyByDifficulty = 0.0
        var lossByStability = 0.0
        var lossByW20 = 0.0
        /// ∂S'/∂w8…w20 in lanes 0…12 (the others stay zero).
        var stabilityByParameters = SIMD16<Double>.zero
        /// ∂D'/∂w4…w7.
        var difficultyByParameters = SIMD4<Double>.zero
    }

    /// The gradient summed so far, by parameter groups (w0…w3 through the first stability, w4…w7
    /// through difficulty, w8…w20 through stability and recall).
    private var initial = SIMD4<Double>.zero
    private var difficulty = SIMD4<Double>.zero
    private var stability = SIMD16<Double>.zero
    private var w20 = 0.0
    /// The summed loss.
    private(set) var loss = 0.0
    /// The tape of the history being differentiated, kept between histories for its capacity.
    private var tape: [Step] = []

    init(_ parameters: [Double]) {
        w = parameters
        decay = -parameters[20]
        let power = Foundation.pow(0.9, 1 / decay)
        factor = power - 1
        // d(0.9^(1/decay))/dw20 = 0.9^(1/decay) · ln 0.9 · (-1/decay²) · (-1).
        factorByW20 = power * Foundation.log(0.9) / (decay * decay)
        let easyTerm = Foundation.exp(parameters[5] * 3)
        easyInitialDifficulty = parameters[4] - easyTerm + 1
        easyByW5 = -3 * easyTerm
        growthScale = Foundation.exp(parameters[8])
        lapseCap = Foundation.exp(parameters[17] * parameters[18])
    }

    /// The gradient of the loss summed over every history added, as `Model<Dual>` lays it out.
    var gradient: Gradient {
        var result = Gradient.zero
        for index in 0..<4 { result[index] = initial[index] }
        for index in 0..<4 { result[4 + index] = difficulty[index] }
        for index in 0..<13 { result[8 + index] = stability[index] }
        result[20] += w20
        return result
    }

    /// Adds one card's log loss and its gradient.
    mutating func add(_ history: ReviewHistory) {
        guard let first = history.reviews.first else { return }
        let firstRating = first.rating.rawValue
        let rawStability = w[firstRating - 1]
        var s = rawStability < FSRSParameters.stabilityMinimum ? FSRSParameters.stabilityMinimum : rawStability
        let initialTerm = Foundation.exp(w[5] * Double(firstRating - 1))
        let rawDifficulty = w[4] - initialTerm + 1
        var d = Swift.min(Swift.max(rawDifficulty, 1), 10)
        tape.removeAll(keepingCapacity: true)
        for review in history.reviews.dropFirst() {
            var step = Step()
            let rating = review.rating.rawValue
            let next: Double
            if review.elapsedDays == 0 {
                next = shortTerm(s, rating, &step)
            } else {
                next = longTerm(s, d, rating, Double(review.elapsedDays), &step)
            }
            let nextDifficulty = difficultyStep(d, rating, &step)
            tape.append(step)
            (s, d) = (next, nextDifficulty)
        }
        // Back from the last review: the adjoints ∂loss/∂S and ∂loss/∂D of the state after each.
        var (byS, byD) = (0.0, 0.0)
        for step in tape.reversed() {
            stability += byS * step.stabilityByParameters
            difficulty += byD * step.difficultyByParameters
            w20 += step.lossByW20
            (byS, byD) = (
                byS * step.stabilityByStability + step.lossByStability,
                byS * step.stabilityByDifficulty + byD * step.difficultyByDifficulty
            )
        }
        if rawStability >= FSRSParameters.stabilityMinimum { initial[firstRating - 1] += byS }
        if rawDifficulty >= 1 && rawDifficulty <= 10 {
            difficulty[0] += byD
            difficulty[1] -= byD * Double(firstRating - 1) * initialTerm
        }
    }

    /// A review on the day of the one before: the stability grows or shrinks by the short-term rule.
    private func shortTerm(_ s: Double, _ rating: Int, _ step: inout Step) -> Double {
        let exponent = w[18] + Double(rating - 3)
        let scale = Foundation.exp(w[17] * exponent)
        let power = Foundation.pow(s, -w[19])
        var increase = scale * power
        var varies = true
        if rating > 1 && increase < 1 { (increase, varies) = (1, false) }
        let next = s * increase
        guard next >= FSRSParameters.stabilityMinimum else { return FSRSParameters.stabilityMinimum }
        step.stabilityByStability = increase
        if varies {
            // next = s · exp(w17 · exponent) · s^-w19.
            step.stabilityByStability -= w[19] * increase
            step.stabilityByParameters[17 - 8] = next * exponent
            step.stabilityByParameters[18 - 8] = next * w[17]
            step.stabilityByParameters[19 - 8] = -next * Foundation.log(s)
        }
        return next
    }

    /// A review a day or more after the one before: its recall is predicted (and scored), and the
    /// stability moves by the rule of its rating.
    private mutating func longTerm(_ s: Double, _ d: Double, _ rating: Int, _ days: Double, _ step: inout Step)
        -> Double
    {
        let base = 1 + factor * days / s
        let rawRecall = Foundation.pow(base, decay)
        var recall = rawRecall
        var (recallByS, recallByW20) = (0.0, 0.0)
        if rawRecall < 1e-6 {
            recall = 1e-6
        } else if rawRecall > 1 - 1e-6 {
            recall = 1 - 1e-6
        } else {
            recallByS = rawRecall * decay / base * (-factor * days / (s * s))
            recallByW20 = rawRecall * (-Foundation.log(base) + decay / base * days / s * factorByW20)
        }
        let remembered = rating > 1
        loss -= remembered ? Foundation.log(recall) : Foundation.log(1 - recall)
        let lossByRecall = remembered ? -1 / recall : 1 / (1 - recall)
        step.lossByStability = lossByRecall * recallByS
        step.lossByW20 = lossByRecall * recallByW20
        let (next, byRecall) = rating == 1 ? lapse(s, d, recall, &step) : success(s, d, recall, rating, &step)
        // The recall's own dependence on the stability and on w20, through the rule.
        step.stabilityByStability += byRecall * recallByS
        step.stabilityByParameters[20 - 8] += byRecall * recallByW20
        return next
    }

    /// After a lapse: the long-term rule, never more than the stability divided by exp(w17·w18).
    /// Returns the new stability and its derivative by the recall.
    private func lapse(_ s: Double, _ d: Double, _ recall: Double, _ step: inout Step) -> (Double, Double) {
        let byDifficulty = Foundation.pow(d, -w[12])
        let power = Foundation.pow(s + 1, w[13])
        let byStability = power - 1
        let forgetting = Foundation.exp((1 - recall) * w[14])
        let longTerm = w[11] * byDifficulty * byStability * forgetting
        let capped = s / lapseCap
        let next = longTerm <= capped ? longTerm : capped
        guard next >= FSRSParameters.stabilityMinimum else { return (FSRSParameters.stabilityMinimum, 0) }
        guard longTerm <= capped else {
            step.stabilityByStability = 1 / lapseCap
            step.stabilityByParameters[17 - 8] = -capped * w[18]
            step.stabilityByParameters[18 - 8] = -capped * w[17]
            return (next, 0)
        }
        // longTerm = w11 · D^-w12 · ((S + 1)^w13 − 1) · exp((1 − R) · w14).
        let byPower = w[11] * byDifficulty * forgetting
        step.stabilityByStability = byPower * power * w[13] / (s + 1)
        step.stabilityByDifficulty = -longTerm * w[12] / d
        step.stabilityByParameters[11 - 8] = byDifficulty * byStability * forgetting
        step.stabilityByParameters[12 - 8] = -longTerm * Foundation.log(d)
        step.stabilityByParameters[13 - 8] = byPower * power * Foundation.log(s + 1)
        step.stabilityByParameters[14 - 8] = longTerm * (1 - recall)
        return (next, -longTerm * w[14])
    }

    /// After a success: the stability grows by exp(w8)·(11 − D)·S^-w9·(exp((1 − R)·w10) − 1), times
    /// w15 for Hard or w16 for Easy. Returns the new stability and its derivative by the recall.
    private func success(_ s: Double, _ d: Double, _ recall: Double, _ rating: Int, _ step: inout Step)
        -> (Double, Double)
    {
        let power = Foundation.pow(s, -w[9])
        let surprise = Foundation.exp((1 - recall) * w[10])
        let multiplier = rating == 2 ? w[15] : rating == 4 ? w[16] : 1
        let plain = growthScale * (11 - d) * power * (surprise - 1)
        let growth = plain * multiplier
        let next = s * (growth + 1)
        guard next >= FSRSParameters.stabilityMinimum else { return (FSRSParameters.stabilityMinimum, 0) }
        // ∂(s · growth) by the exp((1 − R) · w10) in it.
        let bySurprise = s * growthScale * (11 - d) * power * multiplier * surprise
        step.stabilityByStability = (growth + 1) - w[9] * growth
        step.stabilityByDifficulty = -s * growthScale * power * (surprise - 1) * multiplier
        step.stabilityByParameters[8 - 8] = s * growth
        step.stabilityByParameters[9 - 8] = -s * growth * Foundation.log(s)
        step.stabilityByParameters[10 - 8] = bySurprise * (1 - recall)
        if rating == 2 { step.stabilityByParameters[15 - 8] = s * plain }
        if rating == 4 { step.stabilityByParameters[16 - 8] = s * plain }
        return (next, -bySurprise * w[10])
    }

    /// The difficulty after a review: moved by the rating, then drawn towards Easy's initial
    /// difficulty by w7, kept within 1…10.
    private func difficultyStep(_ d: Double, _ rating: Int, _ step: inout Step) -> Double {
        let delta = -(w[6] * Double(rating - 3))
        let damped = d + (10 - d) * delta / 9
        let raw = w[7] * easyInitialDifficulty + (1 - w[7]) * damped
        guard raw >= 1 && raw <= 10 else { return raw < 1 ? 1 : 10 }
        step.difficultyByDifficulty = (1 - w[7]) * (1 - delta / 9)
        step.difficultyByParameters = SIMD4(
            w[7], w[7] * easyByW5, (1 - w[7]) * (10 - d) / 9 * (-Double(rating - 3)), easyInitialDifficulty - damped)
        return raw
    }
}
