//! `Send` and `Sync` of the public types and of the futures the async functions return,
//! checked at compile time against tokio's `tests/async_send_sync.rs`: every item tokio
//! asserts `Send + Sync` for is asserted here for ours, under the same path (the I/O
//! extension traits, tokio's own in the default build, are left out). A future that is
//! `Sync` can sit in a `Sync` struct or be held across an `.await` in a future that must
//! be `Sync` (a boxed `dyn Future + Send + Sync`), as with tokio.
#![cfg(all(unix, not(loom)))]
#![allow(dead_code, unreachable_code, unused_variables, clippy::type_complexity)]

use std::cell::Cell;
use std::future::Future;
use std::net::SocketAddr;
use std::pin::Pin;

use runtime::net::TcpStream;
use runtime::time::{Duration, Instant};

/// `Send` and `Sync`.
#[derive(Clone)]
struct YY {}

/// `Send`, not `Sync`.
#[derive(Clone)]
struct YN {
    _value: Cell<u8>,
}

type BoxFutureSync<T> = Pin<Box<dyn Future<Output = T> + Send + Sync>>;

/// A descriptor type for `AsyncFd`, never called.
struct ImplsFd<T> {
    _t: T,
}

impl<T> std::os::fd::AsRawFd for ImplsFd<T> {
    fn as_raw_fd(&self) -> std::os::fd::RawFd {
        unreachable!("only named in types")
    }
}

fn require_send<T: Send>(_: &T) {}
fn require_sync<T: Sync>(_: &T) {}

/// A value of any type, for expressions only type-checked (the closures holding them are
/// never called).
fn any<T>() -> T {
    unreachable!("only type-checked")
}

/// `path(args)`'s value (an async function's future) is `Send + Sync`.
macro_rules! sync_fn {
    ($($seg:ident $(<$($g:ty),*>)?)::+ ($($arg:ty),* $(,)?)) => {
        const _: fn() = || {
            let f = $($seg $(::<$($g),*>)?)::+($(any::<$arg>()),*);
            require_send(&f);
            require_sync(&f);
        };
    };
}

/// A value of type `$t` is `Send + Sync`.
macro_rules! sync_value {
    ($t:ty) => {
        const _: fn() = || {
            let v: $t = any();
            require_send(&v);
            require_sync(&v);
        };
    };
}

/// `select!`'s and `join!`'s `poll_fn`: `Sync` whenever what it owns is.
const _: fn() = || {
    let pinned = std::marker::PhantomPinned;
    let f = runtime::macros::support::poll_fn(move |_| {
        let _ = &pinned;
        std::task::Poll::Pending::<()>
    });
    require_send(&f);
    require_sync(&f);
};

