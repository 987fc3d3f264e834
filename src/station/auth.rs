//! Referee login: the PIN's rules, the PIN check with its rate limiter per client,
//! and the tokens handed out.
//!
//! Pure: the time comes in as milliseconds on a monotonic clock the caller keeps, so
//! the lock-out rules are tested without sleeping, and the client is the address the
//! caller saw. Only [`Tokens::issue`] draws randomness (a fresh token must not be
//! guessable).
//!
//! The limiter (`docs/station-api.md`, "Logging in"), for each client address on
//! its own: 5 wrong PINs in a row lock that client's logins for 30 s. The streak is
//! not forgiven by the lock ending: the next wrong PIN after a lock locks again at
//! once, for twice as long (60 s, 120 s, …, capped at one hour). A right PIN outside
//! a lock clears the client's streak. During a lock every try of that client is
//! refused, right PIN or not, so a guesser learns nothing from it; another client
//! (the referee at the console) is not held up by it.

use rand::RngCore;
use std::collections::HashMap;
use std::net::IpAddr;

/// Wrong PINs in a row before the first lock.
pub const TRIES_BEFORE_LOCK: u32 = 5;
/// Length of the first lock.
pub const FIRST_LOCK_MS: u64 = 30_000;
/// The longest lock (doubling stops here).
pub const MAX_LOCK_MS: u64 = 3_600_000;
/// The fewest digits a referee PIN has.
pub const PIN_MIN_DIGITS: usize = 4;
/// The most digits a referee PIN has.
pub const PIN_MAX_DIGITS: usize = 12;
/// Clients whose wrong PINs are remembered at once; past it, the ones not locked
/// are forgotten first.
pub const MAX_CLIENTS: usize = 1024;
/// How long a token acts after its login: a competition day.
pub const TOKEN_LIFETIME_MS: u64 = 12 * 3_600_000;
/// Tokens alive at once; past it, the oldest ends.
pub const MAX_TOKENS: usize = 256;
/// The longest name a referee logs in with (characters).
pub const MAX_NAME_CHARS: usize = 64;

/// Why a login is refused.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum LoginError {
    #[error("wrong PIN")]
    WrongPin,
    #[error("too many wrong PINs: try again in {} s", wait_ms.div_ceil(1000))]
    Locked { wait_ms: u64 },
    #[error("give your name with the PIN: every action is journaled with it")]
    NoName,
    #[error("a name of at most {MAX_NAME_CHARS} characters, without control characters: every action is journaled with it")]
    BadName,
}

