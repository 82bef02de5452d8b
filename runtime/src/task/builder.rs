//! `task::Builder`: spawn a task with a name.
//!
//! A task's identity (`TaskMeta`: id, name, spawn location) lives in one word of the
//! task's cold trailer. Every spawn function records its caller's location there through
//! `#[track_caller]`, at no cost beyond the store of that word; a name needs memory of its
//! own, so a named spawn makes one small allocation (the name and the location, shared by
//! the task and every `TaskMeta` taken of it). Names show wherever the runtime reports a
//! task: a `JoinError` (`task 'conn' (id 42, spawned at src/server.rs:88:5) panicked ...`),
//! a stall report, a task dump, a shutdown report.

use std::future::Future;
use std::io;
use std::panic::Location;

use ::task::SpawnMeta;

use super::{JoinHandle, LocalSet};
use crate::Handle;

/// Spawns tasks with a name (tokio's `task::Builder`).
///
/// ```
/// # runtime::Builder::new_multi_thread().build().unwrap().block_on(async {
/// let conn = runtime::task::Builder::new()
///     .name("conn")
///     .spawn(async { 7 })
///     .unwrap();
/// assert_eq!(conn.meta().name(), Some("conn"));
/// assert_eq!(conn.await.unwrap(), 7);
/// # });
/// ```
///
/// Each spawn method returns `Err` where its plain counterpart would panic: outside a
/// runtime (`spawn`, `spawn_blocking`) or outside a `LocalSet` (`spawn_local`).
#[derive(Clone, Copy, Debug, Default)]
pub struct Builder<'a> {
    name: Option<&'a str>,
}

impl<'a> Builder<'a> {
    /// A builder for an unnamed task.
    pub fn new() -> Builder<'a> {
        Builder { name: None }
    }

    /// Names the task (copied into the task when it is spawned).
    pub fn name(&self, name: &'a str) -> Builder<'a> {
        Builder { name: Some(name) }
    }

    #[track_caller]
    fn meta(&self) -> SpawnMeta {
        let at = Location::caller();
        match self.name {
            Some(name) => SpawnMeta::named(name, Some(at)),
            None => SpawnMeta::at(at),
        }
    }

    /// [`task::spawn`](super::spawn) with this builder's name.
    #[track_caller]
    pub fn spawn<F>(self, future: F) -> io::Result<JoinHandle<F::Output>>
    where
        F: Future + Send + 'static,
        F::Output: Send + 'static,
    {
        super::try_spawn_with(future, self.meta())
            .ok_or_else(|| io::Error::other(crate::misuse::SPAWN_OUTSIDE_RUNTIME))
    }

    /// [`Handle::spawn`] with this builder's name.
    #[track_caller]
    pub fn spawn_on<F>(self, future: F, handle: &Handle) -> io::Result<JoinHandle<F::Output>>
    where
        F: Future + Send + 'static,
        F::Output: Send + 'static,
    {
        Ok(handle.spawn_with(future, self.meta()))
    }

    /// [`task::spawn_local`](super::spawn_local) with this builder's name.
    #[track_caller]
    pub fn spawn_local<F>(self, future: F) -> io::Result<JoinHandle<F::Output>>
    where
        F: Future + 'static,
        F::Output: 'static,
    {
        super::local::try_spawn_local_with(future, self.meta())
            .ok_or_else(|| io::Error::other(crate::misuse::SPAWN_LOCAL_OUTSIDE_LOCAL_SET))
    }

    /// [`LocalSet::spawn_local`] with this builder's name.
    #[track_caller]
    pub fn spawn_local_on<F>(
        self,
        future: F,
        local_set: &LocalSet,
    ) -> io::Result<JoinHandle<F::Output>>
    where
        F: Future + 'static,
        F::Output: 'static,
    {
        Ok(local_set.spawn_local_with(future, self.meta()))
    }

    /// [`task::spawn_blocking`](super::spawn_blocking) with this builder's name.
    #[track_caller]
    pub fn spawn_blocking<F, R>(self, f: F) -> io::Result<JoinHandle<R>>
    where
        F: FnOnce() -> R + Send + 'static,
        R: Send + 'static,
    {
        super::try_spawn_blocking_with(f, self.meta())
            .ok_or_else(|| io::Error::other(crate::misuse::SPAWN_BLOCKING_OUTSIDE_RUNTIME))
    }

    /// [`Handle::spawn_blocking`] with this builder's name.
    #[track_caller]
    pub fn spawn_blocking_on<F, R>(self, f: F, handle: &Handle) -> io::Result<JoinHandle<R>>
    where
        F: FnOnce() -> R + Send + 'static,
        R: Send + 'static,
    {
        Ok(handle.spawn_blocking_with(f, self.meta()))
    }
}
