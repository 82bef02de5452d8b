//! `Service`: what the server calls once per request, and `service_fn` to make one from a
//! closure.
//!
//! A service is shared by every connection of a server (behind one `Arc`), so `call` takes
//! `&self` and returns a future that owns what it needs. The connection task awaits each
//! handler future in request order; it never needs to be `'static` on its own.

use std::fmt;
use std::future::Future;

use http::{Request, Response};

use super::{Body, BoxError};

/// An asynchronous function from a request to a response.
pub trait Service: Send + Sync + 'static {
    /// The handler's error; the server answers 500 when it sees one.
    type Error: Into<BoxError> + Send;
    /// The handler's future.
    type Future: Future<Output = Result<Response<Body>, Self::Error>> + Send;

    /// Handles one request.
    fn call(&self, req: Request<Body>) -> Self::Future;
}

/// A [`Service`] made from a closure by [`service_fn`].
#[derive(Clone, Copy)]
pub struct ServiceFn<F> {
    f: F,
}

/// Makes a [`Service`] from `async` closure-like functions:
/// `service_fn(|req| async { Ok::<_, Infallible>(Response::new(Body::from("hi"))) })`.
pub fn service_fn<F, Fut, E>(f: F) -> ServiceFn<F>
where
    F: Fn(Request<Body>) -> Fut + Send + Sync + 'static,
    Fut: Future<Output = Result<Response<Body>, E>> + Send,
    E: Into<BoxError> + Send,
{
    ServiceFn { f }
}

impl<F, Fut, E> Service for ServiceFn<F>
where
    F: Fn(Request<Body>) -> Fut + Send + Sync + 'static,
    Fut: Future<Output = Result<Response<Body>, E>> + Send,
    E: Into<BoxError> + Send,
{
    type Error = E;
    type Future = Fut;

    #[inline]
    fn call(&self, req: Request<Body>) -> Fut {
        (self.f)(req)
    }
}

impl<F> fmt::Debug for ServiceFn<F> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("ServiceFn").finish_non_exhaustive()
    }
}
