//! How a stick set falls: each stick's share of flat-face landings, as the
//! journal measures it, and the chance of each result that follows from the
//! count table of `yut_rules::yut::ThrowResult::from_sticks`.
//!
//! The camera tells the marked stick from the others only by its mark; the three
//! plain sticks look alike, so they share one measured share.
//!
//! Pure.

use rand::Rng;
use serde::Serialize;
use yut_rules::yut::ThrowResult;

/// The chance that each stick lands flat face up, and that a throw is void.
#[derive(Debug, Clone, Copy, PartialEq, Serialize)]
pub struct StickShares {
    /// The marked (뒷도) stick.
    pub marked: f64,
    /// Each of the three plain sticks.
    pub plain: f64,
    /// A throw void (낙): a stick off the mat, or ruled so.
    pub nak: f64,
}

/// What the shares are taken to be before the journal says anything: even
/// sticks, and one throw in fifty void. The journal's landings are added to
/// these as `PRIOR_LANDINGS` (and `PRIOR_THROWS`) pretend ones, so the first
/// few throws of a new set do not swing the win chances.
pub const PRIOR: StickShares = StickShares {
    marked: 0.5,
    plain: 0.5,
    nak: 0.02,
};
const PRIOR_LANDINGS: f64 = 8.0;
const PRIOR_THROWS: f64 = 50.0;

impl StickShares {
    /// The shares measured from counts, drawn towards [`PRIOR`] while they are
    /// few: `marked_up` of `read` throws had the marked stick flat face up,
    /// `plain_up` plain sticks of `3 × read` landed flat face up; `naks` of
    /// `called` throws were void.
    pub fn measured(read: u64, marked_up: u64, plain_up: u64, called: u64, naks: u64) -> Self {
        let toward = |up: u64, of: u64, prior: f64, weight: f64| {
            (up as f64 + prior * weight) / (of as f64 + weight)
        };
        StickShares {
            marked: toward(marked_up, read, PRIOR.marked, PRIOR_LANDINGS),
            plain: toward(plain_up, 3 * read, PRIOR.plain, PRIOR_LANDINGS),
            nak: toward(naks, called, PRIOR.nak, PRIOR_THROWS),
        }
    }

    /// The chance of each result, in [`ThrowResult::ALL`] order.
    pub fn result_odds(&self) -> [f64; 7] {
        let (m, q) = (self.marked, self.plain);
        // Plain sticks flat face up: 0, 1, 2 or 3 of three.
        let plain = [
            (1.0 - q).powi(3),
            3.0 * q * (1.0 - q).powi(2),
            3.0 * q * q * (1.0 - q),
            q.powi(3),
        ];
        let mut odds = [0.0; 7];
        for (k, chance) in plain.iter().enumerate() {
            for (marked, p) in [(false, 1.0 - m), (true, m)] {
                let up = k as u8 + u8::from(marked);
                let result = ThrowResult::from_sticks(up, marked).expect("at most four");
                odds[result as usize] += (1.0 - self.nak) * chance * p;
            }
        }
        odds[ThrowResult::Nak as usize] = self.nak;
        odds
    }

    /// A sampler of results with these shares: one uniform draw a throw.
    pub fn sampler(&self) -> ResultSampler {
        let mut cumulative = [0.0; 7];
        let mut sum = 0.0;
        for (c, p) in cumulative.iter_mut().zip(self.result_odds()) {
            sum += p;
            *c = sum;
        }
        ResultSampler { cumulative }
    }
}

/// Draws results with fixed odds.
#[derive(Debug, Clone, Copy)]
pub struct ResultSampler {
    cumulative: [f64; 7],
}

impl ResultSampler {
    pub fn throw<R: Rng + ?Sized>(&self, rng: &mut R) -> ThrowResult {
        let u: f64 = rng.gen::<f64>() * self.cumulative[6];
        let i = self.cumulative.iter().position(|c| u < *c).unwrap_or(6);
        ThrowResult::ALL[i]
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use rand::SeedableRng;

    #[test]
    fn even_sticks_give_the_textbook_odds() {
        let odds = StickShares {
            marked: 0.5,
            plain: 0.5,
            nak: 0.0,
        }
        .result_odds();
        let sixteenths = odds.map(|p| p * 16.0);
        // 도 3, 개 6, 걸 4, 윷 1, 모 1, 뒷도 1, 낙 0 (of 16).
        let expected = [3.0, 6.0, 4.0, 1.0, 1.0, 1.0, 0.0];
        for (got, want) in sixteenths.iter().zip(expected) {
            assert!((got - want).abs() < 1e-12, "{sixteenths:?}");
        }
    }

    #[test]
    fn the_sampler_draws_the_odds() {
        let shares = StickShares {
            marked: 0.7,
            plain: 0.4,
            nak: 0.05,
        };
        let odds = shares.result_odds();
        assert!((odds.iter().sum::<f64>() - 1.0).abs() < 1e-12);
        let sampler = shares.sampler();
        let mut rng = rand::rngs::SmallRng::seed_from_u64(3);
        let mut seen = [0u32; 7];
        let n = 200_000;
        for _ in 0..n {
            seen[sampler.throw(&mut rng) as usize] += 1;
        }
        for (s, p) in seen.iter().zip(odds) {
            let sd = (p * (1.0 - p) / n as f64).sqrt();
            assert!(
                (*s as f64 / n as f64 - p).abs() < 5.0 * sd + 1e-9,
                "{seen:?} {odds:?}"
            );
        }
    }

    #[test]
    fn few_landings_stay_near_the_prior() {
        let s = StickShares::measured(2, 2, 6, 2, 0);
        assert!(s.marked < 0.7 && s.plain < 0.9, "{s:?}");
        let s = StickShares::measured(10_000, 6_000, 15_000, 10_000, 200);
        assert!((s.marked - 0.6).abs() < 0.001 && (s.plain - 0.5).abs() < 0.001);
        assert!((s.nak - 0.02).abs() < 0.001);
    }
}
