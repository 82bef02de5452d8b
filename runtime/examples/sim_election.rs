//! Leader election on a deterministic runtime: three nodes elect a leader over UDP (the
//! deterministic mode's in-memory network: the same `runtime::net::UdpSocket`, loopback
//! addresses inside the runtime, seeded delivery delays), with a planted bug, and the seed
//! search that finds it.
//!
//! The rule that keeps an election safe: a node votes at most once per term, so two
//! candidates cannot both collect a majority. The planted bug breaks it the way real
//! systems do: the vote is *sent* before it is *stored* (the node's disk task stores it),
//! so a second request handled in between is granted too, and two candidates that time
//! out together both win term 1. That takes two things: both requests arriving at one
//! instant (the network's seeded delays tie), and the workers running the node's loop on
//! the second request before the disk task stores the first vote. The default exploring
//! strategy finds it within a few dozen seeds; the fixed order (exploration off: one
//! schedule, fixed delays) never does.
//!
//! ```text
//! cargo run -p runtime --features deterministic --example sim_election            # explore 2,000 seeds
//! RUNTIME_SEED=17 cargo run -p runtime --features deterministic --example sim_election   # replay one
//! cargo run -p runtime --features deterministic --example sim_election -- --fixed    # exploration off
//! cargo run -p runtime --features deterministic --example sim_election -- --fixed-bug # the bug fixed
//! cargo run -p runtime --features deterministic --example sim_election -- --count    # how many seeds fail
//! ```

use std::collections::BTreeMap;
use std::net::SocketAddr;
use std::sync::{Arc, Mutex};
use std::time::Duration;

use runtime::net::UdpSocket;
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

/// A message on the wire: a tag byte, the term, the sender or the vote.
fn encode(msg: Msg) -> [u8; 10] {
    let (tag, term, x) = match msg {
        Msg::RequestVote { term, from } => (0, term, from as u8),
        Msg::Vote { term, granted } => (1, term, u8::from(granted)),
        Msg::Heartbeat { term } => (2, term, 0),
    };
    let mut b = [0u8; 10];
    b[0] = tag;
    b[1..9].copy_from_slice(&term.to_le_bytes());
    b[9] = x;
    b
}

fn decode(b: &[u8]) -> Msg {
    let term = u64::from_le_bytes(b[1..9].try_into().expect("a 10-byte message"));
    match b[0] {
        0 => Msg::RequestVote {
            term,
            from: usize::from(b[9]),
        },
        1 => Msg::Vote {
            term,
            granted: b[9] == 1,
        },
        _ => Msg::Heartbeat { term },
    }
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

/// A node's view of the cluster: its socket and every node's address.
struct Net {
    socket: UdpSocket,
    peers: Arc<Vec<SocketAddr>>,
}

impl Net {
    async fn send(&self, to: usize, msg: Msg) {
        self.socket
            .send_to(&encode(msg), self.peers[to])
            .await
            .expect("a datagram to a bound loopback address");
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

/// The election timeout of node `id`: nodes 1 and 2 time out together, node 0 late.
fn election_timeout(id: usize) -> Duration {
    match id {
        0 => Duration::from_millis(50),
        _ => Duration::from_millis(10),
    }
}

/// The node's disk: a task that stores each vote it is handed.
async fn disk(state: Arc<Mutex<State>>, mut stores: mpsc::UnboundedReceiver<usize>) {
    while let Some(candidate) = stores.recv().await {
        state.lock().unwrap().voted_for = Some(candidate);
    }
}

async fn node(id: usize, net: Net, ledger: Arc<Mutex<Ledger>>, votes: Votes) {
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
    let mut buf = [0u8; 16];
    loop {
        runtime::select! {
            got = net.socket.recv_from(&mut buf) => {
                let (n, _) = got.expect("a datagram");
                match decode(&buf[..n]) {
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
                        if grant {
                            if votes == Votes::SentBeforeStored {
                                // The planted bug: the vote goes to the disk task, and the
                                // reply goes out before the disk task stored it.
                                let _ = stores.send(from);
                            }
                            deadline = Instant::now() + election_timeout(id);
                        }
                        net.send(from, Msg::Vote { term, granted: grant }).await;
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
                            if term > st.term || st.role != Role::Leader {
                                st.role = Role::Follower;
                            }
                            st.term = term;
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
                    net.send(peer, Msg::RequestVote { term, from: id }).await;
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
                        net.send(peer, Msg::Heartbeat { term }).await;
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
            let mut sockets = Vec::new();
            for _ in 0..NODES {
                sockets.push(
                    UdpSocket::bind("127.0.0.1:0")
                        .await
                        .expect("a loopback port"),
                );
            }
            let peers: Arc<Vec<SocketAddr>> = Arc::new(
                sockets
                    .iter()
                    .map(|s| s.local_addr().expect("bound"))
                    .collect(),
            );
            let nodes: Vec<_> = sockets
                .into_iter()
                .enumerate()
                .map(|(id, socket)| {
                    let net = Net {
                        socket,
                        peers: peers.clone(),
                    };
                    runtime::spawn(node(id, net, ledger.clone(), votes))
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
