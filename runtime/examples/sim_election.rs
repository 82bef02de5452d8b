//! Leader election on a deterministic runtime: three nodes elect a leader over a simulated
//! network (channels behind a 1 ms delivery delay), with a planted bug, and the seed
//! search that finds it.
//!
//! The rule that keeps an election safe: a node votes at most once per term, so two
//! candidates cannot both collect a majority. The planted bug breaks it the way real
//! systems do: the vote is *sent* before it is *stored* (the store waits for a simulated
//! `fsync`), so a second request handled in between is granted too. Two candidates that
//! time out together then both win term 1. Whether the second request is handled before
//! the store depends only on how the workers interleave three ready tasks, so the bug
//! shows under some schedules and not others: the default exploring strategy finds it
//! within a few hundred seeds, the fixed order (exploration off) never.
//!
//! ```text
//! cargo run -p runtime --features deterministic --example sim_election            # explore 2,000 seeds
//! RUNTIME_SEED=17 cargo run -p runtime --features deterministic --example sim_election   # replay one
//! cargo run -p runtime --features deterministic --example sim_election -- --fixed    # exploration off
//! cargo run -p runtime --features deterministic --example sim_election -- --fixed-bug # the bug fixed
//! ```

use std::collections::BTreeMap;
use std::sync::{Arc, Mutex};
use std::time::Duration;

use runtime::sim::Options;
use runtime::sync::mpsc;
use runtime::time::{sleep, sleep_until, Instant};

/// Nodes in the cluster; a majority is two.
const NODES: usize = 3;

#[derive(Clone, Copy, Debug)]
enum Msg {
    RequestVote { term: u64, from: usize },
    Vote { term: u64, granted: bool },
    Heartbeat { term: u64 },
}

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Role {
    Follower,
    Candidate,
    Leader,
}

struct State {
    term: u64,
    voted_for: Option<usize>,
    role: Role,
    votes: usize,
}

/// The simulated network: each node's inbox, reached after a fixed delay.
#[derive(Clone)]
struct Net {
    inboxes: Arc<Vec<mpsc::UnboundedSender<Msg>>>,
}

impl Net {
    fn send(&self, to: usize, msg: Msg) {
        let inbox = self.inboxes[to].clone();
        runtime::spawn(async move {
            sleep(Duration::from_millis(1)).await;
            let _ = inbox.send(msg);
        });
    }
}

/// Who won which term: the safety property is one leader per term.
#[derive(Default)]
pub struct Ledger {
    leaders: BTreeMap<u64, Vec<usize>>,
}

impl Ledger {
    /// The first term with two leaders, if any.
    pub fn split_brain(&self) -> Option<(u64, Vec<usize>)> {
        self.leaders
            .iter()
            .find(|(_, who)| who.len() > 1)
            .map(|(t, who)| (*t, who.clone()))
    }
}

/// Whether the bug is planted (the vote sent before it is stored).
#[derive(Clone, Copy, PartialEq, Eq)]
pub enum Votes {
    SentBeforeStored,
    StoredBeforeSent,
}

/// The election timeout of node `id`: nodes 1 and 2 time out a millisecond apart (their
/// requests reach node 0 at two disk commits in a row), node 0 late.
fn election_timeout(id: usize) -> Duration {
    match id {
        0 => Duration::from_millis(50),
        1 => Duration::from_millis(10),
        _ => Duration::from_millis(11),
    }
}

/// The node's disk: stores queued by the node are applied at its next group commit,
/// one per millisecond.
async fn disk(state: Arc<Mutex<State>>, mut stores: mpsc::UnboundedReceiver<usize>) {
    let mut commit = runtime::time::interval(Duration::from_millis(1));
    let mut pending = Vec::new();
    loop {
        runtime::select! {
            store = stores.recv() => match store {
                Some(candidate) => pending.push(candidate),
                None => return,
            },
            _ = commit.tick() => {
                for candidate in pending.drain(..) {
                    state.lock().unwrap().voted_for = Some(candidate);
                }
            }
        }
    }
}