sync_value!(runtime::fs::DirBuilder);
sync_value!(runtime::fs::DirEntry);
sync_value!(runtime::fs::File);
sync_value!(runtime::fs::FileTimes);
sync_value!(runtime::fs::OpenOptions);
sync_value!(runtime::fs::ReadDir);
sync_fn!(runtime::fs::canonicalize(&str));
sync_fn!(runtime::fs::copy(&str, &str));
sync_fn!(runtime::fs::create_dir(&str));
sync_fn!(runtime::fs::create_dir_all(&str));
sync_fn!(runtime::fs::hard_link(&str, &str));
sync_fn!(runtime::fs::metadata(&str));
sync_fn!(runtime::fs::read(&str));
sync_fn!(runtime::fs::read_dir(&str));
sync_fn!(runtime::fs::read_link(&str));
sync_fn!(runtime::fs::read_to_string(&str));
sync_fn!(runtime::fs::remove_dir(&str));
sync_fn!(runtime::fs::remove_dir_all(&str));
sync_fn!(runtime::fs::remove_file(&str));
sync_fn!(runtime::fs::rename(&str, &str));
sync_fn!(runtime::fs::set_permissions(&str, std::fs::Permissions));
sync_fn!(runtime::fs::symlink_metadata(&str));
sync_fn!(runtime::fs::write(&str, Vec<u8>));
sync_fn!(runtime::fs::ReadDir::next_entry(_));
sync_fn!(runtime::fs::OpenOptions::open(_, &str));
sync_fn!(runtime::fs::DirBuilder::create(_, &str));
sync_fn!(runtime::fs::DirEntry::metadata(_));
sync_fn!(runtime::fs::DirEntry::file_type(_));
sync_fn!(runtime::fs::File::open(&str));
sync_fn!(runtime::fs::File::create(&str));
sync_fn!(runtime::fs::File::sync_all(_));
sync_fn!(runtime::fs::File::sync_data(_));
sync_fn!(runtime::fs::File::set_len(_, u64));
sync_fn!(runtime::fs::File::metadata(_));
sync_fn!(runtime::fs::File::try_clone(_));
sync_fn!(runtime::fs::File::into_std(_));
sync_fn!(runtime::fs::File::set_times(_, runtime::fs::FileTimes));
sync_fn!(runtime::fs::File::set_modified(_, std::time::SystemTime));
sync_fn!(runtime::fs::File::set_permissions(_, std::fs::Permissions));
sync_value!(runtime::net::TcpSocket);
sync_fn!(runtime::net::TcpListener::bind(SocketAddr));
sync_fn!(runtime::net::TcpStream::connect(SocketAddr));
sync_value!(runtime::net::TcpListener);
sync_value!(runtime::net::TcpStream);
sync_value!(runtime::net::tcp::OwnedReadHalf);
sync_value!(runtime::net::tcp::OwnedWriteHalf);
sync_value!(runtime::net::tcp::ReadHalf<'_>);
sync_value!(runtime::net::tcp::ReuniteError);
sync_value!(runtime::net::tcp::WriteHalf<'_>);
sync_fn!(runtime::net::TcpListener::accept(_));
sync_fn!(runtime::net::TcpStream::peek(_, &mut [u8]));
sync_fn!(runtime::net::TcpStream::readable(_));
sync_fn!(runtime::net::TcpStream::ready(_, runtime::io::Interest));
sync_fn!(runtime::net::TcpStream::writable(_));
sync_value!(runtime::net::UdpSocket);
sync_fn!(runtime::net::UdpSocket::bind(SocketAddr));
sync_fn!(runtime::net::UdpSocket::connect(_, SocketAddr));
sync_fn!(runtime::net::UdpSocket::peek_from(_, &mut [u8]));
sync_fn!(runtime::net::UdpSocket::readable(_));
sync_fn!(runtime::net::UdpSocket::ready(_, runtime::io::Interest));
sync_fn!(runtime::net::UdpSocket::recv(_, &mut [u8]));
sync_fn!(runtime::net::UdpSocket::recv_from(_, &mut [u8]));
sync_fn!(runtime::net::UdpSocket::send(_, &[u8]));
sync_fn!(runtime::net::UdpSocket::send_to(_, &[u8], SocketAddr));
sync_fn!(runtime::net::UdpSocket::writable(_));
sync_fn!(runtime::net::lookup_host(SocketAddr));
sync_fn!(runtime::net::tcp::ReadHalf::peek(_, &mut [u8]));
sync_value!(runtime::net::UnixDatagram);
sync_value!(runtime::net::UnixListener);
sync_value!(runtime::net::UnixStream);
sync_value!(runtime::net::unix::OwnedReadHalf);
sync_value!(runtime::net::unix::OwnedWriteHalf);
sync_value!(runtime::net::unix::ReadHalf<'_>);
sync_value!(runtime::net::unix::ReuniteError);
sync_value!(runtime::net::unix::SocketAddr);
sync_value!(runtime::net::unix::UCred);
sync_value!(runtime::net::unix::WriteHalf<'_>);
sync_fn!(runtime::net::UnixDatagram::readable(_));
sync_fn!(runtime::net::UnixDatagram::ready(_, runtime::io::Interest));
sync_fn!(runtime::net::UnixDatagram::recv(_, &mut [u8]));
sync_fn!(runtime::net::UnixDatagram::recv_from(_, &mut [u8]));
sync_fn!(runtime::net::UnixDatagram::send(_, &[u8]));
sync_fn!(runtime::net::UnixDatagram::send_to(_, &[u8], &str));
sync_fn!(runtime::net::UnixDatagram::writable(_));
sync_fn!(runtime::net::UnixListener::accept(_));
sync_fn!(runtime::net::UnixStream::connect(&str));
sync_fn!(runtime::net::UnixStream::readable(_));
sync_fn!(runtime::net::UnixStream::ready(_, runtime::io::Interest));
sync_fn!(runtime::net::UnixStream::writable(_));
sync_value!(runtime::net::unix::pipe::OpenOptions);
sync_value!(runtime::net::unix::pipe::Receiver);
sync_value!(runtime::net::unix::pipe::Sender);
sync_fn!(runtime::net::unix::pipe::Receiver::readable(_));
sync_fn!(runtime::net::unix::pipe::Receiver::ready(
    _,
    runtime::io::Interest
));
sync_fn!(runtime::net::unix::pipe::Sender::ready(
    _,
    runtime::io::Interest
));
sync_fn!(runtime::net::unix::pipe::Sender::writable(_));
sync_value!(runtime::process::Child);
sync_value!(runtime::process::ChildStderr);
sync_value!(runtime::process::ChildStdin);
sync_value!(runtime::process::ChildStdout);
sync_value!(runtime::process::Command);
sync_fn!(runtime::process::Child::kill(_));
sync_fn!(runtime::process::Child::wait(_));
sync_fn!(runtime::process::Child::wait_with_output(_));
sync_fn!(runtime::signal::ctrl_c());
sync_value!(runtime::signal::unix::Signal);
sync_value!(runtime::signal::unix::SignalKind);
sync_fn!(runtime::signal::unix::Signal::recv(_));
sync_value!(runtime::sync::AcquireError);
sync_value!(runtime::sync::Barrier);
sync_value!(runtime::sync::BarrierWaitResult);
sync_value!(runtime::sync::MappedMutexGuard<'_, YY>);
sync_value!(runtime::sync::Mutex<YN>);
sync_value!(runtime::sync::Mutex<YY>);
sync_value!(runtime::sync::MutexGuard<'_, YY>);
sync_value!(runtime::sync::Notify);
sync_value!(runtime::sync::OnceCell<YY>);
sync_value!(runtime::sync::SetOnce<YY>);
sync_value!(runtime::sync::OwnedMutexGuard<YY>);
sync_value!(runtime::sync::OwnedMappedMutexGuard<YY,YY>);
sync_value!(runtime::sync::OwnedRwLockMappedWriteGuard<YY>);
sync_value!(runtime::sync::OwnedRwLockReadGuard<YY>);
sync_value!(runtime::sync::OwnedRwLockWriteGuard<YY>);
sync_value!(runtime::sync::OwnedSemaphorePermit);
sync_value!(runtime::sync::RwLock<YY>);
sync_value!(runtime::sync::RwLockMappedWriteGuard<'_, YY>);
sync_value!(runtime::sync::RwLockReadGuard<'_, YY>);
sync_value!(runtime::sync::RwLockWriteGuard<'_, YY>);
sync_value!(runtime::sync::Semaphore);
sync_value!(runtime::sync::SemaphorePermit<'_>);
sync_value!(runtime::sync::TryAcquireError);
sync_value!(runtime::sync::TryLockError);
sync_value!(runtime::sync::broadcast::Receiver<YN>);
sync_value!(runtime::sync::broadcast::Receiver<YY>);
sync_value!(runtime::sync::broadcast::Sender<YN>);
sync_value!(runtime::sync::broadcast::Sender<YY>);
sync_value!(runtime::sync::broadcast::WeakSender<YN>);
sync_value!(runtime::sync::broadcast::WeakSender<YY>);
sync_value!(runtime::sync::futures::Notified<'_>);
sync_value!(runtime::sync::futures::OwnedNotified);
sync_value!(runtime::sync::mpsc::OwnedPermit<YN>);
sync_value!(runtime::sync::mpsc::OwnedPermit<YY>);
sync_value!(runtime::sync::mpsc::Permit<'_, YN>);
sync_value!(runtime::sync::mpsc::Permit<'_, YY>);
sync_value!(runtime::sync::mpsc::Receiver<YN>);
sync_value!(runtime::sync::mpsc::Receiver<YY>);
sync_value!(runtime::sync::mpsc::Sender<YN>);
sync_value!(runtime::sync::mpsc::Sender<YY>);
sync_value!(runtime::sync::mpsc::UnboundedReceiver<YN>);
sync_value!(runtime::sync::mpsc::UnboundedReceiver<YY>);
sync_value!(runtime::sync::mpsc::UnboundedSender<YN>);
sync_value!(runtime::sync::mpsc::UnboundedSender<YY>);
sync_value!(runtime::sync::mpsc::WeakSender<YN>);
sync_value!(runtime::sync::mpsc::WeakSender<YY>);
sync_value!(runtime::sync::mpsc::WeakUnboundedSender<YN>);
sync_value!(runtime::sync::mpsc::WeakUnboundedSender<YY>);
sync_value!(runtime::sync::mpsc::error::SendError<YY>);
sync_value!(runtime::sync::mpsc::error::SendTimeoutError<YY>);
sync_value!(runtime::sync::mpsc::error::TrySendError<YY>);
sync_value!(runtime::sync::oneshot::Receiver<YN>);
sync_value!(runtime::sync::oneshot::Receiver<YY>);
sync_value!(runtime::sync::oneshot::Sender<YN>);
sync_value!(runtime::sync::oneshot::Sender<YY>);
sync_value!(runtime::sync::watch::Receiver<YY>);
sync_value!(runtime::sync::watch::Sender<YY>);
sync_value!(runtime::task::JoinError);
sync_value!(runtime::task::JoinHandle<YN>);
sync_value!(runtime::task::JoinHandle<YY>);
sync_value!(runtime::task::JoinSet<YN>);
sync_value!(runtime::task::JoinSet<YY>);
sync_fn!(runtime::sync::Barrier::wait(_));
sync_fn!(runtime::sync::Mutex<YN>::lock(_));
sync_fn!(runtime::sync::Mutex<YN>::lock_owned(_));
sync_fn!(runtime::sync::Mutex<YY>::lock(_));
sync_fn!(runtime::sync::Mutex<YY>::lock_owned(_));
sync_fn!(runtime::sync::Notify::notified(_));
sync_fn!(
    runtime::sync::OnceCell<YY>::get_or_init(
        _,
        fn() -> Pin<Box<dyn Future<Output = YY> + Send + Sync>>,
    )
);
sync_fn!(
    runtime::sync::OnceCell<YY>::get_or_try_init(
        _,
        fn() -> Pin<Box<dyn Future<Output = std::io::Result<YY>> + Send + Sync>>,
    )
);
sync_fn!(runtime::sync::SetOnce<YY>::wait(_));
sync_fn!(runtime::sync::RwLock<YY>::read(_));
sync_fn!(runtime::sync::RwLock<YY>::write(_));
sync_fn!(runtime::sync::Semaphore::acquire(_));
sync_fn!(runtime::sync::Semaphore::acquire_many(_, u32));
sync_fn!(runtime::sync::Semaphore::acquire_many_owned(_, u32));
sync_fn!(runtime::sync::Semaphore::acquire_owned(_));
sync_fn!(runtime::sync::broadcast::Receiver<YN>::recv(_));
sync_fn!(runtime::sync::broadcast::Receiver<YY>::recv(_));
sync_fn!(runtime::sync::mpsc::Receiver<YN>::recv(_));
sync_fn!(runtime::sync::mpsc::Receiver<YY>::recv(_));
sync_fn!(runtime::sync::mpsc::Sender<YN>::closed(_));
sync_fn!(runtime::sync::mpsc::Sender<YN>::reserve(_));
sync_fn!(runtime::sync::mpsc::Sender<YN>::reserve_owned(_));
sync_fn!(runtime::sync::mpsc::Sender<YY>::closed(_));
sync_fn!(runtime::sync::mpsc::Sender<YY>::reserve(_));
sync_fn!(runtime::sync::mpsc::Sender<YY>::reserve_owned(_));
sync_fn!(runtime::sync::mpsc::Sender<YY>::send(_, YY));
sync_fn!(runtime::sync::mpsc::Sender<YY>::send_timeout(_, YY, Duration));
sync_fn!(runtime::sync::mpsc::UnboundedReceiver<YN>::recv(_));
sync_fn!(runtime::sync::mpsc::UnboundedReceiver<YY>::recv(_));
sync_fn!(runtime::sync::mpsc::UnboundedSender<YN>::closed(_));
sync_fn!(runtime::sync::mpsc::UnboundedSender<YY>::closed(_));
sync_fn!(runtime::sync::oneshot::Sender<YN>::closed(_));
sync_fn!(runtime::sync::oneshot::Sender<YY>::closed(_));
sync_fn!(runtime::sync::watch::Receiver<YY>::changed(_));
sync_fn!(runtime::sync::watch::Sender<YY>::closed(_));
sync_fn!(runtime::task::JoinSet<Cell<u32>>::join_next(_));
sync_fn!(runtime::task::JoinSet<Cell<u32>>::shutdown(_));
sync_fn!(runtime::task::JoinSet<u32>::join_next(_));
sync_fn!(runtime::task::JoinSet<u32>::shutdown(_));
sync_fn!(runtime::task::LocalKey<u32>::scope(_, u32, BoxFutureSync<()>));
sync_fn!(runtime::task::unconstrained(BoxFutureSync<()>));
sync_value!(runtime::runtime::Builder);
sync_value!(runtime::runtime::Handle);
sync_value!(runtime::runtime::Runtime);
sync_value!(runtime::time::Interval);
sync_value!(runtime::time::Instant);
sync_value!(runtime::time::Sleep);
sync_value!(runtime::time::Timeout<BoxFutureSync<()>>);
sync_value!(runtime::time::error::Elapsed);
sync_value!(runtime::time::error::Error);
sync_fn!(runtime::time::advance(Duration));
sync_fn!(runtime::time::sleep(Duration));
sync_fn!(runtime::time::sleep_until(Instant));
sync_fn!(runtime::time::timeout(Duration, BoxFutureSync<()>));
sync_fn!(runtime::time::timeout_at(Instant, BoxFutureSync<()>));
sync_fn!(runtime::time::Interval::tick(_));
sync_value!(runtime::io::DuplexStream);
sync_value!(runtime::io::Empty);
sync_value!(runtime::io::Interest);
sync_value!(runtime::io::ReadBuf<'_>);
sync_value!(runtime::io::ReadHalf<TcpStream>);
sync_value!(runtime::io::Ready);
sync_value!(runtime::io::Repeat);
sync_value!(runtime::io::Sink);
sync_value!(runtime::io::Stderr);
sync_value!(runtime::io::Stdin);
sync_value!(runtime::io::Stdout);
sync_value!(runtime::io::WriteHalf<TcpStream>);
sync_fn!(runtime::io::stderr());
sync_fn!(runtime::io::stdin());
sync_fn!(runtime::io::stdout());
sync_value!(runtime::io::unix::AsyncFd<ImplsFd<YY>>);
sync_value!(runtime::io::unix::AsyncFdReadyGuard<'_, ImplsFd<YY>>);
sync_value!(runtime::io::unix::AsyncFdReadyMutGuard<'_, ImplsFd<YY>>);
sync_value!(runtime::io::unix::AsyncFdRegisterError<ImplsFd<YY>>);
sync_value!(runtime::io::unix::TryIoError);
sync_fn!(runtime::io::unix::AsyncFd<ImplsFd<YY>>::readable(_));
sync_fn!(runtime::io::unix::AsyncFd<ImplsFd<YY>>::readable_mut(_));
sync_fn!(runtime::io::unix::AsyncFd<ImplsFd<YY>>::writable(_));
sync_fn!(runtime::io::unix::AsyncFd<ImplsFd<YY>>::writable_mut(_));
