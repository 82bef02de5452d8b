//! `try_join!`: `join!` for futures of `Result`s, returning early on the first error.
//!
//! As `join!` (macros/join.rs), except that each output is checked as it arrives: the
//! first `Err` ends the `poll_fn` with that error, and the remaining futures are dropped.
//! The futures sit in one tuple the `poll_fn` borrows once (and a biased one carries no
//! rotation counter), so the future is no larger than tokio's; each is pinned in place
//! where it is polled. With no futures it is `Ok(())`, the error type inferred.

/// Waits on several futures returning `Result<_, E>` concurrently: `Ok` with a tuple of
/// the values once all succeeded, or the first `Err` as soon as one fails (the others are
/// dropped). All errors must have the same type. `biased;` polls in order, as in
/// [`join!`](crate::join).
///
/// ```
/// # let rt = runtime::Builder::new_current_thread().build().unwrap();
/// # rt.block_on(async {
/// let ok: Result<(u8, &str), String> =
///     runtime::try_join!(async { Ok(1) }, async { Ok("two") });
/// assert_eq!(ok, Ok((1, "two")));
///
/// let err: Result<(u8, u8), &str> =
///     runtime::try_join!(biased; async { Err("first") }, std::future::pending());
/// assert_eq!(err, Err("first"));
/// # });
/// ```
#[macro_export]
macro_rules! try_join {
    (biased; $($e:expr),+ $(,)?) => {
        $crate::__try_join!(@{ true; ((_0 0) (_1 1) (_2 2) (_3 3) (_4 4) (_5 5) (_6 6) (_7 7) (_8 8) (_9 9) (_10 10) (_11 11) (_12 12) (_13 13) (_14 14) (_15 15) (_16 16) (_17 17) (_18 18) (_19 19) (_20 20) (_21 21) (_22 22) (_23 23) (_24 24) (_25 25) (_26 26) (_27 27) (_28 28) (_29 29) (_30 30) (_31 31) (_32 32) (_33 33) (_34 34) (_35 35) (_36 36) (_37 37) (_38 38) (_39 39) (_40 40) (_41 41) (_42 42) (_43 43) (_44 44) (_45 45) (_46 46) (_47 47) (_48 48) (_49 49) (_50 50) (_51 51) (_52 52) (_53 53) (_54 54) (_55 55) (_56 56) (_57 57) (_58 58) (_59 59) (_60 60) (_61 61) (_62 62) (_63 63)); } $($e,)+)
    };
    ($($e:expr),+ $(,)?) => {
        $crate::__try_join!(@{ false; ((_0 0) (_1 1) (_2 2) (_3 3) (_4 4) (_5 5) (_6 6) (_7 7) (_8 8) (_9 9) (_10 10) (_11 11) (_12 12) (_13 13) (_14 14) (_15 15) (_16 16) (_17 17) (_18 18) (_19 19) (_20 20) (_21 21) (_22 22) (_23 23) (_24 24) (_25 25) (_26 26) (_27 27) (_28 28) (_29 29) (_30 30) (_31 31) (_32 32) (_33 33) (_34 34) (_35 35) (_36 36) (_37 37) (_38 38) (_39 39) (_40 40) (_41 41) (_42 42) (_43 43) (_44 44) (_45 45) (_46 46) (_47 47) (_48 48) (_49 49) (_50 50) (_51 51) (_52 52) (_53 53) (_54 54) (_55 55) (_56 56) (_57 57) (_58 58) (_59 59) (_60 60) (_61 61) (_62 62) (_63 63)); } $($e,)+)
    };
    // No futures: `Ok(())`, its error type left to inference (as tokio's).
    (biased; $(,)?) => { ::core::result::Result::Ok(()) };
    ($(,)?) => { ::core::result::Result::Ok(()) };
}

#[doc(hidden)]
#[macro_export]
macro_rules! __try_join {
    (@{ $biased:tt; (); $($done:tt)* } $($rest:tt)+) => {
        ::core::compile_error!("`try_join!` supports at most 64 futures")
    };
    (@{ $biased:tt; (($n:ident $i:tt) $($names:tt)*); $($done:tt)* } $e:expr, $($rest:tt)*) => {
        $crate::__try_join!(@{ $biased; ($($names)*); $($done)* [$n $i ($e)] } $($rest)*)
    };
    (@{ $biased:tt; $names:tt; $([$n:ident $i:tt ($e:expr)])* }) => {{
        // One tuple, borrowed once by the `poll_fn` below: one word for all the futures
        // rather than one per future, as tokio's.
        let mut __futures = ($($crate::macros::support::maybe_done($e),)*);
        let __futures = &mut __futures;
        $crate::__join!(@rotation $biased __next_start);
        // `move`: the closure owns that one reference (and the rotation counter).
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
                            // SAFETY: the futures live in `__futures`, a local of this
                            // block inside the caller's async body, whose frame is pinned
                            // while it runs; they are never moved after this borrow and
                            // are dropped in place when the block's scope ends.
                            let mut $n = unsafe {
                                $crate::macros::support::Pin::new_unchecked(&mut __futures.$i)
                            };
                            if $n.as_mut().poll_done(__cx) {
                                if let ::core::option::Option::Some(__e) = $n.take_err() {
                                    return $crate::macros::support::Poll::Ready(__e);
                                }
                            } else {
                                __all_done = false;
                            }
                        }
                    )*
                    _ => ::core::unreachable!("try_join! index out of range"),
                }
            }
            if __all_done {
                // Unreachable when a value type is uninhabited (`Infallible`).
                #[allow(unreachable_code)]
                $crate::macros::support::Poll::Ready(::core::result::Result::Ok((
                    $(
                        // SAFETY: as above.
                        unsafe {
                            $crate::macros::support::Pin::new_unchecked(&mut __futures.$i)
                        }
                        .take_ok(),
                    )*
                )))
            } else {
                $crate::macros::support::Poll::Pending
            }
        })
        .await
    }};
}
