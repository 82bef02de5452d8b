//! `select!`: waits on several branches at once and runs the handler of the first that
//! completes with a value matching its pattern.
//!
//! Expansion (see macros/mod.rs for the naming scheme): a `select!` with only an `else`
//! branch is that expression. Otherwise preconditions are evaluated first (a false one
//! disables its branch), then every future expression (disabled ones too), as written,
//! into a tuple bound by a `let` (so temporaries they borrow live as long as the
//! `select!`); each is `.into_future()`d into one tuple in the async block's frame, which the `poll_fn` borrows
//! once (one word, whatever the branch count: a `select!` future is no larger than
//! tokio's), and each branch's future is pinned in place where it is polled (the one
//! `unsafe` of the expansion: the frame is pinned and the tuple never moves). Each poll of the `poll_fn` first checks the task's
//! cooperative budget (spent: it wakes the task and returns `Pending`, a yield, even when
//! a branch is ready), then polls the enabled branches starting
//! at a random one (the first when `biased;`): a branch that completes is disabled; if its
//! output fits the pattern (tested by reference, through `select_priv_clean_pattern!`)
//! the `poll_fn` returns it in the branch's variant of a local enum, otherwise the others
//! go on. When no branch is left, the `poll_fn` returns `Disabled`. The futures are dropped
//! before the chosen handler runs (so it may reuse what they borrowed), and the handler runs
//! in the caller's code: `break`, `continue`, `return` and `?` mean what they mean there.

/// Waits on several concurrent branches, returning when the first one completes with a
/// value that fits its pattern and cancelling the others.
///
/// ```text
/// select! {
///     biased;                                       // optional: poll in order
///     <pattern> = <async expression> (, if <precondition>)? => <handler>,
///     ...
///     else => <expression>                          // optional
/// }
/// ```
///
/// 1. Every precondition is evaluated; a false one disables its branch.
/// 2. Every async expression is evaluated (disabled branches too) and `.into_future()`d.
/// 3. The enabled futures are polled, starting from a random branch each time (from the
///    first when `biased;`). The first to complete disables its branch; if its output
///    matches the pattern, the others are dropped and its handler runs with the pattern's
///    bindings. If it does not match, the others go on.
/// 4. When every branch is disabled, the `else` expression is the result; without `else`
///    that panics. A `select!` with only an `else` branch evaluates it.
///
/// A branch's pattern may bind with `mut`, `ref` and `ref mut`, and its async expression
/// may borrow a temporary (`() = &mut std::future::ready(()) => ...`): temporaries live as
/// long as the `select!`.
///
/// Cooperative scheduling: as in tokio, each poll of a `select!` first checks the task's
/// budget; once it is spent the task yields (it is woken and returns `Pending`) before any
/// branch is polled, so a loop around a `select!` whose branch is always ready still lets
/// the other tasks run.
///
/// Up to 64 branches; nothing is allocated. Branch order is random per thread and can be
/// made reproducible with [`Builder::rng_seed`](crate::Builder::rng_seed).
///
/// ```
/// use std::time::Duration;
/// use runtime::sync::oneshot;
///
/// # let rt = runtime::Builder::new_current_thread().enable_all().build().unwrap();
/// # rt.block_on(async {
/// let (tx, mut rx) = oneshot::channel::<u32>();
/// runtime::spawn(async move { tx.send(7).unwrap() });
///
/// let mut done = false;
/// let got = runtime::select! {
///     v = &mut rx, if !done => { done = true; v.ok() }
///     _ = runtime::time::sleep(Duration::from_secs(10)) => None,
/// };
/// assert_eq!(got, Some(7));
/// assert!(done);
///
/// // A branch whose output does not fit its pattern is disabled; `else` runs when none is left.
/// let v = runtime::select! {
///     Some(v) = async { None::<u32> } => v,
///     else => 0,
/// };
/// assert_eq!(v, 0);
/// # });
/// ```
#[macro_export]
macro_rules! select {
    ($(biased;)?) => {
        ::core::compile_error!("select! requires at least one branch.")
    };
    (biased; $($body:tt)*) => {
        $crate::__select!(@{ true; ((_0 0) (_1 1) (_2 2) (_3 3) (_4 4) (_5 5) (_6 6) (_7 7) (_8 8) (_9 9) (_10 10) (_11 11) (_12 12) (_13 13) (_14 14) (_15 15) (_16 16) (_17 17) (_18 18) (_19 19) (_20 20) (_21 21) (_22 22) (_23 23) (_24 24) (_25 25) (_26 26) (_27 27) (_28 28) (_29 29) (_30 30) (_31 31) (_32 32) (_33 33) (_34 34) (_35 35) (_36 36) (_37 37) (_38 38) (_39 39) (_40 40) (_41 41) (_42 42) (_43 43) (_44 44) (_45 45) (_46 46) (_47 47) (_48 48) (_49 49) (_50 50) (_51 51) (_52 52) (_53 53) (_54 54) (_55 55) (_56 56) (_57 57) (_58 58) (_59 59) (_60 60) (_61 61) (_62 62) (_63 63)); } $($body)*)
    };
    ($($body:tt)*) => {
        $crate::__select!(@{ false; ((_0 0) (_1 1) (_2 2) (_3 3) (_4 4) (_5 5) (_6 6) (_7 7) (_8 8) (_9 9) (_10 10) (_11 11) (_12 12) (_13 13) (_14 14) (_15 15) (_16 16) (_17 17) (_18 18) (_19 19) (_20 20) (_21 21) (_22 22) (_23 23) (_24 24) (_25 25) (_26 26) (_27 27) (_28 28) (_29 29) (_30 30) (_31 31) (_32 32) (_33 33) (_34 34) (_35 35) (_36 36) (_37 37) (_38 38) (_39 39) (_40 40) (_41 41) (_42 42) (_43 43) (_44 44) (_45 45) (_46 46) (_47 47) (_48 48) (_49 49) (_50 50) (_51 51) (_52 52) (_53 53) (_54 54) (_55 55) (_56 56) (_57 57) (_58 58) (_59 59) (_60 60) (_61 61) (_62 62) (_63 63)); } $($body)*)
    };
}

