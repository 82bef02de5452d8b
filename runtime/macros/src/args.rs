//! Parsing and validation of the attribute arguments:
//! `#[runtime::main(flavor = "..", worker_threads = N, start_paused = bool,
//! unhandled_panic = "..", crate = "path", name = "..")]`,
//! where the flavor is `"multi_thread"`, `"current_thread"` or `"local"` (a `LocalRuntime`).
//!
//! These are tokio's arguments, so a `#[tokio::main(..)]` ports by renaming the path.
//! `start_paused = true` starts the runtime's clock paused (`Builder::start_paused`); like
//! tokio, it is only allowed on the current-thread flavor.
//!
//! `#[runtime::test]` also takes `deterministic` (a bare flag, or `deterministic = true`)
//! and `seeds = N`: the body runs on a deterministic runtime (`Builder::deterministic`)
//! once per seed `0..N` (1 unless given), on either flavor. `seeds` implies
//! `deterministic`; both are errors on `main`, and with `start_paused` (the clock is
//! virtual already) or `fail_on_stall` (there is no monitor thread).
//!
//! The arguments are read in two passes. The first is purely syntactic: a comma
//! separated list of `key = value` pairs, where a key is any identifier (keywords
//! included, so `crate` parses) and a value any expression. The second checks each
//! pair and fills a [`Config`]. The second pass never stops at the first problem:
//! every error is collected (each spanned on the offending token) so the user sees
//! all of them at once. A `Config` is returned even when there are errors, holding
//! the defaults for whatever could not be read.

use proc_macro2::TokenStream;
use syn::ext::IdentExt;
use syn::parse::{Parse, ParseStream, Parser};
use syn::punctuated::Punctuated;
use syn::{Expr, ExprLit, Ident, Lit, LitInt, Token};

/// Which of the two attributes is being expanded, and under which crate's name.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum Kind {
    Main(Facade),
    Test(Facade),
}

/// The crate a user names the attribute through: `runtime` itself, or the `tokio` patch
/// crate (`compat/tokio`), whose users depend on `tokio` alone. It sets the default
/// `crate` path of the expansion and the name in error messages.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum Facade {
    Runtime,
    Tokio,
}

impl Kind {
    /// The attribute as a user writes it, for error messages.
    pub(crate) fn attr_name(self) -> &'static str {
        match self {
            Kind::Main(Facade::Runtime) => "#[runtime::main]",
            Kind::Test(Facade::Runtime) => "#[runtime::test]",
            Kind::Main(Facade::Tokio) => "#[tokio::main]",
            Kind::Test(Facade::Tokio) => "#[tokio::test]",
        }
    }

    /// `main` or `test`, whatever the facade.
    pub(crate) fn is_test(self) -> bool {
        matches!(self, Kind::Test(_))
    }

    /// Where `Builder` lives unless `crate = ".."` says otherwise.
    fn default_crate(self) -> syn::Path {
        match self {
            Kind::Main(Facade::Runtime) | Kind::Test(Facade::Runtime) => {
                syn::parse_quote!(::runtime)
            }
            Kind::Main(Facade::Tokio) | Kind::Test(Facade::Tokio) => syn::parse_quote!(::tokio),
        }
    }

    /// `main` defaults to the work-stealing scheduler, `test` to the single-threaded one.
    fn default_flavor(self) -> Flavor {
        match self {
            Kind::Main(_) => Flavor::MultiThread,
            Kind::Test(_) => Flavor::CurrentThread,
        }
    }
}

/// The scheduler the generated code asks the `Builder` for.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum Flavor {
    MultiThread,
    CurrentThread,
    /// A `LocalRuntime` (`build_local`): current-thread, and `spawn_local` works.
    Local,
}

