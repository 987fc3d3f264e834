//! The body of the `decode_line` fuzz target, kept here so that a plain `cargo test`
//! can replay the fuzz corpus on stable Rust (`tests/fuzz_corpus.rs`) and the
//! cargo-fuzz target (`firmware-bridge/fuzz/`) stays a one-line wrapper.

use crate::{decode_line, encode, Frame, LineFramer, MAX_LINE};

/// Check the decoder's invariants on arbitrary bytes; panics if one breaks:
/// - decoding never panics, whatever the input;
/// - a line that decodes re-encodes (within [`MAX_LINE`]) and decodes to the same
///   message: the encoder can say everything the decoder accepts;
/// - the framer, fed the same bytes, never yields a line longer than [`MAX_LINE`]
///   and every line it yields decodes without panicking.
pub fn decode_line_target(data: &[u8]) {
    if let Ok(msg) = decode_line(data) {
        let mut buf = [0u8; MAX_LINE];
        let n = encode(&msg, &mut buf).expect("a decoded message must encode");
        let again = decode_line(&buf[..n]).expect("an encoded message must decode");
        assert_eq!(again, msg, "round trip changed the message");
    }
    let mut framer = LineFramer::new();
    for &byte in data {
        if let Some(Frame::Line(line)) = framer.push(byte) {
            assert!(line.len() < MAX_LINE);
            let _ = decode_line(line);
        }
    }
}
