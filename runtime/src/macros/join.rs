//! `join!`: polls several futures concurrently on the current task until all complete.
//!
//! Each future sits in a `MaybeDone` pinned on the stack; one `poll_fn` polls those not
//! done yet, starting one further along each time (so no future is always polled first,
//! which could starve the others of the task's budget), or always from the first with
//! `biased;`. When all are done it returns their outputs, as a tuple in argument order.

/// Waits on several futures concurrently, returning a tuple of their outputs (in argument
/// order) once all have completed. Runs them all on the current task: use
/// [`spawn`](crate::spawn) for parallelism. `biased;` polls them in order every time
/// (by default the first one polled rotates).
///
/// ```
/// # let rt = runtime::Builder::new_current_thread().build().unwrap();
/// # rt.block_on(async {
/// let (a, b) = runtime::join!(async { 1 }, async { "two" });
/// assert_eq!((a, b), (1, "two"));
///
/// let (x,) = runtime::join!(biased; async { 3 });
/// assert_eq!(x, 3);
/// # });
/// ```
#[macro_export]
macro_rules! join {
    (biased; $($e:expr),+ $(,)?) => {
        $crate::__join!(@{ true; ((_0 0) (_1 1) (_2 2) (_3 3) (_4 4) (_5 5) (_6 6) (_7 7) (_8 8) (_9 9) (_10 10) (_11 11) (_12 12) (_13 13) (_14 14) (_15 15) (_16 16) (_17 17) (_18 18) (_19 19) (_20 20) (_21 21) (_22 22) (_23 23) (_24 24) (_25 25) (_26 26) (_27 27) (_28 28) (_29 29) (_30 30) (_31 31) (_32 32) (_33 33) (_34 34) (_35 35) (_36 36) (_37 37) (_38 38) (_39 39) (_40 40) (_41 41) (_42 42) (_43 43) (_44 44) (_45 45) (_46 46) (_47 47) (_48 48) (_49 49) (_50 50) (_51 51) (_52 52) (_53 53) (_54 54) (_55 55) (_56 56) (_57 57) (_58 58) (_59 59) (_60 60) (_61 61) (_62 62) (_63 63)); } $($e,)+)
    };
    ($($e:expr),+ $(,)?) => {
        $crate::__join!(@{ false; ((_0 0) (_1 1) (_2 2) (_3 3) (_4 4) (_5 5) (_6 6) (_7 7) (_8 8) (_9 9) (_10 10) (_11 11) (_12 12) (_13 13) (_14 14) (_15 15) (_16 16) (_17 17) (_18 18) (_19 19) (_20 20) (_21 21) (_22 22) (_23 23) (_24 24) (_25 25) (_26 26) (_27 27) (_28 28) (_29 29) (_30 30) (_31 31) (_32 32) (_33 33) (_34 34) (_35 35) (_36 36) (_37 37) (_38 38) (_39 39) (_40 40) (_41 41) (_42 42) (_43 43) (_44 44) (_45 45) (_46 46) (_47 47) (_48 48) (_49 49) (_50 50) (_51 51) (_52 52) (_53 53) (_54 54) (_55 55) (_56 56) (_57 57) (_58 58) (_59 59) (_60 60) (_61 61) (_62 62) (_63 63)); } $($e,)+)
    };
    (biased; $(,)?) => { () };
    ($(,)?) => { () };
}

#[doc(hidden)]
#[macro_export]
macro_rules! __join {
    // The rotation: a counter the `poll_fn` owns, only when not `biased` (a biased join
    // starts from the first future every time and carries no counter).
    (@rotation true $next:ident) => {};
    (@rotation false $next:ident) => {
        let mut $next: u32 = 0;
    };
    (@start true $next:ident $count:ident) => {
        0u32
    };
    (@start false $next:ident $count:ident) => {{
        let __start = $next;
        $next = if __start + 1 == $count { 0 } else { __start + 1 };
        __start
    }};
    (@{ $biased:tt; (); $($done:tt)* } $($rest:tt)+) => {
        ::core::compile_error!("`join!` supports at most 64 futures")
    };
    (@{ $biased:tt; (($n:ident $i:tt) $($names:tt)*); $($done:tt)* } $e:expr, $($rest:tt)*) => {
        $crate::__join!(@{ $biased; ($($names)*); $($done)* [$n $i ($e)] } $($rest)*)
    };
    (@{ $biased:tt; $names:tt; $([$n:ident $i:tt ($e:expr)])* }) => {{
        $(
            let mut $n = $crate::macros::support::pin!($crate::macros::support::maybe_done($e));
        )*
        $crate::__join!(@rotation $biased __next_start);
        $crate::macros::support::poll_fn(move |__cx| {
            const __COUNT: u32 = [$($i),*].len() as u32;
            let __start = $crate::__join!(@start $biased __next_start __COUNT);
            let mut __all_done = true;
            for __k in 0..__COUNT {
                let mut __index = __start + __k;
                if __index >= __COUNT {
                    __index -= __COUNT;
                }
                match __index {
                    $(
                        $i => {
                            if !$n.as_mut().poll_done(__cx) {
                                __all_done = false;
                            }
                        }
                    )*
                    _ => ::core::unreachable!("join! index out of range"),
                }
            }
            if __all_done {
                $crate::macros::support::Poll::Ready(($($n.as_mut().take_output(),)*))
            } else {
                $crate::macros::support::Poll::Pending
            }
        })
        .await
    }};
}