/// The validated arguments.
pub(crate) struct Config {
    pub(crate) flavor: Flavor,
    /// `worker_threads = N`: the literal as written, checked to hold a `usize` >= 1.
    pub(crate) worker_threads: Option<LitInt>,
    /// Path of the crate that provides `Builder`; `::runtime` unless `crate = ".."`.
    pub(crate) crate_path: syn::Path,
    /// `unhandled_panic = "ignore" | "shutdown_runtime"`: the `UnhandledPanic` variant.
    pub(crate) unhandled_panic: Option<Ident>,
    /// `start_paused = true|false`: the literal as written.
    pub(crate) start_paused: Option<syn::LitBool>,
    /// `name = ".."`: the runtime's name (`Builder::name`), the literal as written.
    pub(crate) name: Option<syn::LitStr>,
    /// `shutdown_timeout = ".."`, in nanoseconds.
    pub(crate) shutdown_timeout: Option<u64>,
    /// `fail_on_stall = ".."`, in nanoseconds (more than zero).
    pub(crate) fail_on_stall: Option<u64>,
    /// `deterministic` / `seeds = N`: the number of seeds to run the body under.
    pub(crate) seeds: Option<u64>,
}

const FLAVOR: &str = "flavor";
const WORKER_THREADS: &str = "worker_threads";
const CRATE: &str = "crate";
const UNHANDLED_PANIC: &str = "unhandled_panic";
const START_PAUSED: &str = "start_paused";
const NAME: &str = "name";
const SHUTDOWN_TIMEOUT: &str = "shutdown_timeout";
const FAIL_ON_STALL: &str = "fail_on_stall";
const DETERMINISTIC: &str = "deterministic";
const SEEDS: &str = "seeds";
const KNOWN_KEYS: &str = "`flavor`, `worker_threads`, `start_paused`, `unhandled_panic`, \
                          `crate`, `name`, `shutdown_timeout`, `fail_on_stall`, \
                          `deterministic`, `seeds`";

/// One `key = value` pair, as written.
struct RawArg {
    key: Ident,
    value: Expr,
}

impl Parse for RawArg {
    fn parse(input: ParseStream) -> syn::Result<Self> {
        // `parse_any` accepts keywords, which `crate` is.
        let key = input.call(Ident::parse_any)?;
        if !input.peek(Token![=]) && key == DETERMINISTIC {
            // A flag: `deterministic` alone means `deterministic = true`.
            let value = Expr::Lit(ExprLit {
                attrs: Vec::new(),
                lit: Lit::Bool(syn::LitBool::new(true, key.span())),
            });
            return Ok(RawArg { key, value });
        }
        if !input.peek(Token![=]) {
            let name = key.unraw().to_string();
            let msg = if is_known_key(&name) {
                format!("expected `=` after `{name}`, as in `{name} = ..`")
            } else {
                unknown_key_message(&name)
            };
            return Err(syn::Error::new(key.span(), msg));
        }
        input.parse::<Token![=]>()?;
        let value = input.parse()?;
        Ok(RawArg { key, value })
    }
}

fn is_known_key(name: &str) -> bool {
    matches!(
        name,
        FLAVOR
            | WORKER_THREADS
            | CRATE
            | START_PAUSED
            | UNHANDLED_PANIC
            | NAME
            | SHUTDOWN_TIMEOUT
            | FAIL_ON_STALL
            | DETERMINISTIC
            | SEEDS
    )
}

fn unknown_key_message(name: &str) -> String {
    format!("unknown attribute `{name}`; expected one of: {KNOWN_KEYS}")
}

