//! Decoder throughput: framing plus decoding of a realistic stream (samples at
//! 100 Hz with a heartbeat a second), in lines per second.

use criterion::{criterion_group, criterion_main, Criterion, Throughput};
use std::hint::black_box;
use yut_height_protocol::{decode_line, encode, Body, Frame, LineFramer, Message, MAX_LINE};

fn stream(lines: usize) -> Vec<u8> {
    let mut out = Vec::new();
    for i in 0..lines {
        let body = if i % 100 == 99 {
            Body::Heartbeat {
                samples: i as u32,
                sensor_faults: 0,
            }
        } else {
            Body::Sample {
                height_mm: Some(1200 + (i % 400) as u16),
                strength: 900,
            }
        };
        let msg = Message {
            seq: i as u16,
            time_ms: 10 * i as u32,
            body,
        };
        let mut buf = [0u8; MAX_LINE];
        let n = encode(&msg, &mut buf).unwrap();
        out.extend_from_slice(&buf[..n]);
    }
    out
}

fn bench(c: &mut Criterion) {
    const LINES: usize = 1000;
    let bytes = stream(LINES);
    let mut group = c.benchmark_group("decoder");
    group.throughput(Throughput::Elements(LINES as u64));
    group.bench_function("frame_and_decode_lines", |b| {
        b.iter(|| {
            let mut framer = LineFramer::new();
            let mut ok = 0u32;
            for &byte in black_box(&bytes[..]) {
                if let Some(Frame::Line(line)) = framer.push(byte) {
                    ok += u32::from(decode_line(line).is_ok());
                }
            }
            assert_eq!(ok as usize, LINES);
            ok
        })
    });
    group.finish();
}

criterion_group!(benches, bench);
criterion_main!(benches);
