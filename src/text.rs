//! Text for people at a terminal: Unix milliseconds as a date and time (UTC), and
//! text that came from people (names, notes) made safe to print. Pure.

use std::borrow::Cow;

/// `text` with every control character, and every character that reorders the
/// text around it (bidirectional overrides), written as its Rust escape
/// (`\n`, `\u{1b}`): a name or note cannot start a forged line, move the
/// cursor or colour the terminal. Everything else, Korean included, is kept.
pub fn printable(text: &str) -> Cow<'_, str> {
    let unsafe_char = |c: char| {
        c.is_control()
            || matches!(c, '\u{200e}' | '\u{200f}' | '\u{202a}'..='\u{202e}' | '\u{2066}'..='\u{2069}')
    };
    if !text.chars().any(unsafe_char) {
        return Cow::Borrowed(text);
    }
    let mut out = String::with_capacity(text.len() + 8);
    for c in text.chars() {
        if unsafe_char(c) {
            out.extend(c.escape_default());
        } else {
            out.push(c);
        }
    }
    Cow::Owned(out)
}

/// `2026-12-01 14:03:22.123 UTC` for `ms` milliseconds since 1970 (UTC).
pub fn utc_text(ms: u64) -> String {
    let secs = ms / 1000;
    let days = (secs / 86_400) as i64;
    let of_day = secs % 86_400;
    let (y, m, d) = civil_from_days(days);
    format!(
        "{y:04}-{m:02}-{d:02} {:02}:{:02}:{:02}.{:03} UTC",
        of_day / 3600,
        of_day / 60 % 60,
        of_day % 60,
        ms % 1000
    )
}

/// The proleptic Gregorian date of a day count since 1970-01-01 (Howard Hinnant's
/// `civil_from_days`).
fn civil_from_days(z: i64) -> (i64, u32, u32) {
    let z = z + 719_468;
    let era = z.div_euclid(146_097);
    let doe = z.rem_euclid(146_097);
    let yoe = (doe - doe / 1460 + doe / 36_524 - doe / 146_096) / 365;
    let doy = doe - (365 * yoe + yoe / 4 - yoe / 100);
    let mp = (5 * doy + 2) / 153;
    let d = (doy - (153 * mp + 2) / 5 + 1) as u32;
    let m = if mp < 10 { mp + 3 } else { mp - 9 } as u32;
    let y = yoe + era * 400 + i64::from(m <= 2);
    (y, m, d)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn people_s_text_cannot_reach_the_terminal_raw() {
        assert_eq!(printable("김하나 청팀"), "김하나 청팀");
        assert_eq!(printable("a\nb\r\tc"), r"a\nb\r\tc");
        assert_eq!(
            printable("\u{1b}[31mred\u{9b}0m\u{7}"),
            r"\u{1b}[31mred\u{9b}0m\u{7}"
        );
        assert_eq!(printable("abc\u{202e}fed"), r"abc\u{202e}fed");
    }

    #[test]
    fn known_instants() {
        assert_eq!(utc_text(0), "1970-01-01 00:00:00.000 UTC");
        assert_eq!(utc_text(1_764_556_800_123), "2025-12-01 02:40:00.123 UTC");
        assert_eq!(utc_text(951_782_400_000), "2000-02-29 00:00:00.000 UTC");
        assert_eq!(utc_text(4_107_542_399_999), "2100-02-28 23:59:59.999 UTC");
    }
}