/// Parses and checks the attribute's arguments. The returned `Config` is always
/// usable (defaults fill in for what was wrong); the error, if any, combines every
/// problem found.
pub(crate) fn parse(kind: Kind, args: TokenStream) -> (Config, Option<syn::Error>) {
    let mut config = Config {
        flavor: kind.default_flavor(),
        worker_threads: None,
        crate_path: kind.default_crate(),
        unhandled_panic: None,
        start_paused: None,
        name: None,
        shutdown_timeout: None,
        fail_on_stall: None,
        seeds: None,
    };
    let raw = match Punctuated::<RawArg, Token![,]>::parse_terminated.parse2(args) {
        Ok(raw) => raw,
        Err(e) => return (config, Some(e)),
    };

    let mut errors = Errors::default();
    // The key of each argument seen so far, to report duplicates.
    let mut flavor_key: Option<Ident> = None;
    let mut threads_key: Option<Ident> = None;
    let mut crate_key: Option<Ident> = None;
    let mut panic_key: Option<Ident> = None;
    let mut paused_key: Option<Ident> = None;
    let mut name_key: Option<Ident> = None;
    let mut shutdown_key: Option<Ident> = None;
    let mut stall_key: Option<Ident> = None;
    let mut det_key: Option<Ident> = None;
    let mut seeds_key: Option<Ident> = None;
    let mut deterministic = false;

    for RawArg { key, value } in raw {
        let name = key.unraw().to_string();
        let seen = match name.as_str() {
            FLAVOR => &mut flavor_key,
            WORKER_THREADS => &mut threads_key,
            CRATE => &mut crate_key,
            UNHANDLED_PANIC => &mut panic_key,
            START_PAUSED => &mut paused_key,
            NAME => &mut name_key,
            SHUTDOWN_TIMEOUT => &mut shutdown_key,
            FAIL_ON_STALL => &mut stall_key,
            DETERMINISTIC => &mut det_key,
            SEEDS => &mut seeds_key,
            _ => {
                errors.push(syn::Error::new(key.span(), unknown_key_message(&name)));
                continue;
            }
        };
        if seen.is_some() {
            let msg = format!("duplicate `{name}` argument: it may be given only once");
            errors.push(syn::Error::new(key.span(), msg));
            continue;
        }
        *seen = Some(key);
        let result = match name.as_str() {
            FLAVOR => parse_flavor(&value).map(|f| config.flavor = f),
            WORKER_THREADS => parse_worker_threads(&value).map(|n| config.worker_threads = Some(n)),
            UNHANDLED_PANIC => {
                parse_unhandled_panic(&value).map(|v| config.unhandled_panic = Some(v))
            }
            START_PAUSED => parse_start_paused(&value).map(|b| config.start_paused = Some(b)),
            NAME => parse_name(&value).map(|n| config.name = Some(n)),
            SHUTDOWN_TIMEOUT => {
                parse_duration(SHUTDOWN_TIMEOUT, &value).map(|d| config.shutdown_timeout = Some(d))
            }
            FAIL_ON_STALL => parse_duration(FAIL_ON_STALL, &value).and_then(|d| {
                if d == 0 {
                    Err(syn::Error::new_spanned(
                        &value,
                        "`fail_on_stall` must be more than zero, e.g. `fail_on_stall = \"20ms\"`",
                    ))
                } else {
                    config.fail_on_stall = Some(d);
                    Ok(())
                }
            }),
            DETERMINISTIC => parse_deterministic(&value).map(|b| deterministic |= b),
            SEEDS => parse_seeds(&value).map(|n| config.seeds = Some(n)),
            _ => parse_crate_path(&value).map(|p| config.crate_path = p),
        };
        if let Err(e) = result {
            errors.push(e);
        }
    }

    // Checked last so that the order of the arguments does not matter.
    if deterministic || config.seeds.is_some() {
        let key = det_key
            .as_ref()
            .or(seeds_key.as_ref())
            .expect("one was given");
        if !kind.is_test() {
            let msg = "`deterministic` and `seeds` are for `#[runtime::test]`: in a program, \
                       use `Builder::deterministic(seed)`";
            errors.push(syn::Error::new(key.span(), msg));
        }
        if let Some(k) = &paused_key {
            let msg = "`start_paused` does not go with `deterministic`: a deterministic \
                       runtime's clock is virtual already (it starts paused at its epoch and \
                       jumps to the next timer); remove `start_paused`";
            errors.push(syn::Error::new(k.span(), msg));
        }
        if let Some(k) = &stall_key {
            let msg = "`fail_on_stall` does not go with `deterministic`: a deterministic \
                       runtime has no monitor thread; its stepper reports a livelock instead";
            errors.push(syn::Error::new(k.span(), msg));
        }
        if config.flavor == Flavor::Local {
            let msg = "`deterministic` runs on `current_thread` or `multi_thread`, not on \
                       `local`: a `LocalRuntime` has no deterministic mode";
            errors.push(syn::Error::new(key.span(), msg));
        }
        if let Some(k) = &shutdown_key {
            let msg = "`shutdown_timeout` does not go with `deterministic`: a deterministic \
                       runtime shuts down by stepping its tasks to the end, in virtual time";
            errors.push(syn::Error::new(k.span(), msg));
        }
        config.seeds = Some(config.seeds.unwrap_or(1));
    }
    if let Some(key) = &stall_key {
        if !kind.is_test() {
            let msg = "`fail_on_stall` is for `#[runtime::test]`: in a program, use \
                       `Builder::on_stall` to report stuck polls";
            errors.push(syn::Error::new(key.span(), msg));
        } else if flavor_key.is_none() {
            // Only the multi-thread runtime has a monitor to see a stuck poll.
            config.flavor = Flavor::MultiThread;
        } else if config.flavor != Flavor::MultiThread {
            let msg = "`fail_on_stall` requires the multi-thread runtime, whose monitor sees a \
                       stuck poll (a current-thread runtime has none): use \
                       `flavor = \"multi_thread\"` or leave `flavor` out";
            errors.push(syn::Error::new(key.span(), msg));
        }
    }

    if let Some(key) = &threads_key {
        if config.flavor != Flavor::MultiThread {
            let hint = if flavor_key.is_none() {
                format!(
                    " (the default flavor of `{}` is \"current_thread\")",
                    kind.attr_name()
                )
            } else {
                String::new()
            };
            let msg =
                format!("`worker_threads` is only allowed with `flavor = \"multi_thread\"`{hint}");
            errors.push(syn::Error::new(key.span(), msg));
        }
    }

    if let (Some(key), Some(paused)) = (&paused_key, &config.start_paused) {
        if paused.value && config.flavor == Flavor::MultiThread {
            let msg = format!(
                "`start_paused = true` requires the current-thread runtime: add \
                 `flavor = \"current_thread\"` to `{}` (time cannot be paused with several \
                 workers)",
                kind.attr_name()
            );
            errors.push(syn::Error::new(key.span(), msg));
        }
    }

    (config, errors.into_inner())
}

