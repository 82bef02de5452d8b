//! `tls_echo` (tokio-rustls on our `TcpStream`): a real TLS handshake against a
//! certificate made here with rcgen, then bytes both ways, then a clean close_notify in
//! both directions. The client is rustls's blocking `StreamOwned`, so nothing in the
//! client depends on the runtime under test.

mod common;

use std::io::{Read, Write};
use std::sync::Arc;

use common::Server;
use rustls::pki_types::{CertificateDer, ServerName};
use rustls::{ClientConfig, ClientConnection, RootCertStore, StreamOwned};

/// A fresh self-signed certificate for `localhost`, written as PEM files; returns the
/// paths and the certificate (for the client's trust store).
fn self_signed() -> (
    std::path::PathBuf,
    std::path::PathBuf,
    CertificateDer<'static>,
) {
    let ck = rcgen::generate_simple_self_signed(vec!["localhost".to_string()]).unwrap();
    let dir = std::env::temp_dir().join(format!("ports-tls-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let cert = dir.join("cert.pem");
    let key = dir.join("key.pem");
    std::fs::write(&cert, ck.cert.pem()).unwrap();
    std::fs::write(&key, ck.key_pair.serialize_pem()).unwrap();
    (cert, key, ck.cert.der().clone())
}

#[test]
fn handshake_and_echo_both_ways() {
    let (cert, key, der) = self_signed();
    let server = Server::start(
        env!("CARGO_BIN_EXE_tls_echo"),
        &["127.0.0.1:0", cert.to_str().unwrap(), key.to_str().unwrap()],
    );

    let mut roots = RootCertStore::empty();
    roots.add(der).unwrap();
    let config = ClientConfig::builder()
        .with_root_certificates(roots)
        .with_no_client_auth();
    let name = ServerName::try_from("localhost").unwrap();
    let conn = ClientConnection::new(Arc::new(config), name).unwrap();
    let mut tls = StreamOwned::new(conn, server.connect());

    // A short message: the handshake happens on this first write.
    tls.write_all(b"hello over tls").unwrap();
    tls.flush().unwrap();
    let mut back = [0; 14];
    tls.read_exact(&mut back).unwrap();
    assert_eq!(&back, b"hello over tls");
    assert!(
        tls.conn.negotiated_cipher_suite().is_some(),
        "a real handshake"
    );

    // 64 KiB: several TLS records each way.
    let big: Vec<u8> = (0..64 * 1024u32).map(|i| (i * 7 % 256) as u8).collect();
    tls.write_all(&big).unwrap();
    tls.flush().unwrap();
    let mut got = vec![0; big.len()];
    tls.read_exact(&mut got).unwrap();
    assert_eq!(got, big);

    // Our close_notify ends the server's copy; its shutdown sends one back: clean EOF.
    tls.conn.send_close_notify();
    tls.flush().unwrap();
    let mut rest = Vec::new();
    tls.read_to_end(&mut rest).unwrap();
    assert!(
        rest.is_empty(),
        "nothing after the echo: {} bytes",
        rest.len()
    );

    let _ = std::fs::remove_dir_all(cert.parent().unwrap());
}
