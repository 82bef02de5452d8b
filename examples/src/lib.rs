//! Examples for `runtime`; see the `examples/` folder of this crate:
//! `hello`, `many_tasks`, and (with the I/O driver) `echo`, `chat`, `http_server`,
//! `hyper_server`.

#[cfg(not(loom))]
pub mod chat;
#[cfg(not(loom))]
pub mod http;
#[cfg(not(loom))]
pub mod tokio_stream;
