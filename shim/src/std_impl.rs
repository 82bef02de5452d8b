//! The normal backend: std atomics and threads, parking_lot locks.

pub mod sync {
    pub use crate::spin_mutex::{SpinMutex, SpinMutexGuard};
    pub use std::sync::Arc;

    pub mod atomic {
        pub use std::sync::atomic::{
            fence, AtomicBool, AtomicPtr, AtomicU32, AtomicU64, AtomicU8, AtomicUsize, Ordering,
        };
    }

    pub use parking_lot::{Mutex, MutexGuard};
    pub use parking_lot::{RwLock, RwLockReadGuard, RwLockWriteGuard};

    /// A condition variable paired with [`Mutex`].
    #[derive(Default, Debug)]
    pub struct Condvar(parking_lot::Condvar);

    impl Condvar {
        pub const fn new() -> Self {
            Condvar(parking_lot::Condvar::new())
        }

        pub fn wait<T>(&self, guard: &mut MutexGuard<'_, T>) {
            self.0.wait(guard);
        }

        /// Waits at most `dur`; returns true when it timed out.
        pub fn wait_for<T>(&self, guard: &mut MutexGuard<'_, T>, dur: std::time::Duration) -> bool {
            self.0.wait_for(guard, dur).timed_out()
        }

        pub fn notify_one(&self) -> bool {
            self.0.notify_one()
        }

        pub fn notify_all(&self) -> usize {
            self.0.notify_all()
        }
    }
}

pub mod cell {
    /// `std::cell::UnsafeCell` behind loom's closure API.
    #[derive(Debug, Default)]
    #[repr(transparent)]
    pub struct UnsafeCell<T: ?Sized>(std::cell::UnsafeCell<T>);

    impl<T> UnsafeCell<T> {
        #[inline(always)]
        pub const fn new(value: T) -> Self {
            UnsafeCell(std::cell::UnsafeCell::new(value))
        }

        #[inline(always)]
        pub fn into_inner(self) -> T {
            self.0.into_inner()
        }
    }

    impl<T: ?Sized> UnsafeCell<T> {
        /// Runs `f` with a shared raw pointer to the contents.
        #[inline(always)]
        pub fn with<R>(&self, f: impl FnOnce(*const T) -> R) -> R {
            f(self.0.get())
        }

        /// Runs `f` with a unique raw pointer to the contents.
        #[inline(always)]
        pub fn with_mut<R>(&self, f: impl FnOnce(*mut T) -> R) -> R {
            f(self.0.get())
        }
    }
}

pub mod thread {
    pub use std::thread::{current, park, yield_now, JoinHandle, Thread};

    /// Spawns a named OS thread.
    pub fn spawn_named<F, T>(
        name: String,
        stack_size: Option<usize>,
        f: F,
    ) -> std::io::Result<JoinHandle<T>>
    where
        F: FnOnce() -> T + Send + 'static,
        T: Send + 'static,
    {
        {
            let mut b = std::thread::Builder::new().name(name);
            if let Some(size) = stack_size {
                b = b.stack_size(size);
            }
            b.spawn(f)
        }
    }
}

pub mod hint {
    pub use std::hint::spin_loop;
}
