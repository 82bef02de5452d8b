//! Small helpers: a xorshift random source for victim selection.

/// xorshift64*: fast, not cryptographic; each worker owns one.
pub(crate) struct FastRand(u64);

impl FastRand {
    pub(crate) fn new(seed: u64) -> FastRand {
        // Never zero (xorshift's fixed point); mix the seed so small seeds differ widely.
        FastRand(seed.wrapping_mul(0x9E37_79B9_7F4A_7C15) | 1)
    }

    /// A generator resuming from `state` (a value `state()` returned).
    pub(crate) fn from_state(state: u64) -> FastRand {
        FastRand(if state == 0 { 1 } else { state })
    }

    /// The generator's state, to resume it later with `from_state`.
    pub(crate) fn state(&self) -> u64 {
        self.0
    }

    pub(crate) fn next(&mut self) -> u64 {
        let mut x = self.0;
        x ^= x >> 12;
        x ^= x << 25;
        x ^= x >> 27;
        self.0 = x;
        x.wrapping_mul(0x2545_F491_4F6C_DD1D)
    }

    /// A value in `0..n` (n > 0), by multiply-shift instead of a division.
    pub(crate) fn below(&mut self, n: u32) -> u32 {
        (((self.next() >> 32) * u64::from(n)) >> 32) as u32
    }
}

#[cfg(all(test, not(loom)))]
mod tests {
    use super::*;

    #[test]
    fn below_stays_in_range_and_spreads() {
        let mut r = FastRand::new(7);
        let mut seen = [0u32; 5];
        for _ in 0..10_000 {
            seen[r.below(5) as usize] += 1;
        }
        assert!(seen.iter().all(|&c| c > 1000), "{seen:?}");
    }
}
