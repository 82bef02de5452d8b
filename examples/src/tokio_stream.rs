//! `TokioStream`: a tokio `TcpStream` seen through the `futures::io` traits, so that the
//! examples that run the same connection code on ours and on tokio (`raw_responder`,
//! `redis_server`) write it once, generic over `futures::io`. A pass-through: each call
//! forwards to tokio's trait method, no buffering and no copy (tokio's `ReadBuf` wraps the
//! caller's slice).

use std::io;
use std::pin::Pin;
use std::task::{ready, Context, Poll};

use futures::io::{AsyncRead, AsyncWrite};

/// A tokio `TcpStream` seen through the `futures::io` traits (no buffering, no copies).
pub struct TokioStream(pub tokio::net::TcpStream);

impl AsyncRead for TokioStream {
    fn poll_read(
        self: Pin<&mut Self>,
        cx: &mut Context<'_>,
        buf: &mut [u8],
    ) -> Poll<io::Result<usize>> {
        let mut rb = tokio::io::ReadBuf::new(buf);
        ready!(tokio::io::AsyncRead::poll_read(
            Pin::new(&mut self.get_mut().0),
            cx,
            &mut rb
        ))?;
        Poll::Ready(Ok(rb.filled().len()))
    }
}

impl AsyncWrite for TokioStream {
    fn poll_write(
        self: Pin<&mut Self>,
        cx: &mut Context<'_>,
        buf: &[u8],
    ) -> Poll<io::Result<usize>> {
        tokio::io::AsyncWrite::poll_write(Pin::new(&mut self.get_mut().0), cx, buf)
    }

    fn poll_flush(self: Pin<&mut Self>, cx: &mut Context<'_>) -> Poll<io::Result<()>> {
        tokio::io::AsyncWrite::poll_flush(Pin::new(&mut self.get_mut().0), cx)
    }

    fn poll_close(self: Pin<&mut Self>, cx: &mut Context<'_>) -> Poll<io::Result<()>> {
        tokio::io::AsyncWrite::poll_shutdown(Pin::new(&mut self.get_mut().0), cx)
    }
}
