//! `Server`: the settings, and the accept loop that spawns one task per connection.
//!
//! `serve` accepts forever, turning on `TCP_NODELAY` and spawning each connection's task
//! with a clone of the shared service (`Arc`) and a copy of the settings. Accept errors are
//! sorted three ways: a connection that died in the backlog (ECONNABORTED, EPROTO, EINTR,
//! ...) is skipped at once; running out of descriptors or memory (EMFILE, ENFILE, ENOBUFS,
//! ENOMEM) and anything unknown make the loop sleep -- 10 ms, doubling up to 100 ms, reset
//! by the next success -- instead of spinning on an error that will not go away by itself;
//! and an error that says the listener itself is unusable (EBADF, EINVAL, ENOTSOCK,
//! EOPNOTSUPP) is returned.

use std::io;
use std::sync::Arc;
use std::time::Duration;

use futures::io::{AsyncRead, AsyncWrite};
use runtime::net::TcpListener;

use super::conn;
use super::Service;

const MIN_BACKOFF: Duration = Duration::from_millis(10);
const MAX_BACKOFF: Duration = Duration::from_millis(100);

/// Connection settings.
#[derive(Debug, Clone, Copy)]
pub(crate) struct Config {
    pub(crate) header_read_timeout: Duration,
    pub(crate) body_read_timeout: Duration,
    pub(crate) write_timeout: Duration,
    pub(crate) max_head_size: usize,
    pub(crate) max_body_size: usize,
}

impl Config {
    /// The read buffer holds a whole head of the maximum size with room to spare.
    pub(crate) fn read_buffer_size(&self) -> usize {
        (self.max_head_size * 2).max(16 * 1024)
    }
}

/// An HTTP/1.1 server's settings; [`Server::serve`] runs it on a listener.
///
/// ```no_run
/// # use std::time::Duration;
/// # use examples::http::{service_fn, Body, Server};
/// # async fn run(listener: runtime::net::TcpListener) -> std::io::Result<()> {
/// Server::new()
///     .header_read_timeout(Duration::from_secs(5))
///     .body_read_timeout(Duration::from_secs(10))
///     .write_timeout(Duration::from_secs(10))
///     .serve(listener, service_fn(|_req| async {
///         Ok::<_, std::convert::Infallible>(http::Response::new(Body::from("hi")))
///     }))
///     .await
/// # }
/// ```
#[derive(Debug, Clone, Copy)]
pub struct Server {
    cfg: Config,
}

impl Default for Server {
    fn default() -> Server {
        Server::new()
    }
}

impl Server {
    /// Defaults: 10 s to receive a request head, 30 s without progress on a request body
    /// or on a response, heads up to 8 KiB, bodies up to 8 MiB.
    pub fn new() -> Server {
        Server {
            cfg: Config {
                header_read_timeout: Duration::from_secs(10),
                body_read_timeout: Duration::from_secs(30),
                write_timeout: Duration::from_secs(30),
                max_head_size: 8 * 1024,
                max_body_size: 8 * 1024 * 1024,
            },
        }
    }

    /// How long a client may take to send a complete request head, counted from when the
    /// server starts waiting for it (so it also bounds an idle keep-alive connection).
    pub fn header_read_timeout(mut self, timeout: Duration) -> Server {
        self.cfg.header_read_timeout = timeout;
        self
    }

    /// How long a request body may go without a byte arriving. The clock restarts with
    /// every read that brings bytes (a slow upload that keeps moving is served); a body that
    /// stalls for this long is answered `408 Request Timeout` and the connection closed.
    pub fn body_read_timeout(mut self, timeout: Duration) -> Server {
        self.cfg.body_read_timeout = timeout;
        self
    }

    /// How long a response may go without a byte leaving. The clock restarts with every
    /// write that sends bytes (a slow reader that keeps reading is served); a client that
    /// reads nothing for this long is dropped, so one that never reads its responses cannot
    /// hold the connection.
    pub fn write_timeout(mut self, timeout: Duration) -> Server {
        self.cfg.write_timeout = timeout;
        self
    }

