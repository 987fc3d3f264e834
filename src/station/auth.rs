//! Referee login: the PIN check with its rate limiter, and the tokens handed out.
//!
//! Pure: the time comes in as milliseconds on a monotonic clock the caller keeps, so
//! the lock-out rules are tested without sleeping. Only [`Tokens::issue`] draws
//! randomness (a fresh token must not be guessable).
//!
//! The limiter (`docs/station-api.md`, "Logging in"): 5 wrong PINs in a row lock
//! logins for 30 s. The streak is not forgiven by the lock ending: the next wrong PIN
//! after a lock locks again at once, for twice as long (60 s, 120 s, …, capped at one
//! hour so the referee is never locked out for the day). A right PIN outside a lock
//! clears everything. During a lock every try is refused, right PIN or not, so a
//! guesser learns nothing from it.

use rand::RngCore;
use std::collections::HashMap;

/// Wrong PINs in a row before the first lock.
pub const TRIES_BEFORE_LOCK: u32 = 5;
/// Length of the first lock.
pub const FIRST_LOCK_MS: u64 = 30_000;
/// The longest lock (doubling stops here).
pub const MAX_LOCK_MS: u64 = 3_600_000;

/// Why a login is refused.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum LoginError {
    #[error("wrong PIN")]
    WrongPin,
    #[error("too many wrong PINs: try again in {} s", wait_ms.div_ceil(1000))]
    Locked { wait_ms: u64 },
    #[error("give your name with the PIN: every action is journaled with it")]
    NoName,
}

/// The PIN and the lock-out state.
#[derive(Debug, Clone)]
pub struct PinGate {
    pin: String,
    /// Wrong PINs since the last right one.
    wrong_in_row: u32,
    /// Locks imposed since the last right PIN (the next lasts 30 s × 2^locks).
    locks: u32,
    locked_until_ms: Option<u64>,
}

impl PinGate {
    pub fn new(pin: &str) -> PinGate {
        PinGate {
            pin: pin.to_string(),
            wrong_in_row: 0,
            locks: 0,
            locked_until_ms: None,
        }
    }

    /// Check `given` at time `now_ms`.
    pub fn check(&mut self, given: &str, now_ms: u64) -> Result<(), LoginError> {
        if let Some(until) = self.locked_until_ms {
            if now_ms < until {
                return Err(LoginError::Locked {
                    wait_ms: until - now_ms,
                });
            }
        }
        if same(given.trim().as_bytes(), self.pin.as_bytes()) {
            *self = PinGate::new(&self.pin);
            return Ok(());
        }
        self.wrong_in_row += 1;
        if self.wrong_in_row >= TRIES_BEFORE_LOCK {
            let length = FIRST_LOCK_MS
                .saturating_mul(1u64 << self.locks.min(20))
                .min(MAX_LOCK_MS);
            self.locks += 1;
            self.locked_until_ms = Some(now_ms + length);
            return Err(LoginError::Locked { wait_ms: length });
        }
        Err(LoginError::WrongPin)
    }
}

/// Compare without an early exit, so the time taken does not tell how many leading
/// digits were right.
fn same(a: &[u8], b: &[u8]) -> bool {
    a.len() == b.len() && a.iter().zip(b).fold(0u8, |acc, (x, y)| acc | (x ^ y)) == 0
}

/// Tokens handed out at login, each with the name it acts for. They last as long as
/// the station runs (the map lives in memory only).
#[derive(Debug, Default)]
pub struct Tokens {
    by_token: HashMap<String, String>,
}

impl Tokens {
    /// A new random token (128 bits, hex) for `who`.
    pub fn issue(&mut self, who: &str) -> String {
        let mut bytes = [0u8; 16];
        rand::thread_rng().fill_bytes(&mut bytes);
        let token: String = bytes.iter().map(|b| format!("{b:02x}")).collect();
        self.by_token.insert(token.clone(), who.to_string());
        token
    }

    /// The name a token acts for.
    pub fn who(&self, token: &str) -> Option<&str> {
        self.by_token.get(token).map(String::as_str)
    }
}

/// The token of an `Authorization: Bearer TOKEN` header value.
pub fn bearer(header: &str) -> Option<&str> {
    let (scheme, token) = header.trim().split_once(' ')?;
    scheme
        .eq_ignore_ascii_case("bearer")
        .then(|| token.trim())
        .filter(|t| !t.is_empty())
}

