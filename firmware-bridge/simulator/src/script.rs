//! The simulator's script: one step per line, `#` starts a comment.
//!
//! ```text
//! wait 500            # idle (no target) for 500 ms
//! throw 1650          # a throw peaking at 1650 mm above the floor
//! throw 1700 900      # ... released at 900 mm (default 1000)
//! noise 5             # range noise, standard deviation in mm
//! drop 0.01           # lose each byte with this probability
//! garbage 64          # 64 bytes of line noise
//! corrupt 3           # damage one byte in each of the next 3 lines
//! tear 2              # cut the next 2 lines short (no line end)
//! silence 4000        # stay plugged in but say nothing for 4 s
//! unplug 1500         # vanish for 1.5 s, then come back (rebooted)
//! ```

use std::time::Duration;

/// One step of a script.
#[derive(Debug, Clone, Copy, PartialEq)]
pub enum Step {
    Wait(Duration),
    Throw { apex_mm: f64, release_mm: f64 },
    Noise(f64),
    Drop(f64),
    Garbage(usize),
    Corrupt(usize),
    Tear(usize),
    Silence(Duration),
    Unplug(Duration),
}

/// Release height when a script does not give one: a seated thrower's hand.
pub const DEFAULT_RELEASE_MM: f64 = 1000.0;

/// Parse a script; errors name the line and say what was expected.
pub fn parse_script(text: &str) -> Result<Vec<Step>, String> {
    let mut steps = Vec::new();
    for (i, raw) in text.lines().enumerate() {
        let line = raw.split('#').next().unwrap_or("").trim();
        if line.is_empty() {
            continue;
        }
        let mut words = line.split_whitespace();
        let verb = words.next().unwrap_or_default();
        let args: Vec<&str> = words.collect();
        let at = |msg: &str| format!("script line {}: {msg}: {raw:?}", i + 1);
        let num = |k: usize, what: &str| -> Result<f64, String> {
            let word = args.get(k).ok_or_else(|| at(&format!("missing {what}")))?;
            let value: f64 = word
                .parse()
                .map_err(|_| at(&format!("{what} is not a number")))?;
            if value.is_finite() && value >= 0.0 {
                Ok(value)
            } else {
                Err(at(&format!("{what} must be a number >= 0")))
            }
        };
        let ms = |k: usize| num(k, "milliseconds").map(|v| Duration::from_millis(v as u64));
        let expect_args = |n: usize| {
            if args.len() > n {
                Err(at("too many arguments"))
            } else {
                Ok(())
            }
        };
        let step = match verb {
            "wait" => {
                expect_args(1)?;
                Step::Wait(ms(0)?)
            }
            "silence" => {
                expect_args(1)?;
                Step::Silence(ms(0)?)
            }
            "unplug" => {
                expect_args(1)?;
                Step::Unplug(ms(0)?)
            }
            "throw" => {
                expect_args(2)?;
                let apex_mm = num(0, "apex height in mm")?;
                let release_mm = if args.len() > 1 {
                    num(1, "release height in mm")?
                } else {
                    DEFAULT_RELEASE_MM.min(apex_mm)
                };
                if release_mm > apex_mm {
                    return Err(at("the release height is above the apex"));
                }
                Step::Throw {
                    apex_mm,
                    release_mm,
                }
            }
            "noise" => {
                expect_args(1)?;
                Step::Noise(num(0, "noise in mm")?)
            }
            "drop" => {
                expect_args(1)?;
                let p = num(0, "probability")?;
                if p > 1.0 {
                    return Err(at("a probability is at most 1"));
                }
                Step::Drop(p)
            }
            "garbage" => {
                expect_args(1)?;
                Step::Garbage(num(0, "byte count")? as usize)
            }
            "corrupt" => {
                expect_args(1)?;
                Step::Corrupt(num(0, "line count")? as usize)
            }
            "tear" => {
                expect_args(1)?;
                Step::Tear(num(0, "line count")? as usize)
            }
            other => {
                return Err(at(&format!(
                    "unknown step {other:?} (wait, throw, noise, drop, garbage, corrupt, tear, silence, unplug)"
                )))
            }
        };
        steps.push(step);
    }
    Ok(steps)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn parses_every_step() {
        let steps = parse_script(
            "# demo\nwait 500\nthrow 1650\nthrow 1700 900 # high\nnoise 5\ndrop 0.01\ngarbage 64\ncorrupt 3\nsilence 4000\nunplug 1500\n",
        )
        .unwrap();
        assert_eq!(steps.len(), 9);
        assert_eq!(
            steps[1],
            Step::Throw {
                apex_mm: 1650.0,
                release_mm: 1000.0
            }
        );
        assert_eq!(steps[8], Step::Unplug(Duration::from_millis(1500)));
    }

    #[test]
    fn the_shipped_script_parses() {
        let steps = parse_script(include_str!("../scripts/setup-check.txt")).unwrap();
        assert!(
            steps
                .iter()
                .filter(|s| matches!(s, Step::Throw { .. }))
                .count()
                >= 4
        );
    }

    #[test]
    fn errors_name_the_line() {
        let err = parse_script("wait 1\nthrow high\n").unwrap_err();
        assert!(err.starts_with("script line 2:"), "{err}");
        assert!(parse_script("jump 3").unwrap_err().contains("unknown step"));
        assert!(parse_script("throw 900 1000").is_err());
        assert!(parse_script("drop 2").is_err());
    }
}
