//! The example `sim_election` (runtime/examples): its planted bug (a vote sent before it is
//! stored) is found by the default exploration within 2,000 seeds, the failing seed
//! replays in fresh processes every time, and with exploration off the same seeds never
//! find it; with the bug fixed no seed does.
#![cfg(all(feature = "deterministic", not(loom)))]

#[macro_use]
mod support;

#[allow(dead_code)]
#[path = "../examples/sim_election.rs"]
mod election;

use election::{run, Votes};
use runtime::sim::Options;
use support::*;

fn first_failing(options: Options, votes: Votes, seeds: u64) -> Option<u64> {
    (0..seeds).find(|&s| run(s, options, votes).0.is_some())
}

#[test]
fn exploration_finds_the_split_brain() {
    watchdog("the seed search", || {
        let seed = first_failing(Options::default(), Votes::SentBeforeStored, 2_000)
            .expect("no seed of 2,000 found the planted bug");
        let (split, hash) = run(seed, Options::default(), Votes::SentBeforeStored);
        let (term, leaders) = split.expect("the failing seed fails again");
        assert_eq!(leaders.len(), 2, "term {term}: {leaders:?}");
        for _ in 0..10 {
            assert_eq!(
                run(seed, Options::default(), Votes::SentBeforeStored).1,
                hash
            );
        }
    });
}

#[test]
fn the_failing_seed_replays_in_fresh_processes() {
    let seed = first_failing(Options::default(), Votes::SentBeforeStored, 2_000)
        .expect("no seed of 2,000 found the planted bug");
    let expected = run(seed, Options::default(), Votes::SentBeforeStored).1;
    let exe = std::env::current_exe().unwrap();
    for i in 0..100 {
        let out = std::process::Command::new(&exe)
            .args(["replay_child", "--exact", "--nocapture"])
            .env("SIM_ELECTION_SEED", seed.to_string())
            .output()
            .unwrap();
        let text = String::from_utf8_lossy(&out.stdout);
        let line = text
            .lines()
            .find(|l| l.starts_with("replay:"))
            .unwrap_or_else(|| panic!("process {i} printed no result: {text}"));
        assert_eq!(
            line,
            format!("replay: split brain, trace {expected:016x}"),
            "process {i} of 100 ran seed {seed} another way"
        );
    }
}

/// The child of the test above: runs one seed, prints its outcome.
#[test]
fn replay_child() {
    let Ok(seed) = std::env::var("SIM_ELECTION_SEED") else {
        return;
    };
    let (split, hash) = run(
        seed.parse().unwrap(),
        Options::default(),
        Votes::SentBeforeStored,
    );
    let what = if split.is_some() {
        "split brain"
    } else {
        "one leader"
    };
    println!("replay: {what}, trace {hash:016x}");
}

#[test]
fn a_fixed_order_never_finds_it() {
    watchdog("the fixed order over the seeds", || {
        assert_eq!(
            first_failing(Options::fixed(), Votes::SentBeforeStored, 500),
            None
        );
    });
}

#[test]
fn with_the_bug_fixed_no_seed_splits() {
    watchdog("the fixed program over the seeds", || {
        assert_eq!(
            first_failing(Options::default(), Votes::StoredBeforeSent, 500),
            None
        );
    });
}
