import Dispatch

extension DispatchSemaphore {
    /// Waits for `count` signals on a thread of Dispatch's own, not one of the cooperative pool's. A
    /// test that blocks a pool thread (two on a 2-core machine) while the work it waits for needs the
    /// pool can hang the whole run when another test does the same.
    public func waitOffThePool(count: Int = 1) async {
        await withCheckedContinuation { continuation in
            DispatchQueue.global().async {
                for _ in 0..<count { self.wait() }
                continuation.resume()
            }
        }
    }
}
