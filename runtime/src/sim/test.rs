//! The runner behind `#[runtime::test(deterministic, seeds = N)]`: the body under each
//! seed, the reproduction printed at the first failure, and the determinism checker.
//!
//! Seeds: `0..N`, or the one seed `RUNTIME_SEED` names (a replay), or `0..M` when
//! `RUNTIME_SEEDS=M` widens a run (a nightly exploration). Each seed gets a fresh
//! runtime; the first seed whose body panics or returns an error stops the test, after a
//! report on stderr with the seed, the strategy, the algorithm version and the command
//! that replays it.
//!
//! `RUNTIME_CHECK_DETERMINISM=1`: the runner first runs the test twice more, each in a
//! process of its own (this test binary, filtered to this test, `RUNTIME_SEED` pinned,
//! `RUNTIME_TRACE_OUT` naming a file per process), and compares the two trace logs line
//! by line. A difference fails the test with the first diverging event and the tasks it
//! names. Two processes, not two runs in one: statics, std's per-thread hash keys and
//! lazily started threads differ between processes, and those are the leaks to catch.

use std::fmt::Debug;
use std::path::{Path, PathBuf};
use std::process::Command;

use crate::runtime::Runtime;

/// Set in the checker's child processes (they run the test and nothing else).
const CHILD: &str = "RUNTIME_SIM_CHECK_CHILD";

/// What a test body returns: `()` or a `Result` whose error fails the test.
pub trait TestOutput {
    /// The failure this output is, if it is one.
    fn failure(&self) -> Option<String>;
}

impl TestOutput for () {
    fn failure(&self) -> Option<String> {
        None
    }
}

impl<T, E: Debug> TestOutput for Result<T, E> {
    fn failure(&self) -> Option<String> {
        self.as_ref().err().map(|e| format!("returned Err({e:?})"))
    }
}

/// The test being run, as the macro names it.
#[derive(Clone, Copy, Debug)]
pub struct TestId {
    /// `CARGO_PKG_NAME` of the test's package.
    pub package: &'static str,
    /// `module_path!()` at the test.
    pub module: &'static str,
    /// The test function's name.
    pub name: &'static str,
}

impl TestId {
    /// The test's path as libtest filters it: the module path without the crate's name.
    pub fn path(&self) -> String {
        match self.module.split_once("::") {
            Some((_, rest)) => format!("{rest}::{}", self.name),
            None => self.name.to_string(),
        }
    }

    /// The command that replays `seed`.
    pub fn replay_command(&self, seed: u64) -> String {
        let features = if self.package == "runtime" {
            " --features deterministic"
        } else {
            ""
        };
        let strategy = match std::env::var("RUNTIME_SIM_STRATEGY") {
            Ok(s) if !s.trim().is_empty() => format!("RUNTIME_SIM_STRATEGY={} ", s.trim()),
            _ => String::new(),
        };
        format!(
            "{strategy}RUNTIME_SEED={seed} cargo test -p {}{features} -- {} --exact",
            self.package,
            self.path()
        )
    }
}

fn env_u64(name: &str) -> Option<u64> {
    let raw = std::env::var(name).ok()?;
    let raw = raw.trim();
    if raw.is_empty() {
        return None;
    }
    Some(raw.parse().unwrap_or_else(|_| {
        panic!("{name}={raw:?} is not a seed: give a decimal number, e.g. {name}=42")
    }))
}

/// The seeds a run covers (module docs).
fn seeds(default: u64) -> std::ops::Range<u64> {
    if let Some(seed) = env_u64("RUNTIME_SEED") {
        return seed..seed.saturating_add(1);
    }
    0..env_u64("RUNTIME_SEEDS").unwrap_or(default).max(1)
}

/// Runs `body` on a runtime from `build(seed)` for each seed (module docs). Not API: the
/// expansion of `#[runtime::test(deterministic)]`.
#[doc(hidden)]
pub fn run<T: TestOutput>(
    id: TestId,
    default_seeds: u64,
    build: impl Fn(u64) -> Runtime,
    body: impl Fn(&Runtime) -> T,
) -> T {
    let range = seeds(default_seeds);
    if std::env::var_os(CHILD).is_none()
        && std::env::var("RUNTIME_CHECK_DETERMINISM").is_ok_and(|v| v.trim() == "1")
    {
        check(&id, range.start);
    }
    let total = range.end - range.start;
    let mut last = None;
    for (i, seed) in range.enumerate() {
        let out = std::panic::catch_unwind(std::panic::AssertUnwindSafe(|| {
            let rt = build(seed);
            let out = body(&rt);
            drop(rt);
            out
        }));
        match out {
            Ok(out) => {
                if let Some(failure) = out.failure() {
                    report(&id, seed, i as u64, total, &failure);
                    return out;
                }
                last = Some(out);
            }
            Err(payload) => {
                report(&id, seed, i as u64, total, "panicked");
                std::panic::resume_unwind(payload);
            }
        }
    }
    last.expect("a run covers one seed at least")
}

fn report(id: &TestId, seed: u64, index: u64, total: u64, what: &str) {
    let strategy = crate::sim::Options::default().or_env().strategy;
    eprintln!(
        "\ndeterministic test `{}` {what} at seed {seed} (seed {} of {total}; strategy \
         {strategy:?}, algorithm version {}). Replay it with:\n\n    {}\n",
        id.path(),
        index + 1,
        crate::sim::ALGORITHM_VERSION,
        id.replay_command(seed),
    );
}

