//! Replays the fuzz corpus (`firmware-bridge/fuzz/corpus/decode_line/`) through the
//! fuzz target's body: CI's short, deterministic fuzz pass, on stable Rust.

use std::path::Path;

#[test]
fn every_corpus_file_passes_the_fuzz_target() {
    let dir = Path::new(env!("CARGO_MANIFEST_DIR")).join("../fuzz/corpus/decode_line");
    let mut files: Vec<_> = std::fs::read_dir(&dir)
        .unwrap_or_else(|e| panic!("fuzz corpus {}: {e}", dir.display()))
        .map(|entry| entry.unwrap().path())
        .filter(|p| p.is_file())
        .collect();
    files.sort();
    assert!(
        files.len() >= 10,
        "the seed corpus looks empty: {}",
        dir.display()
    );
    let mut decoded = 0;
    for path in &files {
        let data = std::fs::read(path).unwrap();
        yut_height_protocol::fuzzing::decode_line_target(&data);
        decoded += usize::from(yut_height_protocol::decode_line(&data).is_ok());
    }
    // The seeds hold valid lines of every type as well as broken ones.
    assert!(decoded >= 9, "only {decoded} corpus lines decode");
    println!("fuzz corpus: {} inputs, {decoded} valid lines", files.len());
}