/// Accumulates errors into one `syn::Error` (which renders as several diagnostics).
#[derive(Default)]
pub(crate) struct Errors(Option<syn::Error>);

impl Errors {
    pub(crate) fn push(&mut self, e: syn::Error) {
        match &mut self.0 {
            Some(all) => all.combine(e),
            None => self.0 = Some(e),
        }
    }

    pub(crate) fn into_inner(self) -> Option<syn::Error> {
        self.0
    }
}

/// The literal behind `value`, looking through the invisible groups that
/// `macro_rules!` wraps around `$x:expr` fragments.
fn literal(value: &Expr) -> Option<&Lit> {
    match value {
        Expr::Lit(ExprLit { lit, .. }) => Some(lit),
        Expr::Group(g) => literal(&g.expr),
        _ => None,
    }
}

fn parse_flavor(value: &Expr) -> syn::Result<Flavor> {
    const VALID: &str = "expected \"multi_thread\", \"current_thread\" or \"local\"";
    match literal(value) {
        Some(Lit::Str(s)) => match s.value().as_str() {
            "multi_thread" => Ok(Flavor::MultiThread),
            "current_thread" => Ok(Flavor::CurrentThread),
            "local" => Ok(Flavor::Local),
            other => Err(syn::Error::new(
                s.span(),
                format!("unknown flavor \"{other}\"; {VALID}"),
            )),
        },
        _ => Err(syn::Error::new_spanned(
            value,
            format!("`flavor` expects a string literal: {VALID}"),
        )),
    }
}

fn parse_unhandled_panic(value: &Expr) -> syn::Result<Ident> {
    const VALID: &str = "expected \"ignore\" or \"shutdown_runtime\"";
    match literal(value) {
        Some(Lit::Str(s)) => match s.value().as_str() {
            "ignore" => Ok(Ident::new("Ignore", s.span())),
            "shutdown_runtime" => Ok(Ident::new("ShutdownRuntime", s.span())),
            other => Err(syn::Error::new(
                s.span(),
                format!("unknown unhandled_panic behavior \"{other}\"; {VALID}"),
            )),
        },
        _ => Err(syn::Error::new_spanned(
            value,
            format!("`unhandled_panic` expects a string literal: {VALID}"),
        )),
    }
}