    /// Largest request head (request line and headers) accepted; a larger one gets 431.
    ///
    /// # Panics
    /// When `bytes` is 0.
    #[track_caller]
    pub fn max_head_size(mut self, bytes: usize) -> Server {
        assert!(bytes > 0, "max_head_size must be at least 1");
        self.cfg.max_head_size = bytes;
        self
    }

    /// Largest request body accepted; a larger one gets 413.
    pub fn max_body_size(mut self, bytes: usize) -> Server {
        self.cfg.max_body_size = bytes;
        self
    }

    /// Accepts connections from `listener` and serves each on its own task, forever; returns
    /// only when the listener itself fails (see the module docs for which errors do that).
    pub async fn serve<S: Service>(&self, listener: TcpListener, service: S) -> io::Result<()> {
        let service = Arc::new(service);
        let mut backoff = MIN_BACKOFF;
        loop {
            match listener.accept().await {
                Ok((stream, _peer)) => {
                    backoff = MIN_BACKOFF;
                    // Responses are written whole; Nagle would only delay them.
                    let _ = stream.set_nodelay(true);
                    let service = service.clone();
                    let cfg = self.cfg;
                    // Detached: the task owns its connection and ends with it.
                    drop(runtime::spawn(async move {
                        let _ = conn::serve_connection(stream, &*service, &cfg).await;
                    }));
                }
                Err(e) => match classify(&e) {
                    AcceptError::Skip => {}
                    AcceptError::Fatal => return Err(e),
                    AcceptError::BackOff => {
                        eprintln!("http: accept failed: {e}; retrying in {backoff:?}");
                        runtime::time::sleep(backoff).await;
                        backoff = (backoff * 2).min(MAX_BACKOFF);
                    }
                },
            }
        }
    }

    /// Serves HTTP/1.1 on one established connection (any byte stream) until it ends.
    pub async fn serve_connection<IO, S>(&self, io: IO, service: &S) -> io::Result<()>
    where
        IO: AsyncRead + AsyncWrite + Unpin,
        S: Service,
    {
        conn::serve_connection(io, service, &self.cfg).await
    }
}

/// Serves `service` on `listener` with the default settings; see [`Server::serve`].
pub async fn serve<S: Service>(listener: TcpListener, service: S) -> io::Result<()> {
    Server::new().serve(listener, service).await
}

#[derive(Debug, PartialEq, Eq)]
enum AcceptError {
    /// One connection failed; the next accept may well succeed.
    Skip,
    /// Out of a resource (or unknown): sleep before trying again.
    BackOff,
    /// The listener is unusable.
    Fatal,
}

fn classify(e: &io::Error) -> AcceptError {
    match e.raw_os_error() {
        Some(
            libc::ECONNABORTED
            | libc::ECONNRESET
            | libc::EPROTO
            | libc::EINTR
            | libc::EAGAIN
            | libc::EPERM
            | libc::ENETDOWN
            | libc::ENOPROTOOPT
            | libc::EHOSTDOWN
            | libc::ENONET
            | libc::EHOSTUNREACH
            | libc::ENETUNREACH
            | libc::ETIMEDOUT,
        ) => AcceptError::Skip,
        Some(libc::EBADF | libc::EINVAL | libc::ENOTSOCK | libc::EOPNOTSUPP | libc::EFAULT) => {
            AcceptError::Fatal
        }
        Some(_) => AcceptError::BackOff,
        None => match e.kind() {
            io::ErrorKind::ConnectionAborted
            | io::ErrorKind::ConnectionReset
            | io::ErrorKind::Interrupted
            | io::ErrorKind::WouldBlock => AcceptError::Skip,
            _ => AcceptError::BackOff,
        },
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn accept_errors_are_sorted() {
        let os = io::Error::from_raw_os_error;
        assert_eq!(classify(&os(libc::EMFILE)), AcceptError::BackOff);
        assert_eq!(classify(&os(libc::ENFILE)), AcceptError::BackOff);
        assert_eq!(classify(&os(libc::ENOBUFS)), AcceptError::BackOff);
        assert_eq!(classify(&os(libc::ECONNABORTED)), AcceptError::Skip);
        assert_eq!(classify(&os(libc::EBADF)), AcceptError::Fatal);
        assert_eq!(classify(&io::Error::other("?")), AcceptError::BackOff);
    }
}
