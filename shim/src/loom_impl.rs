//! The `--cfg loom` backend: loom's model-checked atomics, cells, locks and threads,
//! adapted to the parking_lot-shaped API the rest of the workspace uses.

pub mod sync {
    pub use crate::spin_mutex::{SpinMutex, SpinMutexGuard};
    pub use loom::sync::Arc;

    pub mod atomic {
        pub use loom::sync::atomic::{
            fence, AtomicBool, AtomicPtr, AtomicU32, AtomicU64, AtomicU8, AtomicUsize, Ordering,
        };
    }

    /// loom's mutex with a parking_lot-style `lock()` (no poisoning).
    #[derive(Debug, Default)]
    pub struct Mutex<T>(loom::sync::Mutex<T>);

    /// Guard of [`Mutex`]; holds an `Option` so [`Condvar::wait`] can move it out and back.
    pub struct MutexGuard<'a, T>(Option<loom::sync::MutexGuard<'a, T>>);

    impl<T> Mutex<T> {
        pub fn new(value: T) -> Self {
            Mutex(loom::sync::Mutex::new(value))
        }

        pub fn lock(&self) -> MutexGuard<'_, T> {
            MutexGuard(Some(self.0.lock().unwrap_or_else(|e| e.into_inner())))
        }

        pub fn try_lock(&self) -> Option<MutexGuard<'_, T>> {
            self.0.try_lock().ok().map(|g| MutexGuard(Some(g)))
        }

        pub fn into_inner(self) -> T {
            self.0.into_inner().unwrap_or_else(|e| e.into_inner())
        }
    }

    impl<T> std::ops::Deref for MutexGuard<'_, T> {
        type Target = T;
        fn deref(&self) -> &T {
            self.0.as_ref().expect("guard present")
        }
    }

    impl<T> std::ops::DerefMut for MutexGuard<'_, T> {
        fn deref_mut(&mut self) -> &mut T {
            self.0.as_mut().expect("guard present")
        }
    }

    /// loom's reader-writer lock with parking_lot-style `read()`/`write()` (no poisoning).
    pub struct RwLock<T>(loom::sync::RwLock<T>);

    pub use loom::sync::{RwLockReadGuard, RwLockWriteGuard};

    impl<T> RwLock<T> {
        pub fn new(value: T) -> Self {
            RwLock(loom::sync::RwLock::new(value))
        }

        pub fn read(&self) -> RwLockReadGuard<'_, T> {
            self.0.read().unwrap_or_else(|e| e.into_inner())
        }

        pub fn write(&self) -> RwLockWriteGuard<'_, T> {
            self.0.write().unwrap_or_else(|e| e.into_inner())
        }
    }

    /// loom's condition variable; no timed wait under the model.
    #[derive(Debug, Default)]
    pub struct Condvar(loom::sync::Condvar);

    impl Condvar {
        pub fn new() -> Self {
            Condvar(loom::sync::Condvar::new())
        }

        pub fn wait<T>(&self, guard: &mut MutexGuard<'_, T>) {
            let inner = guard.0.take().expect("guard present");
            let inner = self.0.wait(inner).unwrap_or_else(|e| e.into_inner());
            guard.0 = Some(inner);
        }

        pub fn notify_one(&self) -> bool {
            self.0.notify_one();
            true
        }

        pub fn notify_all(&self) -> usize {
            self.0.notify_all();
            0
        }
    }
}

pub mod cell {
    /// loom's tracked `UnsafeCell`, with the closure API.
    #[derive(Debug)]
    pub struct UnsafeCell<T: ?Sized>(loom::cell::UnsafeCell<T>);

    impl<T> UnsafeCell<T> {
        pub fn new(value: T) -> Self {
            UnsafeCell(loom::cell::UnsafeCell::new(value))
        }

        pub fn into_inner(self) -> T {
            self.0.into_inner()
        }
    }

    impl<T: ?Sized> UnsafeCell<T> {
        pub fn with<R>(&self, f: impl FnOnce(*const T) -> R) -> R {
            self.0.with(f)
        }

        pub fn with_mut<R>(&self, f: impl FnOnce(*mut T) -> R) -> R {
            self.0.with_mut(f)
        }
    }

    impl<T: Default> Default for UnsafeCell<T> {
        fn default() -> Self {
            UnsafeCell::new(T::default())
        }
    }
}

pub mod thread {
    pub use loom::thread::{current, park, yield_now, JoinHandle, Thread};

    /// Spawns a named loom thread.
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
            let mut b = loom::thread::Builder::new().name(name);
            if let Some(size) = stack_size {
                b = b.stack_size(size);
            }
            b.spawn(f)
        }
    }
}

pub mod hint {
    /// Under loom a spin must yield, or the model never lets the other thread progress.
    pub fn spin_loop() {
        loom::thread::yield_now();
    }
}
