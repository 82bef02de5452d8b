//! The hooks by which a socket type of `runtime::net` works in a deterministic
//! runtime's in-memory network (`sim::net`), and compiles to nothing without the
//! `deterministic` feature.
//!
//! A socket's `io` field has the type `sim_or!(Real, Sim)`: `Real` (its `IoSource`)
//! without the feature, `sim::net::Io<Real, Sim>` with it. A method opens with
//! `on_sim!(self.io, |s| expr)`, which with the feature returns `expr` when the socket
//! is in memory and without it is empty, so the real path is the same code either way.
//! A constructor opens with `sim_current!(|sim| expr)`: with the feature, `expr` when
//! the current runtime is deterministic.

/// The type of a socket's `io` field (module docs).
#[cfg(all(feature = "deterministic", not(loom)))]
macro_rules! sim_or {
    ($real:ty, $sim:ty) => {
        crate::sim::net::Io<$real, $sim>
    };
}

/// The type of a socket's `io` field (module docs).
#[cfg(not(all(feature = "deterministic", not(loom))))]
macro_rules! sim_or {
    ($real:ty, $sim:ty) => {
        $real
    };
}

/// Wraps a real source in a socket's `io` field type.
#[cfg(all(feature = "deterministic", not(loom)))]
macro_rules! real_io {
    ($e:expr) => {
        crate::sim::net::Io::Real($e)
    };
}

/// Wraps a real source in a socket's `io` field type.
#[cfg(not(all(feature = "deterministic", not(loom))))]
macro_rules! real_io {
    ($e:expr) => {
        $e
    };
}

/// The real source out of a socket's `io` field, by value (panics on an in-memory one).
#[cfg(all(feature = "deterministic", not(loom)))]
macro_rules! into_real {
    ($e:expr) => {
        $e.into_real()
    };
}

/// The real source out of a socket's `io` field, by value.
#[cfg(not(all(feature = "deterministic", not(loom))))]
macro_rules! into_real {
    ($e:expr) => {
        $e
    };
}

/// Returns `$body` when the socket is in memory (module docs).
#[cfg(all(feature = "deterministic", not(loom)))]
macro_rules! on_sim {
    ($io:expr, |$s:ident| $body:expr) => {
        if let Some($s) = $io.sim() {
            #[allow(clippy::needless_return)]
            return $body;
        }
    };
}

/// Empty without the `deterministic` feature (module docs).
#[cfg(not(all(feature = "deterministic", not(loom))))]
macro_rules! on_sim {
    ($io:expr, |$s:ident| $body:expr) => {};
}

/// Returns `$body` when the current runtime is deterministic (module docs).
#[cfg(all(feature = "deterministic", not(loom)))]
macro_rules! sim_current {
    (|$sim:ident| $body:expr) => {
        if let Some($sim) = crate::sim::current() {
            #[allow(clippy::needless_return)]
            return $body;
        }
    };
}

/// Empty without the `deterministic` feature (module docs).
#[cfg(not(all(feature = "deterministic", not(loom))))]
macro_rules! sim_current {
    (|$sim:ident| $body:expr) => {};
}