/// Why a PIN cannot be the station's.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error("the referee PIN must be {PIN_MIN_DIGITS} to {PIN_MAX_DIGITS} digits (0-9); {0}: choose another with --pin or YUTSTATION_PIN")]
pub struct PinError(&'static str);

/// Check that `pin` may be the station's PIN: 4 to 12 ASCII digits. The PIN is not
/// repeated in the message.
pub fn check_pin(pin: &str) -> Result<(), PinError> {
    if pin.is_empty() {
        Err(PinError("the one given is empty"))
    } else if !pin.bytes().all(|b| b.is_ascii_digit()) {
        Err(PinError("the one given holds something else"))
    } else if pin.len() < PIN_MIN_DIGITS {
        Err(PinError("the one given is shorter"))
    } else if pin.len() > PIN_MAX_DIGITS {
        Err(PinError("the one given is longer"))
    } else {
        Ok(())
    }
}

/// One client's wrong PINs.
#[derive(Debug, Clone, Copy, Default)]
struct Streak {
    /// Wrong PINs since the last right one.
    wrong_in_row: u32,
    /// Locks imposed since the last right PIN (the next lasts 30 s × 2^locks).
    locks: u32,
    locked_until_ms: Option<u64>,
}

/// The PIN and the lock-out state of each client.
#[derive(Debug, Clone)]
pub struct PinGate {
    pin: String,
    clients: HashMap<IpAddr, Streak>,
}

impl PinGate {
    pub fn new(pin: &str) -> PinGate {
        PinGate {
            pin: pin.to_string(),
            clients: HashMap::new(),
        }
    }

    /// Check `given` from `client` at time `now_ms`.
    pub fn check(&mut self, client: IpAddr, given: &str, now_ms: u64) -> Result<(), LoginError> {
        let streak = self.clients.get(&client).copied().unwrap_or_default();
        if let Some(until) = streak.locked_until_ms {
            if now_ms < until {
                return Err(LoginError::Locked {
                    wait_ms: until - now_ms,
                });
            }
        }
        if same(given.trim().as_bytes(), self.pin.as_bytes()) {
            self.clients.remove(&client);
            return Ok(());
        }
        if !self.clients.contains_key(&client) && self.clients.len() >= MAX_CLIENTS {
            self.clients
                .retain(|_, s| s.locked_until_ms.is_some_and(|until| now_ms < until));
            if self.clients.len() >= MAX_CLIENTS {
                // Every remembered client is locked: so is a new one, until the
                // first lock ends.
                let soonest = self
                    .clients
                    .values()
                    .filter_map(|s| s.locked_until_ms)
                    .min()
                    .unwrap_or(now_ms);
                return Err(LoginError::Locked {
                    wait_ms: soonest.saturating_sub(now_ms).max(1),
                });
            }
        }
        let streak = self.clients.entry(client).or_default();
        streak.wrong_in_row += 1;
        if streak.wrong_in_row >= TRIES_BEFORE_LOCK {
            let length = FIRST_LOCK_MS
                .saturating_mul(1u64 << streak.locks.min(20))
                .min(MAX_LOCK_MS);
            streak.locks += 1;
            streak.locked_until_ms = Some(now_ms + length);
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

/// Who a token acts for, and until when.
#[derive(Debug, Clone)]
struct Grant {
    who: String,
    issued_ms: u64,
}

/// Tokens handed out at login, each with the name it acts for. A token acts for
/// [`TOKEN_LIFETIME_MS`] after its login, until it is revoked, or until the
/// station stops (they live in memory only).
#[derive(Debug, Default)]
pub struct Tokens {
    by_token: HashMap<String, Grant>,
}

impl Tokens {
    /// A new random token (128 bits, hex) for `who`, issued at `now_ms`.
    pub fn issue(&mut self, who: &str, now_ms: u64) -> String {
        self.by_token
            .retain(|_, g| now_ms < g.issued_ms + TOKEN_LIFETIME_MS);
        if self.by_token.len() >= MAX_TOKENS {
            let oldest = self
                .by_token
                .iter()
                .min_by_key(|(_, g)| g.issued_ms)
                .map(|(t, _)| t.clone());
            if let Some(t) = oldest {
                self.by_token.remove(&t);
            }
        }
        let mut bytes = [0u8; 16];
        rand::thread_rng().fill_bytes(&mut bytes);
        let token: String = bytes.iter().map(|b| format!("{b:02x}")).collect();
        self.by_token.insert(
            token.clone(),
            Grant {
                who: who.to_string(),
                issued_ms: now_ms,
            },
        );
        token
    }

    /// The name a token acts for at `now_ms`; `None` for an unknown, expired or
    /// revoked token.
    pub fn who(&self, token: &str, now_ms: u64) -> Option<&str> {
        self.by_token
            .get(token)
            .filter(|g| now_ms < g.issued_ms + TOKEN_LIFETIME_MS)
            .map(|g| g.who.as_str())
    }

    /// End a token (logging out); whether it was alive.
    pub fn revoke(&mut self, token: &str) -> bool {
        self.by_token.remove(token).is_some()
    }

    /// End every token; how many there were.
    pub fn revoke_all(&mut self) -> usize {
        let n = self.by_token.len();
        self.by_token.clear();
        n
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

/// A login's name, trimmed; refused when empty, longer than [`MAX_NAME_CHARS`] or
/// holding a control character (it is journaled and printed).
pub fn check_name(who: &str) -> Result<&str, LoginError> {
    let who = who.trim();
    if who.is_empty() {
        Err(LoginError::NoName)
    } else if who.chars().count() > MAX_NAME_CHARS || who.chars().any(char::is_control) {
        Err(LoginError::BadName)
    } else {
        Ok(who)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    const HALL: IpAddr = IpAddr::V4(std::net::Ipv4Addr::new(192, 168, 0, 20));
    const OTHER: IpAddr = IpAddr::V4(std::net::Ipv4Addr::new(192, 168, 0, 66));

    fn wrong_n(gate: &mut PinGate, n: u32, now: u64) -> Vec<Result<(), LoginError>> {
        (0..n).map(|_| gate.check(HALL, "0000", now)).collect()
    }

    #[test]
    fn right_pin_passes_wrong_pin_is_refused() {
        let mut gate = PinGate::new("4821");
        assert_eq!(gate.check(HALL, "4821", 0), Ok(()));
        assert_eq!(gate.check(HALL, " 4821 ", 0), Ok(()));
        assert_eq!(gate.check(HALL, "4822", 0), Err(LoginError::WrongPin));
        assert_eq!(gate.check(HALL, "482", 0), Err(LoginError::WrongPin));
        assert_eq!(gate.check(HALL, "", 0), Err(LoginError::WrongPin));
    }

    #[test]
    fn five_wrong_in_a_row_lock_for_30_s_even_the_right_pin() {
        let mut gate = PinGate::new("4821");
        let r = wrong_n(&mut gate, 5, 1_000);
        assert!(r[..4].iter().all(|r| *r == Err(LoginError::WrongPin)));
        assert_eq!(r[4], Err(LoginError::Locked { wait_ms: 30_000 }));
        assert_eq!(
            gate.check(HALL, "4821", 11_000),
            Err(LoginError::Locked { wait_ms: 20_000 })
        );
        assert_eq!(
            LoginError::Locked { wait_ms: 20_000 }.to_string(),
            "too many wrong PINs: try again in 20 s"
        );
        // The lock ends on time and the right PIN then clears everything.
        assert_eq!(gate.check(HALL, "4821", 31_000), Ok(()));
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
                gate.check(HALL, "1111", now),
                Err(LoginError::Locked { wait_ms: expected })
            );
        }
        assert_eq!(expected, MAX_LOCK_MS);
        now += expected;
        assert_eq!(gate.check(HALL, "4821", now), Ok(()));
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
        assert_eq!(gate.check(HALL, "4821", 0), Ok(()));
        assert!(wrong_n(&mut gate, 4, 0)
            .iter()
            .all(|r| *r == Err(LoginError::WrongPin)));
    }

    #[test]
    fn a_locked_client_does_not_lock_another() {
        let mut gate = PinGate::new("4821");
        assert_eq!(
            wrong_n(&mut gate, 5, 0)[4],
            Err(LoginError::Locked { wait_ms: 30_000 })
        );
        assert_eq!(gate.check(OTHER, "4821", 1), Ok(()));
        assert!(matches!(
            gate.check(HALL, "4821", 1),
            Err(LoginError::Locked { .. })
        ));
        // Wrong PINs of the other client count for it alone.
        for _ in 0..4 {
            assert_eq!(gate.check(OTHER, "1111", 2), Err(LoginError::WrongPin));
        }
    }

    #[test]
    fn the_gate_remembers_a_bounded_number_of_clients() {
        let mut gate = PinGate::new("4821");
        for i in 0..(MAX_CLIENTS as u32 + 10) {
            let client = IpAddr::V4(std::net::Ipv4Addr::from(0x0a00_0000 + i));
            assert_eq!(gate.check(client, "0000", 0), Err(LoginError::WrongPin));
        }
        assert!(gate.clients.len() <= MAX_CLIENTS);
    }

    #[test]
    fn pins_are_four_to_twelve_digits() {
        for ok in ["0000", "4821", "123456789012"] {
            assert_eq!(check_pin(ok), Ok(()), "{ok}");
        }
        for bad in [
            "",
            "    ",
            "1",
            "123",
            "12 34",
            "abcd",
            "１２３４",
            "1234567890123",
        ] {
            let e = check_pin(bad).unwrap_err().to_string();
            assert!(e.contains("4 to 12 digits") && !e.contains("abcd"), "{e}");
        }
    }

    #[test]
    fn tokens_are_random_name_their_holder_expire_and_can_be_revoked() {
        let mut tokens = Tokens::default();
        let a = tokens.issue("김심판", 0);
        let b = tokens.issue("이심판", 1_000);
        assert_ne!(a, b);
        assert_eq!(a.len(), 32);
        assert_eq!(tokens.who(&a, 5), Some("김심판"));
        assert_eq!(tokens.who(&b, 5), Some("이심판"));
        assert_eq!(tokens.who("not-a-token", 5), None);
        assert_eq!(tokens.who(&a, TOKEN_LIFETIME_MS - 1), Some("김심판"));
        assert_eq!(tokens.who(&a, TOKEN_LIFETIME_MS), None, "expired");
        assert_eq!(tokens.who(&b, TOKEN_LIFETIME_MS), Some("이심판"));
        assert!(tokens.revoke(&b));
        assert_eq!(tokens.who(&b, 2_000), None, "revoked");
        let c = tokens.issue("박심판", 3_000);
        assert_eq!(tokens.revoke_all(), 2);
        assert_eq!(tokens.who(&c, 3_001), None);
        for i in 0..(MAX_TOKENS as u64 + 5) {
            tokens.issue("김심판", 10_000 + i);
        }
        assert_eq!(tokens.by_token.len(), MAX_TOKENS);
    }

    #[test]
    fn bearer_headers_and_names() {
        assert_eq!(bearer("Bearer abc"), Some("abc"));
        assert_eq!(bearer("bearer  abc "), Some("abc"));
        assert_eq!(bearer("Basic abc"), None);
        assert_eq!(bearer("Bearer "), None);
        assert_eq!(check_name("  김심판 "), Ok("김심판"));
        assert_eq!(check_name("  "), Err(LoginError::NoName));
        assert_eq!(
            check_name(&"가".repeat(64)).map(|n| n.chars().count()),
            Ok(64)
        );
        assert_eq!(check_name(&"가".repeat(65)), Err(LoginError::BadName));
        assert_eq!(check_name("김\n심판"), Err(LoginError::BadName));
        assert_eq!(check_name("\u{1b}[31m김"), Err(LoginError::BadName));
    }
}