/// A login's name, trimmed; refused when empty.
pub fn check_name(who: &str) -> Result<&str, LoginError> {
    let who = who.trim();
    if who.is_empty() {
        Err(LoginError::NoName)
    } else {
        Ok(who)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn wrong_n(gate: &mut PinGate, n: u32, now: u64) -> Vec<Result<(), LoginError>> {
        (0..n).map(|_| gate.check("0000", now)).collect()
    }

    #[test]
    fn right_pin_passes_wrong_pin_is_refused() {
        let mut gate = PinGate::new("4821");
        assert_eq!(gate.check("4821", 0), Ok(()));
        assert_eq!(gate.check(" 4821 ", 0), Ok(()));
        assert_eq!(gate.check("4822", 0), Err(LoginError::WrongPin));
        assert_eq!(gate.check("482", 0), Err(LoginError::WrongPin));
        assert_eq!(gate.check("", 0), Err(LoginError::WrongPin));
    }

    #[test]
    fn five_wrong_in_a_row_lock_for_30_s_even_the_right_pin() {
        let mut gate = PinGate::new("4821");
        let r = wrong_n(&mut gate, 5, 1_000);
        assert!(r[..4].iter().all(|r| *r == Err(LoginError::WrongPin)));
        assert_eq!(r[4], Err(LoginError::Locked { wait_ms: 30_000 }));
        assert_eq!(
            gate.check("4821", 11_000),
            Err(LoginError::Locked { wait_ms: 20_000 })
        );
        assert_eq!(
            LoginError::Locked { wait_ms: 20_000 }.to_string(),
            "too many wrong PINs: try again in 20 s"
        );
        // The lock ends on time and the right PIN then clears everything.
        assert_eq!(gate.check("4821", 31_000), Ok(()));
        assert_eq!(wrong_n(&mut gate, 4, 31_000)[3], Err(LoginError::WrongPin));
    }

    #[test]
    fn the_lock_doubles_while_wrong_pins_go_on_and_is_capped() {
        let mut gate = PinGate::new("4821");
        let mut now = 0;
        wrong_n(&mut gate, 5, now);
        let mut expected = FIRST_LOCK_MS;
        for _ in 0..12 {
            now += expected; // the lock has just ended
            expected = (expected * 2).min(MAX_LOCK_MS);
            assert_eq!(
                gate.check("1111", now),
                Err(LoginError::Locked { wait_ms: expected })
            );
        }
        assert_eq!(expected, MAX_LOCK_MS);
        now += expected;
        assert_eq!(gate.check("4821", now), Ok(()));
        // Forgiven: the next streak starts at 30 s again.
        assert_eq!(
            wrong_n(&mut gate, 5, now)[4],
            Err(LoginError::Locked { wait_ms: 30_000 })
        );
    }

    #[test]
    fn a_right_pin_between_wrong_ones_resets_the_streak() {
        let mut gate = PinGate::new("4821");
        wrong_n(&mut gate, 4, 0);
        assert_eq!(gate.check("4821", 0), Ok(()));
        assert!(wrong_n(&mut gate, 4, 0)
            .iter()
            .all(|r| *r == Err(LoginError::WrongPin)));
    }

    #[test]
    fn tokens_are_random_and_name_their_holder() {
        let mut tokens = Tokens::default();
        let a = tokens.issue("김심판");
        let b = tokens.issue("이심판");
        assert_ne!(a, b);
        assert_eq!(a.len(), 32);
        assert_eq!(tokens.who(&a), Some("김심판"));
        assert_eq!(tokens.who(&b), Some("이심판"));
        assert_eq!(tokens.who("not-a-token"), None);
    }

    #[test]
    fn bearer_headers_and_names() {
        assert_eq!(bearer("Bearer abc"), Some("abc"));
        assert_eq!(bearer("bearer  abc "), Some("abc"));
        assert_eq!(bearer("Basic abc"), None);
        assert_eq!(bearer("Bearer "), None);
        assert_eq!(check_name("  김심판 "), Ok("김심판"));
        assert_eq!(check_name("  "), Err(LoginError::NoName));
    }
}
