//! A TLS echo server with `tokio-rustls`: `tls_echo ADDR CERT.pem KEY.pem`.
//!
//! Ported from tokio by renaming `tokio::` to `runtime::`; nothing else changed.

use std::env;
use std::error::Error;
use std::sync::Arc;

use runtime::io::{copy, split, AsyncWriteExt};
use runtime::net::TcpListener;
use tokio_rustls::rustls::pki_types::pem::PemObject;
use tokio_rustls::rustls::pki_types::{CertificateDer, PrivateKeyDer};
use tokio_rustls::rustls::ServerConfig;
use tokio_rustls::TlsAcceptor;

#[runtime::main]
async fn main() -> Result<(), Box<dyn Error>> {
    let mut args = env::args().skip(1);
    let addr = args.next().unwrap_or_else(|| "127.0.0.1:8443".to_string());
    let cert_path = args.next().ok_or("usage: tls_echo ADDR CERT.pem KEY.pem")?;
    let key_path = args.next().ok_or("usage: tls_echo ADDR CERT.pem KEY.pem")?;

    let certs = CertificateDer::pem_file_iter(&cert_path)?.collect::<Result<Vec<_>, _>>()?;
    let key = PrivateKeyDer::from_pem_file(&key_path)?;
    let config = ServerConfig::builder()
        .with_no_client_auth()
        .with_single_cert(certs, key)?;
    let acceptor = TlsAcceptor::from(Arc::new(config));

    let listener = TcpListener::bind(&addr).await?;
    println!("Listening on: {}", listener.local_addr()?);

    loop {
        let (stream, peer_addr) = listener.accept().await?;
        let acceptor = acceptor.clone();

        runtime::spawn(async move {
            let result = async move {
                let stream = acceptor.accept(stream).await?;
                let (mut reader, mut writer) = split(stream);
                let n = copy(&mut reader, &mut writer).await?;
                writer.shutdown().await?;
                Ok::<_, std::io::Error>(n)
            }
            .await;
            match result {
                Ok(n) => eprintln!("{peer_addr}: echoed {n} bytes"),
                Err(e) => eprintln!("{peer_addr}: {e}"),
            }
        });
    }
}