#[doc(hidden)]
#[macro_export]
macro_rules! __select {
    // All branches parsed, no `else`.
    (@{ $biased:tt; $names:tt; $($branch:tt)* }) => {
        $crate::__select!(@emit $biased; { $($branch)* } (
            ::core::panic!("all branches are disabled and there is no else branch")
        ))
    };
    (@{ $biased:tt; $names:tt; $($branch:tt)* } else => $else:expr $(,)?) => {
        $crate::__select!(@emit $biased; { $($branch)* } ($else))
    };
    // A branch: pattern, future, optional precondition, then a block handler (comma
    // optional) or an expression handler (comma unless last). One expansion per branch,
    // so 64 branches stay within the default recursion limit.
    (@{ $biased:tt; (); $($branch:tt)* } $p:pat = $($rest:tt)*) => {
        ::core::compile_error!("`select!` supports at most 64 branches")
    };
    (@{ $biased:tt; (($n:ident $i:tt) $($names:tt)*); $($branch:tt)* }
        $p:pat = $f:expr, if $c:expr => $h:block, $($rest:tt)*) => {
        $crate::__select!(@{ $biased; ($($names)*); $($branch)* [$n $i ($p) ($f) ($c) ($h)] } $($rest)*)
    };
    (@{ $biased:tt; (($n:ident $i:tt) $($names:tt)*); $($branch:tt)* }
        $p:pat = $f:expr, if $c:expr => $h:block $($rest:tt)*) => {
        $crate::__select!(@{ $biased; ($($names)*); $($branch)* [$n $i ($p) ($f) ($c) ($h)] } $($rest)*)
    };
    (@{ $biased:tt; (($n:ident $i:tt) $($names:tt)*); $($branch:tt)* }
        $p:pat = $f:expr, if $c:expr => $h:expr, $($rest:tt)*) => {
        $crate::__select!(@{ $biased; ($($names)*); $($branch)* [$n $i ($p) ($f) ($c) ($h)] } $($rest)*)
    };
    (@{ $biased:tt; (($n:ident $i:tt) $($names:tt)*); $($branch:tt)* }
        $p:pat = $f:expr, if $c:expr => $h:expr) => {
        $crate::__select!(@{ $biased; ($($names)*); $($branch)* [$n $i ($p) ($f) ($c) ($h)] })
    };
    (@{ $biased:tt; (($n:ident $i:tt) $($names:tt)*); $($branch:tt)* }
        $p:pat = $f:expr => $h:block, $($rest:tt)*) => {
        $crate::__select!(@{ $biased; ($($names)*); $($branch)* [$n $i ($p) ($f) (true) ($h)] } $($rest)*)
    };
    (@{ $biased:tt; (($n:ident $i:tt) $($names:tt)*); $($branch:tt)* }
        $p:pat = $f:expr => $h:block $($rest:tt)*) => {
        $crate::__select!(@{ $biased; ($($names)*); $($branch)* [$n $i ($p) ($f) (true) ($h)] } $($rest)*)
    };
    (@{ $biased:tt; (($n:ident $i:tt) $($names:tt)*); $($branch:tt)* }
        $p:pat = $f:expr => $h:expr, $($rest:tt)*) => {
        $crate::__select!(@{ $biased; ($($names)*); $($branch)* [$n $i ($p) ($f) (true) ($h)] } $($rest)*)
    };
    (@{ $biased:tt; (($n:ident $i:tt) $($names:tt)*); $($branch:tt)* }
        $p:pat = $f:expr => $h:expr) => {
        $crate::__select!(@{ $biased; ($($names)*); $($branch)* [$n $i ($p) ($f) (true) ($h)] })
    };
    (@{ $($state:tt)* } $($rest:tt)+) => {
        ::core::compile_error!(
            "expected `<pattern> = <future> (, if <condition>)? => <handler>` or `else => <expression>`"
        )
    };
    // Only `else` (tokio's `select! { else => 1 }`): there is nothing to wait for, so the
    // `else` expression is the result.
    (@emit $biased:tt; { } ($else:expr)) => {
        $else
    };
    (@emit $biased:tt; { $([$n:ident $i:tt ($p:pat) ($f:expr) ($c:expr) ($h:expr)])* } ($else:expr)) => {{
        #[allow(non_camel_case_types, dead_code)]
        enum __Out<$($n,)*> {
            $($n($n),)*
            Disabled,
        }
        let __out = {
            let mut __disabled: u64 = 0;
            $(
                if !$c {
                    __disabled |= 1u64 << $i;
                }
            )*
            // The future expressions as written, in a tuple of a `let`: a temporary one of
            // them borrows (`&mut std::future::ready(())`) has its lifetime extended to
            // this block's (tokio#6721), which a call around it would cut short.
            let __futures_init = ($($f,)*);
            // One tuple, borrowed once by the `poll_fn` below: one word per `select!`
            // rather than one or two per branch, as tokio's.
            let mut __futures = ($(
                $crate::macros::support::IntoFuture::into_future(__futures_init.$i),
            )*);
            let __futures = &mut __futures;
            // `move`: the closure owns that one reference (a non-`move` closure would
            // capture each field it polls separately, a word per branch) and the mask.
            $crate::macros::support::poll_fn(move |__cx| {
                // The task's budget first (tokio's rule): a spent budget yields even when
                // a branch is ready.
                if $crate::macros::support::poll_budget_available(__cx).is_pending() {
                    return $crate::macros::support::Poll::Pending;
                }
                const __BRANCHES: u32 = [$($i),*].len() as u32;
                let __start = $crate::macros::support::start($biased, __BRANCHES);
                let mut __pending = false;
                for __k in 0..__BRANCHES {
                    // (start + k) mod n, without a division.
                    let mut __branch = __start + __k;
                    if __branch >= __BRANCHES {
                        __branch -= __BRANCHES;
                    }
                    match __branch {
                        $(
                            $i => {
                                let __mask = 1u64 << $i;
                                if __disabled & __mask != 0 {
                                    continue;
                                }
                                // SAFETY: the futures live in `__futures`, a local of this
                                // async block, whose frame is pinned while it runs; they are
                                // never moved after this borrow and are dropped in place when
                                // the block's scope ends.
                                let $n = unsafe {
                                    $crate::macros::support::Pin::new_unchecked(
                                        &mut __futures.$i,
                                    )
                                };
                                let __output = match $crate::macros::support::Future::poll(
                                    $n,
                                    __cx,
                                ) {
                                    $crate::macros::support::Poll::Ready(__o) => __o,
                                    $crate::macros::support::Poll::Pending => {
                                        __pending = true;
                                        continue;
                                    }
                                };
                                __disabled |= __mask;
                                #[allow(unused_variables, unused_mut, unreachable_patterns)]
                                match &__output {
                                    $crate::macros::support::select_priv_clean_pattern!($p) => {}
                                    _ => continue,
                                }
                                return $crate::macros::support::Poll::Ready(__Out::$n(__output));
                            }
                        )*
                        _ => ::core::unreachable!("select! branch index out of range"),
                    }
                }
                if __pending {
                    $crate::macros::support::Poll::Pending
                } else {
                    $crate::macros::support::Poll::Ready(__Out::Disabled)
                }
            })
            .await
        };
        // `mut`: a `ref mut` binding of a pattern borrows the output mutably.
        #[allow(unused_mut)]
        let mut __out = __out;
        #[allow(unreachable_patterns, unreachable_code)]
        match __out {
            $(__Out::$n($p) => $h,)*
            __Out::Disabled => $else,
            _ => ::core::unreachable!("select! output did not match the pattern it was tested against"),
        }
    }};
}
