//! Deterministic procedural noise for textures (hash-based value noise).
//!
//! Pure: hashes of their arguments.

/// A 64-bit mix (splitmix64 finaliser).
pub fn hash64(mut x: u64) -> u64 {
    x = x.wrapping_add(0x9e37_79b9_7f4a_7c15);
    x = (x ^ (x >> 30)).wrapping_mul(0xbf58_476d_1ce4_e5b9);
    x = (x ^ (x >> 27)).wrapping_mul(0x94d0_49bb_1331_11eb);
    x ^ (x >> 31)
}

/// Hash of a lattice point to [0, 1).
pub fn lattice(seed: u64, ix: i64, iy: i64) -> f64 {
    LatticeRow::new(seed, iy).at(ix)
}

/// The lattice along one row: its row's hash taken once (the sensor noise
/// hashes every sample of a picture along one row).
#[derive(Clone, Copy)]
pub struct LatticeRow {
    seed: u64,
    row: u64,
}

impl LatticeRow {
    pub fn new(seed: u64, iy: i64) -> LatticeRow {
        LatticeRow {
            seed,
            row: hash64(iy as u64),
        }
    }

    /// `white(seed, ix, iy)`.
    pub fn white(self, ix: i64) -> f64 {
        self.at(ix) - 0.5
    }

    /// `lattice(seed, ix, iy)`.
    pub fn at(self, ix: i64) -> f64 {
        let h = hash64(self.seed ^ hash64((ix as u64).wrapping_mul(0x1f1f_1f1f) ^ self.row));
        // Under 2^53, so a signed conversion (one instruction) is exact.
        (h >> 11) as i64 as f64 / (1u64 << 53) as f64
    }
}

fn smooth(t: f64) -> f64 {
    t * t * (3.0 - 2.0 * t)
}

/// Smooth value noise in [0, 1) at (x, y), feature size 1.
pub fn value(seed: u64, x: f64, y: f64) -> f64 {
    let (fx, fy) = (x.floor(), y.floor());
    let (ix, iy) = (fx as i64, fy as i64);
    let (tx, ty) = (smooth(x - fx), smooth(y - fy));
    let a = lattice(seed, ix, iy);
    let b = lattice(seed, ix + 1, iy);
    let c = lattice(seed, ix, iy + 1);
    let d = lattice(seed, ix + 1, iy + 1);
    let top = a + (b - a) * tx;
    let bot = c + (d - c) * tx;
    top + (bot - top) * ty
}

/// Two octaves of value noise, centred on 0 (about ±0.5).
pub fn fbm(seed: u64, x: f64, y: f64) -> f64 {
    0.65 * (value(seed, x, y) - 0.5) + 0.35 * (value(seed ^ 0x55, 2.1 * x, 2.1 * y) - 0.5)
}

/// Per-pixel white noise in [-0.5, 0.5).
pub fn white(seed: u64, x: i64, y: i64) -> f64 {
    LatticeRow::new(seed, y).white(x)
}
