//! The suite's one pseudo-random generator (xorshift64): seeded, so a failure names a seed that
//! replays it; `MPT_TEST_SEED` (hex or decimal) overrides the seed a test picks.

pub struct Rng {
    state: u64,
    seed: u64,
}

impl Rng {
    /// Seeded by `MPT_TEST_SEED` when set, else by `seed` (never 0: xorshift would stay at 0).
    pub fn seeded(seed: u64) -> Rng {
        let seed = std::env::var("MPT_TEST_SEED")
            .ok()
            .and_then(|s| match s.strip_prefix("0x") {
                Some(hex) => u64::from_str_radix(hex, 16).ok(),
                None => s.parse().ok(),
            })
            .unwrap_or(seed)
            .max(1);
        Rng { state: seed, seed }
    }

    /// The seed to print with a failure (replay with `MPT_TEST_SEED=<it>`).
    pub fn seed(&self) -> u64 {
        self.seed
    }

    pub fn next(&mut self) -> u64 {
        self.state ^= self.state << 13;
        self.state ^= self.state >> 7;
        self.state ^= self.state << 17;
        self.state
    }

    /// A number in `0..n`.
    pub fn below(&mut self, n: u64) -> u64 {
        self.next() % n
    }

    pub fn pick<'a, T>(&mut self, xs: &'a [T]) -> &'a T {
        &xs[self.below(xs.len() as u64) as usize]
    }
}