async fn node(
    id: usize,
    net: Net,
    mut inbox: mpsc::UnboundedReceiver<Msg>,
    ledger: Arc<Mutex<Ledger>>,
    votes: Votes,
) {
    let state = Arc::new(Mutex::new(State {
        term: 0,
        voted_for: None,
        role: Role::Follower,
        votes: 0,
    }));
    let (stores, store_rx) = mpsc::unbounded_channel();
    runtime::spawn(disk(state.clone(), store_rx));
    let mut deadline = Instant::now() + election_timeout(id);
    let mut beat = runtime::time::interval(Duration::from_millis(5));
    loop {
        runtime::select! {
            msg = inbox.recv() => {
                let Some(msg) = msg else { return };
                match msg {
                    Msg::RequestVote { term, from } => {
                        let grant = {
                            let mut st = state.lock().unwrap();
                            if term > st.term {
                                st.term = term;
                                st.voted_for = None;
                                st.role = Role::Follower;
                            }
                            let grant = term == st.term && st.voted_for.is_none_or(|v| v == from);
                            if grant && votes == Votes::StoredBeforeSent {
                                st.voted_for = Some(from);
                            }
                            grant
                        };
                        net.send(from, Msg::Vote { term, granted: grant });
                        if grant {
                            if votes == Votes::SentBeforeStored {
                                // The planted bug: the reply goes out now, the vote is
                                // stored at the disk's next commit.
                                let _ = stores.send(from);
                            }
                            deadline = Instant::now() + election_timeout(id);
                        }
                    }
                    Msg::Vote { term, granted } => {
                        let mut st = state.lock().unwrap();
                        if granted && term == st.term && st.role == Role::Candidate {
                            st.votes += 1;
                            if st.votes * 2 > NODES {
                                st.role = Role::Leader;
                                ledger.lock().unwrap().leaders.entry(term).or_default().push(id);
                            }
                        }
                    }
                    Msg::Heartbeat { term } => {
                        let mut st = state.lock().unwrap();
                        if term >= st.term {
                            st.term = term;
                            if st.role != Role::Leader || term > st.term {
                                st.role = Role::Follower;
                            }
                            deadline = Instant::now() + election_timeout(id);
                        }
                    }
                }
            }
            _ = sleep_until(deadline) => {
                let term = {
                    let mut st = state.lock().unwrap();
                    if st.role == Role::Leader {
                        deadline = Instant::now() + election_timeout(id);
                        continue;
                    }
                    st.term += 1;
                    st.role = Role::Candidate;
                    st.voted_for = Some(id);
                    st.votes = 1;
                    st.term
                };
                for peer in (0..NODES).filter(|&p| p != id) {
                    net.send(peer, Msg::RequestVote { term, from: id });
                }
                deadline = Instant::now() + election_timeout(id) * 3;
            }
            _ = beat.tick() => {
                let (leader, term) = {
                    let st = state.lock().unwrap();
                    (st.role == Role::Leader, st.term)
                };
                if leader {
                    for peer in (0..NODES).filter(|&p| p != id) {
                        net.send(peer, Msg::Heartbeat { term });
                    }
                }
            }
        }
    }
}

/// Runs the cluster for 200 ms of virtual time on a deterministic runtime; returns the
/// first term that elected two leaders, if one did, and the run's trace hash.
pub fn run(seed: u64, options: Options, votes: Votes) -> (Option<(u64, Vec<usize>)>, u64) {
    let rt = runtime::Builder::new_multi_thread()
        .worker_threads(4)
        .enable_all()
        .deterministic_options(seed, options)
        .build()
        .expect("a deterministic runtime");
    let ledger = Arc::new(Mutex::new(Ledger::default()));
    rt.block_on({
        let ledger = ledger.clone();
        async move {
            let (senders, receivers): (Vec<_>, Vec<_>) =
                (0..NODES).map(|_| mpsc::unbounded_channel()).unzip();
            let net = Net {
                inboxes: Arc::new(senders),
            };
            let nodes: Vec<_> = receivers
                .into_iter()
                .enumerate()
                .map(|(id, inbox)| {
                    runtime::spawn(node(id, net.clone(), inbox, ledger.clone(), votes))
                })
                .collect();
            sleep(Duration::from_millis(200)).await;
            for n in nodes {
                n.abort();
            }
        }
    });
    let hash = rt.trace_hash();
    drop(rt);
    let split = ledger.lock().unwrap().split_brain();
    (split, hash)
}

#[allow(dead_code)]
fn main() {
    let args: Vec<String> = std::env::args().skip(1).collect();
    let fixed = args.iter().any(|a| a == "--fixed");
    let votes = if args.iter().any(|a| a == "--fixed-bug") {
        Votes::StoredBeforeSent
    } else {
        Votes::SentBeforeStored
    };
    let options = if fixed {
        Options::fixed()
    } else {
        Options::default()
    };
    let seeds = match std::env::var("RUNTIME_SEED") {
        Ok(s) => {
            let s: u64 = s.trim().parse().expect("RUNTIME_SEED must be a number");
            s..s + 1
        }
        Err(_) => 0..2_000,
    };
    let total = seeds.end - seeds.start;
    if args.iter().any(|a| a == "--count") {
        let hits = seeds
            .filter(|&s| run(s, options, votes).0.is_some())
            .count();
        println!("{hits} of {total} seeds split the brain");
        return;
    }
    for seed in seeds {
        if let (Some((term, leaders)), hash) = run(seed, options, votes) {
            println!(
                "seed {seed}: split brain in term {term}: nodes {leaders:?} both won \
                 (trace {hash:016x}); replay it with\n\n    RUNTIME_SEED={seed} cargo run -p \
                 runtime --features deterministic --example sim_election{}",
                if fixed { " -- --fixed" } else { "" }
            );
            std::process::exit(1);
        }
    }
    println!("{total} seeds: one leader per term in every run");
}
