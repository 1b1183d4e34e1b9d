//! A deterministic test RNG (xorshift64*), shared by the tests of the
//! delta encoders, the window search, the sketches and the bitmaps' EWAH.

pub(crate) struct Rng(pub u64);

impl Rng {
    pub fn next(&mut self) -> u64 {
        self.0 ^= self.0 >> 12;
        self.0 ^= self.0 << 25;
        self.0 ^= self.0 >> 27;
        self.0.wrapping_mul(0x2545_f491_4f6c_dd1d)
    }

    pub fn below(&mut self, n: usize) -> usize {
        (self.next() % n.max(1) as u64) as usize
    }

    pub fn bytes(&mut self, n: usize, alphabet: u8) -> Vec<u8> {
        (0..n)
            .map(|_| (self.next() % u64::from(alphabet)) as u8)
            .collect()
    }
}