fn parse_worker_threads(value: &Expr) -> syn::Result<LitInt> {
    const EXPECTED: &str =
        "`worker_threads` expects an integer literal of at least 1, e.g. `worker_threads = 4`";
    let int = match literal(value) {
        Some(Lit::Int(int)) if matches!(int.suffix(), "" | "usize") => int,
        _ => return Err(syn::Error::new_spanned(value, EXPECTED)),
    };
    match int.base10_parse::<usize>() {
        Ok(0) => Err(syn::Error::new(
            int.span(),
            "`worker_threads` must be at least 1",
        )),
        Ok(_) => Ok(int.clone()),
        // Does not fit a usize.
        Err(e) => Err(syn::Error::new(int.span(), format!("{EXPECTED}: {e}"))),
    }
}

fn parse_deterministic(value: &Expr) -> syn::Result<bool> {
    match value {
        Expr::Lit(ExprLit {
            lit: Lit::Bool(b), ..
        }) => Ok(b.value),
        _ => Err(syn::Error::new_spanned(
            value,
            "`deterministic` is a flag: write `deterministic` (or `deterministic = true`), \
             and `seeds = N` for how many seeds",
        )),
    }
}

fn parse_seeds(value: &Expr) -> syn::Result<u64> {
    const MSG: &str = "`seeds` expects an integer literal of at least 1, e.g. `seeds = 500`";
    match value {
        Expr::Lit(ExprLit {
            lit: Lit::Int(lit), ..
        }) => match lit.base10_parse::<u64>() {
            Ok(0) => Err(syn::Error::new_spanned(lit, "`seeds` must be at least 1")),
            Ok(n) => Ok(n),
            Err(_) => Err(syn::Error::new_spanned(lit, MSG)),
        },
        _ => Err(syn::Error::new_spanned(value, MSG)),
    }
}

fn parse_start_paused(value: &Expr) -> syn::Result<syn::LitBool> {
    match literal(value) {
        Some(Lit::Bool(b)) => Ok(b.clone()),
        _ => Err(syn::Error::new_spanned(
            value,
            "`start_paused` expects a boolean literal, e.g. `start_paused = true`",
        )),
    }
}

fn parse_name(value: &Expr) -> syn::Result<syn::LitStr> {
    match literal(value) {
        Some(Lit::Str(s)) => Ok(s.clone()),
        _ => Err(syn::Error::new_spanned(
            value,
            "`name` expects a string literal, e.g. `name = \"my-runtime\"`",
        )),
    }
}

/// A duration written as a string: an integer and a unit (`ns`, `us`, `ms`, `s`), in
/// nanoseconds.
fn parse_duration(key: &str, value: &Expr) -> syn::Result<u64> {
    let expected = format!(
        "`{key}` expects a duration as a string literal, an integer and a unit (ns, us, ms \
         or s), e.g. `{key} = \"20ms\"` or `{key} = \"1s\"`"
    );
    let Some(Lit::Str(s)) = literal(value) else {
        return Err(syn::Error::new_spanned(value, expected));
    };
    let text = s.value();
    let text = text.trim();
    let digits = text.len() - text.trim_start_matches(|c: char| c.is_ascii_digit()).len();
    let (number, unit) = text.split_at(digits);
    let scale: u64 = match unit.trim() {
        "ns" => 1,
        "us" => 1_000,
        "ms" => 1_000_000,
        "s" => 1_000_000_000,
        _ => return Err(syn::Error::new(s.span(), expected)),
    };
    number
        .parse::<u64>()
        .ok()
        .and_then(|n| n.checked_mul(scale))
        .ok_or_else(|| syn::Error::new(s.span(), expected))
}

fn parse_crate_path(value: &Expr) -> syn::Result<syn::Path> {
    match literal(value) {
        // The tokens of the parsed path carry the literal's span, so the path
        // resolves where the user wrote it.
        Some(Lit::Str(s)) => s.parse::<syn::Path>().map_err(|_| {
            let msg = format!(
                "`crate` expects a path such as \"runtime\" or \"::my::reexport\", \
                 found \"{}\"",
                s.value()
            );
            syn::Error::new(s.span(), msg)
        }),
        _ => Err(syn::Error::new_spanned(
            value,
            "`crate` expects a string literal holding a path, e.g. `crate = \"runtime\"`",
        )),
    }
}