/// The determinism checker (module docs): panics at the first difference.
fn check(id: &TestId, seed: u64) {
    let exe = std::env::current_exe().expect("the test binary's path");
    let dir = std::env::temp_dir().join(format!(
        "runtime-sim-check-{}-{}",
        std::process::id(),
        id.name
    ));
    std::fs::create_dir_all(&dir).expect("a directory for the checker's traces");
    let traces: Vec<PathBuf> = (0..2)
        .map(|i| {
            let trace = dir.join(format!("trace-{i}.log"));
            let out = Command::new(&exe)
                .args([
                    id.path().as_str(),
                    "--exact",
                    "--nocapture",
                    "--test-threads=1",
                ])
                .env(CHILD, "1")
                .env("RUNTIME_SEED", seed.to_string())
                .env("RUNTIME_TRACE_OUT", &trace)
                .env_remove("RUNTIME_CHECK_DETERMINISM")
                .output()
                .unwrap_or_else(|e| panic!("the determinism checker could not run {exe:?}: {e}"));
            if !trace.exists() {
                panic!(
                    "determinism check of `{}`: the child process wrote no trace (exit {:?}); \
                     its stderr:\n{}",
                    id.path(),
                    out.status.code(),
                    String::from_utf8_lossy(&out.stderr)
                );
            }
            trace
        })
        .collect();
    let verdict = compare(&traces[0], &traces[1]);
    let _ = std::fs::remove_dir_all(&dir);
    match verdict {
        Ok(events) => eprintln!(
            "determinism check of `{}`: seed {seed}, {events} trace lines identical in two \
             processes",
            id.path()
        ),
        Err(diff) => panic!(
            "determinism check of `{}` failed at seed {seed}: two processes diverged.\n{diff}\n\
             Something the run read is not a function of the seed: wall time \
             (`SystemTime::now`, std's `Instant`), a `HashMap`'s iteration order, an OS \
             thread or an OS-seeded random number. Use `runtime::time`, a `BTreeMap` or a \
             fixed hasher, tasks instead of threads, and a generator seeded from the test.",
            id.path()
        ),
    }
}

/// Compares two trace logs: the number of lines when equal, else a description of the
/// first difference (its line, both versions, and the tasks the lines name).
fn compare(a: &Path, b: &Path) -> Result<usize, String> {
    let read = |p: &Path| {
        std::fs::read_to_string(p).unwrap_or_else(|e| panic!("reading the trace {p:?}: {e}"))
    };
    let (a, b) = (read(a), read(b));
    let (a, b): (Vec<&str>, Vec<&str>) = (a.lines().collect(), b.lines().collect());
    let Some(i) = (0..a.len().max(b.len())).find(|&i| a.get(i) != b.get(i)) else {
        return Ok(a.len());
    };
    let line = |v: &[&str]| v.get(i).copied().unwrap_or("<the trace ended>").to_string();
    let (la, lb) = (line(&a), line(&b));
    let mut out = format!(
        "first diverging trace line {i} (event {}):\n  first process:  {la}\n  second process: {lb}\n",
        a[..i.min(a.len())].iter().filter(|l| !l.starts_with('#')).count()
    );
    for (who, lines, text) in [("first", &a, &la), ("second", &b, &lb)] {
        for seq in seqs_named(text) {
            if let Some(desc) = describe(lines, i, seq) {
                out.push_str(&format!("  ({who} process) task {seq}: {desc}\n"));
            }
        }
    }
    Err(out)
}

/// The task sequence numbers a trace line names (`seq: N`, or `# task N:`).
fn seqs_named(line: &str) -> Vec<u64> {
    let mut out = Vec::new();
    if let Some(rest) = line.strip_prefix("# task ") {
        if let Some(n) = rest.split(':').next().and_then(|n| n.parse().ok()) {
            out.push(n);
        }
    }
    let mut rest = line;
    while let Some(at) = rest.find("seq: ") {
        rest = &rest[at + 5..];
        let digits: String = rest.chars().take_while(char::is_ascii_digit).collect();
        if let Ok(n) = digits.parse() {
            out.push(n);
        }
    }
    out
}

/// The description of task `seq` at or before line `upto` of a log.
fn describe(lines: &[&str], upto: usize, seq: u64) -> Option<String> {
    let prefix = format!("# task {seq}: ");
    lines[..(upto + 1).min(lines.len())]
        .iter()
        .rev()
        .find_map(|l| l.strip_prefix(prefix.as_str()).map(str::to_string))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn paths_and_commands() {
        let id = TestId {
            package: "kv",
            module: "election::tests",
            name: "one_leader",
        };
        assert_eq!(id.path(), "tests::one_leader");
        assert!(id
            .replay_command(17)
            .ends_with("RUNTIME_SEED=17 cargo test -p kv -- tests::one_leader --exact"));
        let top = TestId {
            package: "runtime",
            module: "sim_macro",
            name: "t",
        };
        assert_eq!(top.path(), "t");
        assert!(top.replay_command(1).contains("--features deterministic"));
    }

    #[test]
    fn seq_extraction() {
        assert_eq!(
            seqs_named("12 Poll { worker: 1, seq: 7, lifo: false }"),
            vec![7]
        );
        assert_eq!(seqs_named("# task 3: spawned at a.rs:1:2"), vec![3]);
        assert!(seqs_named("4 Digest(99)").is_empty());
    }
}
