//! `Body`: the body of a request or a response.
//!
//! Request bodies are always read whole before the handler runs (Content-Length or chunked,
//! bounded by `max_body_size`), so a request's body is `Empty` or `Full`. A response body is
//! `Empty` or `Full` (sent with `content-length`) or a `Stream` of chunks (sent with
//! `transfer-encoding: chunked`, or close-delimited to an HTTP/1.0 client).

use std::fmt;
use std::pin::Pin;

use bytes::Bytes;
use futures::stream::{Stream, StreamExt, TryStreamExt};

use super::BoxError;

/// A chunk stream as the server consumes it.
pub(crate) type BoxStream = Pin<Box<dyn Stream<Item = Result<Bytes, BoxError>> + Send>>;

/// The body of a request or a response.
pub struct Body {
    pub(crate) kind: Kind,
}

pub(crate) enum Kind {
    Empty,
    Full(Bytes),
    Stream(BoxStream),
}

impl Body {
    /// A body with no bytes.
    pub const fn empty() -> Body {
        Body { kind: Kind::Empty }
    }

    /// A body streamed from chunks; a response with it is sent chunked.
    pub fn from_stream<S, E>(stream: S) -> Body
    where
        S: Stream<Item = Result<Bytes, E>> + Send + 'static,
        E: Into<BoxError> + 'static,
    {
        Body {
            kind: Kind::Stream(Box::pin(stream.map_err(Into::into))),
        }
    }

    /// The exact length in bytes, when it is known without reading (not for streams).
    pub fn len(&self) -> Option<usize> {
        match &self.kind {
            Kind::Empty => Some(0),
            Kind::Full(b) => Some(b.len()),
            Kind::Stream(_) => None,
        }
    }

    /// Whether the body is known to hold no bytes.
    pub fn is_empty(&self) -> bool {
        self.len() == Some(0)
    }

    /// The bytes of a body that is not a stream (every request body).
    pub fn as_bytes(&self) -> Option<&[u8]> {
        match &self.kind {
            Kind::Empty => Some(&[]),
            Kind::Full(b) => Some(b),
            Kind::Stream(_) => None,
        }
    }

    /// All the bytes, concatenated (a stream is read to its end).
    pub async fn collect(self) -> Result<Bytes, BoxError> {
        match self.kind {
            Kind::Empty => Ok(Bytes::new()),
            Kind::Full(b) => Ok(b),
            Kind::Stream(mut s) => {
                let mut all = Vec::new();
                while let Some(chunk) = s.next().await {
                    all.extend_from_slice(&chunk?);
                }
                Ok(Bytes::from(all))
            }
        }
    }
}

impl Default for Body {
    fn default() -> Body {
        Body::empty()
    }
}

impl From<Bytes> for Body {
    fn from(b: Bytes) -> Body {
        if b.is_empty() {
            Body::empty()
        } else {
            Body {
                kind: Kind::Full(b),
            }
        }
    }
}

impl From<&'static str> for Body {
    fn from(s: &'static str) -> Body {
        Body::from(Bytes::from_static(s.as_bytes()))
    }
}

impl From<&'static [u8]> for Body {
    fn from(s: &'static [u8]) -> Body {
        Body::from(Bytes::from_static(s))
    }
}

impl From<String> for Body {
    fn from(s: String) -> Body {
        Body::from(Bytes::from(s))
    }
}

impl From<Vec<u8>> for Body {
    fn from(v: Vec<u8>) -> Body {
        Body::from(Bytes::from(v))
    }
}

impl fmt::Debug for Body {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match &self.kind {
            Kind::Empty => f.write_str("Body::Empty"),
            Kind::Full(b) => f.debug_tuple("Body::Full").field(&b.len()).finish(),
            Kind::Stream(_) => f.write_str("Body::Stream"),
        }
    }
}
