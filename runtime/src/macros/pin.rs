//! `pin!`: pins values on the stack, shadowing each variable with a `Pin<&mut T>`.
//!
//! Built on `core::pin::pin!`: the value moves into a temporary the shadowing binding
//! borrows for the rest of the scope, so it can never be moved again. No `unsafe` in the
//! expansion.

/// Pins values on the stack: each named variable becomes a `Pin<&mut T>` of itself, or each
/// `let` binds a pinned value. Needed to poll a `!Unpin` future by `&mut` (e.g. in a
/// `select!` loop).
///
/// ```
/// use std::future::Future;
///
/// # let rt = runtime::Builder::new_current_thread().build().unwrap();
/// # rt.block_on(async {
/// let fut = async { 1 };
/// runtime::pin!(fut);
/// assert_eq!((&mut fut).await, 1);
///
/// runtime::pin! {
///     let a = async { 2 };
///     let b = async { 3 };
/// }
/// assert_eq!(a.await + b.await, 5);
/// # });
/// ```
#[macro_export]
macro_rules! pin {
    ($($x:ident),* $(,)?) => {
        $(
            #[allow(unused_mut)]
            let mut $x = $crate::macros::support::pin!($x);
        )*
    };
    ($(let $x:ident = $init:expr;)*) => {
        $(
            #[allow(unused_mut)]
            let mut $x = $crate::macros::support::pin!($init);
        )*
    };
}
