//! The named rule cases of `tests/records/*.json`: each is a `yut-record/1` game
//! record with the state expected after its last event (`expect`, compared as a
//! subset of the `game replay --json` output), or the error expected (`error`: the
//! event index, or null for a record-level error, and a phrase of the message).

use serde_json::Value;
use std::path::{Path, PathBuf};
use yut_rules::yut::GameRecord;

fn cases() -> Vec<PathBuf> {
    let dir = Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/records");
    let mut files: Vec<PathBuf> = std::fs::read_dir(&dir)
        .expect("tests/records exists")
        .map(|e| e.unwrap().path())
        .filter(|p| p.extension().is_some_and(|e| e == "json"))
        .collect();
    files.sort();
    files
}

/// `expected` matches `actual` when every key it names matches; arrays match
/// element by element and must have the same length.
fn subset_mismatch(expected: &Value, actual: &Value, path: &str) -> Option<String> {
    match (expected, actual) {
        (Value::Object(e), Value::Object(a)) => {
            e.iter().find_map(|(key, value)| match a.get(key) {
                Some(actual_value) => {
                    subset_mismatch(value, actual_value, &format!("{path}.{key}"))
                }
                None => Some(format!("{path}.{key}: missing")),
            })
        }
        (Value::Array(e), Value::Array(a)) if e.len() == a.len() => e
            .iter()
            .zip(a)
            .enumerate()
            .find_map(|(i, (ev, av))| subset_mismatch(ev, av, &format!("{path}[{i}]"))),
        _ if expected == actual => None,
        _ => Some(format!("{path}: expected {expected}, got {actual}")),
    }
}

fn run_case(case: &Value) -> Result<(), String> {
    let record_text = case["record"].to_string();
    let outcome = GameRecord::parse(&record_text).and_then(|record| record.replay());
    match (outcome, case.get("expect"), case.get("error")) {
        (Ok(state), Some(expect), None) => {
            let actual = serde_json::to_value(state.summary()).unwrap();
            match subset_mismatch(expect, &actual, "state") {
                None => Ok(()),
                Some(why) => Err(format!("{why}\nfull state: {actual}")),
            }
        }
        (Err(err), None, Some(expected)) => {
            let index = expected["index"].as_u64().map(|i| i as usize);
            let phrase = expected["contains"].as_str().unwrap();
            if err.index != index {
                return Err(format!(
                    "error at index {:?}, expected {index:?}: {err}",
                    err.index
                ));
            }
            if !err.to_string().contains(phrase) {
                return Err(format!("error `{err}` does not say `{phrase}`"));
            }
            Ok(())
        }
        (Ok(state), None, Some(_)) => Err(format!(
            "expected an error, replay succeeded: {}",
            serde_json::to_value(state.summary()).unwrap()
        )),
        (Err(err), Some(_), None) => Err(format!("unexpected error: {err}")),
        _ => Err("a case needs exactly one of `expect` and `error`".into()),
    }
}

#[test]
fn every_named_rule_case_holds() {
    let files = cases();
    assert!(files.len() >= 40, "only {} rule cases", files.len());
    let mut failures = Vec::new();
    for file in &files {
        let text = std::fs::read_to_string(file).unwrap();
        let case: Value = serde_json::from_str(&text).unwrap();
        assert!(
            case["about"].is_string(),
            "{} needs an `about`",
            file.display()
        );
        if let Err(why) = run_case(&case) {
            failures.push(format!(
                "{}: {why}",
                file.file_name().unwrap().to_string_lossy()
            ));
        }
    }
    assert!(
        failures.is_empty(),
        "{} of {} cases failed:\n{}",
        failures.len(),
        files.len(),
        failures.join("\n")
    );
}

#[test]
fn records_round_trip_through_their_canonical_form() {
    for file in cases() {
        let case: Value = serde_json::from_str(&std::fs::read_to_string(&file).unwrap()).unwrap();
        let Ok(record) = GameRecord::parse(&case["record"].to_string()) else {
            continue;
        };
        let again = GameRecord::parse(&record.to_json_pretty()).unwrap();
        assert_eq!(again, record, "{}", file.display());
    }
}
