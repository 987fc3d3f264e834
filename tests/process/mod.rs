//! For tests that run the real `yutstation` binary and talk to it over HTTP:
//! a blocking one-request client, a referee's command through it, and a wait
//! for the port to open.
#![allow(dead_code)]

use serde_json::Value;
use std::io::{Read, Write};
use std::net::{SocketAddr, TcpStream};
use std::time::{Duration, Instant};

/// A free loopback address for a station to listen on.
pub fn free_addr() -> SocketAddr {
    std::net::TcpListener::bind("127.0.0.1:0")
        .unwrap()
        .local_addr()
        .unwrap()
}

/// Wait until something listens on `addr`.
pub fn wait_listening(addr: SocketAddr) {
    let t = Instant::now();
    while TcpStream::connect(addr).is_err() {
        assert!(
            t.elapsed() < Duration::from_secs(30),
            "nothing listens on {addr}"
        );
        std::thread::sleep(Duration::from_millis(20));
    }
}

/// One HTTP/1.1 request (JSON body, optional bearer token); the status and the JSON
/// body (`Null` when the body is not JSON).
pub fn http(
    addr: SocketAddr,
    method: &str,
    path: &str,
    token: Option<&str>,
    body: &Value,
) -> (u16, Value) {
    let body = if body.is_null() {
        String::new()
    } else {
        body.to_string()
    };
    let auth = token
        .map(|t| format!("Authorization: Bearer {t}\r\n"))
        .unwrap_or_default();
    let mut s = TcpStream::connect(addr).unwrap();
    write!(
        s,
        "{method} {path} HTTP/1.1\r\nHost: {addr}\r\nConnection: close\r\nContent-Type: application/json\r\n{auth}Content-Length: {}\r\n\r\n{body}",
        body.len()
    )
    .unwrap();
    let mut raw = Vec::new();
    s.read_to_end(&mut raw).unwrap();
    let text = String::from_utf8_lossy(&raw);
    let status = text[9..12].parse().unwrap();
    let (_, rest) = text.split_once("\r\n\r\n").unwrap();
    (status, serde_json::from_str(rest).unwrap_or(Value::Null))
}

/// Send a referee's command (`POST /api/command`) with `token`; it must be
/// acknowledged. The acknowledgement's body.
pub fn command(addr: SocketAddr, token: &str, command: Value) -> Value {
    let (status, body) = http(
        addr,
        "POST",
        "/api/command",
        Some(token),
        &serde_json::json!({ "command": command }),
    );
    assert_eq!(status, 200, "{command}: {body}");
    body
}
