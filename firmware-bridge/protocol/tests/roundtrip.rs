//! Property tests: every message the encoder writes decodes to itself, and the
//! framer finds every line in a stream no matter how it is chopped or salted.

use proptest::prelude::*;
use yut_height_protocol::{
    decode_line, encode, Body, EncodeError, ErrorCode, Frame, Hello, Key, LineFramer, Message,
    MAX_LINE,
};

/// Text a field may carry: printable ASCII without `$ , *`.
fn field_text(max: usize) -> impl Strategy<Value = String> {
    proptest::string::string_regex(&format!("[ -#%-)+\\-.-~]{{1,{max}}}")).unwrap()
}

fn key() -> impl Strategy<Value = Key> {
    proptest::sample::select(Key::ALL.to_vec())
}

/// Owned stand-in for `Body`, whose text fields borrow.
#[derive(Debug, Clone)]
enum OwnedBody {
    HelloRequest,
    Hello(String, String, String, u16),
    Heartbeat(u32, u32),
    Sample(Option<u16>, u16),
    Apex(u16, u32, u32),
    Set(Key, u32),
    Get(Key),
    Ack(u16, Key, u32),
    Error(String, Option<u16>, String),
}

fn body() -> impl Strategy<Value = OwnedBody> {
    prop_oneof![
        Just(OwnedBody::HelloRequest),
        (field_text(14), field_text(14), field_text(14), any::<u16>())
            .prop_map(|(a, b, c, r)| OwnedBody::Hello(a, b, c, r)),
        (any::<u32>(), any::<u32>()).prop_map(|(a, b)| OwnedBody::Heartbeat(a, b)),
        (any::<Option<u16>>(), any::<u16>()).prop_map(|(h, s)| OwnedBody::Sample(h, s)),
        (any::<u16>(), any::<u32>(), any::<u32>()).prop_map(|(h, a, b)| OwnedBody::Apex(h, a, b)),
        (key(), any::<u32>()).prop_map(|(k, v)| OwnedBody::Set(k, v)),
        key().prop_map(OwnedBody::Get),
        (any::<u16>(), key(), any::<u32>()).prop_map(|(r, k, v)| OwnedBody::Ack(r, k, v)),
        (
            proptest::string::string_regex("[A-Z]{1,10}").unwrap(),
            any::<Option<u16>>(),
            proptest::string::string_regex("[ -#%-)+\\-.-~]{0,20}").unwrap()
        )
            .prop_map(|(c, r, d)| OwnedBody::Error(c, r, d)),
    ]
}

fn borrow(b: &OwnedBody) -> Body<'_> {
    match b {
        OwnedBody::HelloRequest => Body::HelloRequest,
        OwnedBody::Hello(p, f, s, r) => Body::Hello(Hello {
            proto: p,
            firmware: f,
            sensor: s,
            rate_hz: *r,
        }),
        OwnedBody::Heartbeat(a, b) => Body::Heartbeat {
            samples: *a,
            sensor_faults: *b,
        },
        OwnedBody::Sample(h, s) => Body::Sample {
            height_mm: *h,
            strength: *s,
        },
        OwnedBody::Apex(h, a, b) => Body::Apex {
            height_mm: *h,
            t_rise_ms: *a,
            t_apex_ms: *b,
        },
        OwnedBody::Set(k, v) => Body::Set { key: *k, value: *v },
        OwnedBody::Get(k) => Body::Get { key: *k },
        OwnedBody::Ack(r, k, v) => Body::Ack {
            ref_seq: *r,
            key: *k,
            value: *v,
        },
        OwnedBody::Error(c, r, d) => Body::Error {
            code: ErrorCode::from_token(c),
            ref_seq: *r,
            detail: d,
        },
    }
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(512))]

    #[test]
    fn encode_then_decode_is_identity(seq in any::<u16>(), time_ms in any::<u32>(), b in body()) {
        let msg = Message { seq, time_ms, body: borrow(&b) };
        let mut buf = [0u8; 256];
        match encode(&msg, &mut buf) {
            Ok(n) => {
                prop_assert!(n <= MAX_LINE);
                prop_assert!(buf[..n].ends_with(b"\r\n"));
                prop_assert!(buf[..n - 2].iter().all(|&c| (0x20..=0x7e).contains(&c)));
                prop_assert_eq!(decode_line(&buf[..n]), Ok(msg));
            }
            // Only text-heavy messages may be too long for a line.
            Err(EncodeError::TooLong) => prop_assert!(matches!(b, OwnedBody::Hello(..) | OwnedBody::Error(..))),
            Err(e) => prop_assert!(false, "unexpected {e:?}"),
        }
    }

    #[test]
    fn framer_recovers_every_intact_line(
        seqs in proptest::collection::vec(any::<u16>(), 1..20),
        noise in proptest::collection::vec(proptest::collection::vec(any::<u8>(), 0..8), 20),
        chunk in 1usize..40,
    ) {
        // Lines separated by random noise that holds no '$' or '\n': every line must
        // come out intact, in order.
        let mut stream = Vec::new();
        for (i, &seq) in seqs.iter().enumerate() {
            stream.extend(noise[i].iter().copied().filter(|&b| b != b'$' && b != b'\n'));
            let mut buf = [0u8; MAX_LINE];
            let msg = Message { seq, time_ms: i as u32, body: Body::Sample { height_mm: Some(seq), strength: 1 } };
            let n = encode(&msg, &mut buf).unwrap();
            stream.extend_from_slice(&buf[..n]);
        }
        let mut framer = LineFramer::new();
        let mut got = Vec::new();
        for piece in stream.chunks(chunk) {
            for &b in piece {
                if let Some(Frame::Line(l)) = framer.push(b) {
                    got.push(decode_line(l).map(|m| m.seq));
                }
            }
        }
        let want: Vec<_> = seqs.iter().map(|&s| Ok(s)).collect();
        prop_assert_eq!(got, want);
    }

    #[test]
    fn decoding_arbitrary_bytes_never_panics(bytes in proptest::collection::vec(any::<u8>(), 0..120)) {
        yut_height_protocol::fuzzing::decode_line_target(&bytes);
    }
}
