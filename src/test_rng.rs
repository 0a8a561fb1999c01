//! A small deterministic generator (xorshift) for the unit tests: the same sequence on every
//! machine.
#![forbid(unsafe_code)]

pub(crate) struct Rng(pub(crate) u64);

impl Rng {
    pub(crate) fn next(&mut self) -> u64 {
        self.0 ^= self.0 << 13;
        self.0 ^= self.0 >> 7;
        self.0 ^= self.0 << 17;
        self.0
    }
}
