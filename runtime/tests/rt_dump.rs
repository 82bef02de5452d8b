//! `Handle::dump`: every task listed with what it waits on, lock holders, deadlock cycles,
//! unwakeable tasks; taken from another thread while a worker is stuck in a poll.
#![cfg(not(loom))]

#[macro_use]
mod support;

use std::collections::HashSet;
use std::future::poll_fn;
use std::os::fd::AsRawFd;
use std::sync::atomic::{AtomicBool, Ordering::SeqCst};
use std::sync::Arc;
use std::task::Poll;
use std::time::{Duration, Instant};

use runtime::dump::{Dump, IoDirection, TaskState, WaitsOn};
use runtime::io::AsyncReadExt;
use runtime::net::UnixStream;
use runtime::sync::{Barrier, Mutex};
use runtime::task::Id;
use runtime::{Handle, Runtime};
use support::{multi_thread, watchdog};

const FOREVER: Duration = Duration::from_secs(3600);

/// Dumps until `ready` holds for a dump (tasks settle at their own pace), returning it.
/// Bounded by the caller's watchdog.
fn dump_until(handle: &Handle, mut ready: impl FnMut(&Dump) -> bool) -> Dump {
    loop {
        let d = handle.dump();
        if ready(&d) {
            return d;
        }
        std::thread::sleep(Duration::from_millis(5));
    }
}

fn waits(d: &Dump, id: Id) -> &[WaitsOn] {
    d.task(id)
        .unwrap_or_else(|| panic!("task {id} is not listed in the dump:\n{d}"))
        .waits_on()
}

fn idle_with_wait(d: &Dump, id: Id) -> bool {
    d.task(id)
        .is_some_and(|t| t.state() == TaskState::Idle && !t.waits_on().is_empty())
}

struct Program {
    rt: Runtime,
    sleepers: Vec<Id>,
    readers: Vec<(Id, i32)>,
    holder: Id,
    lock_waiters: Vec<Id>,
    joiners: Vec<(Id, Id)>,
    deadlocked: (Id, Id),
    forgetful: Id,
    /// The peers of the readers' sockets, kept open so the reads stay idle.
    _peers: Vec<UnixStream>,
}

/// 400 sleepers, 300 idle socket readers, 200 tasks queued on a Mutex that one task holds,
/// 99 tasks awaiting sleepers' JoinHandles, a two-task Mutex deadlock and a future that
/// drops its waker, on 4 workers.
fn program() -> Program {
    let rt = multi_thread(4);
    let h = rt.handle().clone();
    let _enter = rt.enter();
    let mut sleepers = Vec::new();
    let mut sleeper_handles = Vec::new();
    for _ in 0..400 {
        let j = h.spawn(runtime::time::sleep(FOREVER));
        sleepers.push(j.id());
        sleeper_handles.push(j);
    }
    let mut readers = Vec::new();
    let mut peers = Vec::new();
    for _ in 0..300 {
        let (mut a, b) = UnixStream::pair().unwrap();
        let fd = a.as_raw_fd();
        let j = h.spawn(async move {
            let mut buf = [0u8; 16];
            let _ = a.read(&mut buf).await;
        });
        readers.push((j.id(), fd));
        peers.push(b);
    }
    let m = Arc::new(Mutex::new(()));
    let held = Arc::new(runtime::sync::Notify::new());
    let holder = {
        let (m, held) = (m.clone(), held.clone());
        runtime::task::Builder::new()
            .name("holder")
            .spawn(async move {
                let _g = m.lock().await;
                held.notify_one();
                runtime::time::sleep(FOREVER).await;
            })
            .unwrap()
            .id()
    };
    rt.block_on(held.notified());
    let lock_waiters = (0..200)
        .map(|_| {
            let m = m.clone();
            h.spawn(async move {
                drop(m.lock().await);
            })
            .id()
        })
        .collect();
    let joiners = sleeper_handles
        .drain(..99)
        .map(|j| {
            let target = j.id();
            let id = h
                .spawn(async move {
                    let _ = j.await;
                })
                .id();
            (id, target)
        })
        .collect();
    let (m1, m2) = (Arc::new(Mutex::new(())), Arc::new(Mutex::new(())));
    let both_hold = Arc::new(Barrier::new(2));
    let mut deadlocked = Vec::new();
    for (name, first, second) in [
        ("deadlock-a", m1.clone(), m2.clone()),
        ("deadlock-b", m2, m1),
    ] {
        let both_hold = both_hold.clone();
        let j = runtime::task::Builder::new()
            .name(name)
            .spawn(async move {
                let _a = first.lock().await;
                both_hold.wait().await;
                let _b = second.lock().await;
            })
            .unwrap();
        deadlocked.push(j.id());
    }
    let forgetful = h.spawn(poll_fn(|_| Poll::<()>::Pending)).id();
    Program {
        rt,
        sleepers,
        readers,
        holder,
        lock_waiters,
        joiners,
        deadlocked: (deadlocked[0], deadlocked[1]),
        forgetful,
        _peers: peers,
    }
}

#[test]
fn dump_names_every_wait_the_holders_the_deadlock_and_the_unwakeable_task() {
    watchdog(
        "a dump of 1,000 tasks with a worker stuck in a poll",
        || {
            let p = program();
            let h = p.rt.handle().clone();
            // Everyone settles into its wait.
            let everyone: Vec<Id> = p
                .sleepers
                .iter()
                .copied()
                .chain(p.readers.iter().map(|r| r.0))
                .chain(p.lock_waiters.iter().copied())
                .chain(p.joiners.iter().map(|j| j.0))
                .chain([p.holder, p.deadlocked.0, p.deadlocked.1])
                .collect();
            dump_until(&h, |d| {
                everyone.iter().all(|&id| idle_with_wait(d, id))
                    && d.task(p.forgetful)
                        .is_some_and(|t| t.state() == TaskState::Idle)
            });

            // One task blocks its worker inside a poll until the dump is done.
            let blocking = Arc::new(AtomicBool::new(false));
            let release = Arc::new(AtomicBool::new(false));
            let blocker = {
                let (blocking, release) = (blocking.clone(), release.clone());
                h.spawn(async move {
                    // Park once, so the task is listed.
                    runtime::time::sleep(Duration::from_millis(1)).await;
                    blocking.store(true, SeqCst);
                    let give_up = Instant::now() + support::WATCHDOG;
                    while !release.load(SeqCst) {
                        assert!(
                            Instant::now() < give_up,
                            "the test never released the blocker"
                        );
                        std::thread::sleep(Duration::from_millis(2));
                    }
                })
            };
            while !blocking.load(SeqCst) {
                std::thread::sleep(Duration::from_millis(1));
            }
            // The dump, from a thread of its own, returns while that worker is blocked.
            let d = {
                let h = h.clone();
                std::thread::spawn(move || h.dump()).join().unwrap()
            };
            assert!(
                !release.load(SeqCst),
                "the blocker is still stuck in its poll"
            );
            let report = d.to_string();
            // The report's head, for whoever reads the test's output.
            eprintln!("{}", report.lines().take(12).collect::<Vec<_>>().join("\n"));
            assert_eq!(
                d.task(blocker.id()).map(|t| t.state()),
                Some(TaskState::Running),
                "{report}"
            );

            for &id in &p.sleepers {
                assert!(
                    waits(&d, id)
                        .iter()
                        .any(|w| matches!(w, WaitsOn::Sleep { .. })),
                    "sleeper {id}: {:?}",
                    waits(&d, id)
                );
            }
            for &(id, fd) in &p.readers {
                assert!(
                    waits(&d, id).contains(&WaitsOn::Io {
                        fd,
                        direction: IoDirection::Read
                    }),
                    "reader {id} on fd {fd}: {:?}",
                    waits(&d, id)
                );
            }
            for &id in &p.lock_waiters {
                assert!(
                    waits(&d, id).iter().any(|w| matches!(
                        w,
                        WaitsOn::Sync { kind: "Mutex", holder: Some(h), .. } if *h == p.holder
                    )),
                    "lock waiter {id}: {:?}",
                    waits(&d, id)
                );
            }
            for &(id, target) in &p.joiners {
                assert!(
                    waits(&d, id).contains(&WaitsOn::Join { task: target }),
                    "joiner {id} of {target}: {:?}",
                    waits(&d, id)
                );
            }
            let (a, b) = p.deadlocked;
            let cycle = if a < b { vec![a, b] } else { vec![b, a] };
            assert_eq!(d.deadlocks(), [cycle.clone()].as_slice(), "{report}");
            assert!(
                report.contains(&format!(
                    "cycle: task {} -> task {} -> task {}",
                    cycle[0], cycle[1], cycle[0]
                )),
                "{report}"
            );
            let unwakeable: Vec<Id> = d.unwakeable().map(|t| t.id()).collect();
            assert_eq!(unwakeable, vec![p.forgetful], "{report}");
            assert!(report.contains("UNWAKEABLE"), "{report}");
            assert!(report.contains("held by task"), "{report}");
            // Tasks carry their identity: the name given at spawn, and the spawn's caller.
            let holder = d.task(p.holder).unwrap().meta();
            assert_eq!(holder.name(), Some("holder"));
            assert!(
                holder
                    .spawned_at()
                    .is_some_and(|at| at.file().ends_with("rt_dump.rs")),
                "{holder:?}"
            );
            for name in ["task 'holder'", "task 'deadlock-a'", "task 'deadlock-b'"] {
                assert!(report.contains(name), "{name} missing:\n{report}");
            }

            let listed: HashSet<Id> = d.tasks().iter().map(|t| t.id()).collect();
            assert!(
                everyone.iter().all(|id| listed.contains(id)) && listed.contains(&p.forgetful),
                "{report}"
            );

            release.store(true, SeqCst);
            p.rt.block_on(blocker).unwrap();
        },
    );
}

#[test]
fn a_signal_hands_a_dump_to_the_callback_on_a_thread_of_its_own_while_the_worker_is_stuck() {
    watchdog("a dump on SIGUSR2", || {
        let (tx, rx) = std::sync::mpsc::channel();
        let tx = std::sync::Mutex::new(tx);
        let rt = runtime::Builder::new_multi_thread()
            .worker_threads(1)
            .enable_all()
            .on_dump_signal(libc::SIGUSR2, move |d| {
                let name = std::thread::current().name().map(String::from);
                let _ = tx.lock().unwrap().send((name, d.clone()));
            })
            .build()
            .unwrap();
        let sleeper = rt.spawn(async { runtime::time::sleep(FOREVER).await }).id();
        dump_until(rt.handle(), |d| idle_with_wait(d, sleeper));
        // The only worker blocks in a poll until the dump arrived.
        let release = Arc::new(AtomicBool::new(false));
        let blocking = Arc::new(AtomicBool::new(false));
        let blocker = {
            let (release, blocking) = (release.clone(), blocking.clone());
            rt.spawn(async move {
                blocking.store(true, SeqCst);
                let give_up = Instant::now() + support::WATCHDOG;
                while !release.load(SeqCst) {
                    assert!(
                        Instant::now() < give_up,
                        "the test never released the blocker"
                    );
                    std::thread::sleep(Duration::from_millis(2));
                }
            })
        };
        while !blocking.load(SeqCst) {
            std::thread::sleep(Duration::from_millis(1));
        }
        // SAFETY: raising a signal whose handler the runtime installed.
        assert_eq!(unsafe { libc::raise(libc::SIGUSR2) }, 0);
        let (thread, d) = rx.recv().expect("the dump thread is gone");
        release.store(true, SeqCst);
        assert_eq!(thread.as_deref(), Some("runtime-dump"));
        assert!(
            waits(&d, sleeper)
                .iter()
                .any(|w| matches!(w, WaitsOn::Sleep { .. })),
            "{d}"
        );
        rt.block_on(blocker).unwrap();
    });
}

#[test]
fn dump_on_an_unhandleable_signal_fails_the_build() {
    let err = runtime::Builder::new_current_thread()
        .dump_on_signal(libc::SIGKILL)
        .build()
        .expect_err("SIGKILL cannot be handled");
    assert!(err.to_string().contains("SIGUSR1"), "{err}");
}

#[test]
fn each_primitive_names_its_waiters_and_a_write_lock_its_holder() {
    use runtime::sync::{mpsc, RwLock, Semaphore};
    watchdog(
        "waiters of Notify, Semaphore, RwLock and a full channel",
        || {
            let rt = support::current_thread();
            let notify = Arc::new(runtime::sync::Notify::new());
            let sem = Arc::new(Semaphore::new(0));
            let lock = Arc::new(RwLock::new(0));
            let (tx, _rx) = mpsc::channel::<u8>(1);
            let notified = {
                let n = notify.clone();
                rt.spawn(async move { n.notified().await }).id()
            };
            let acquirer = {
                let s = sem.clone();
                rt.spawn(async move { drop(s.acquire().await) }).id()
            };
            let writer = {
                let l = lock.clone();
                rt.spawn(async move {
                    let _w = l.write().await;
                    runtime::time::sleep(FOREVER).await;
                })
                .id()
            };
            let reader = {
                let l = lock.clone();
                rt.spawn(async move { drop(l.read().await) }).id()
            };
            let sender = rt
                .spawn(async move {
                    tx.send(1).await.unwrap();
                    tx.send(2).await.unwrap();
                })
                .id();
            let (utx, mut urx) = mpsc::unbounded_channel::<u8>();
            let receiver = rt
                .spawn(async move {
                    urx.recv().await;
                    // Keeps the receiver, waiting on something else.
                    runtime::time::sleep(FOREVER).await;
                    drop(urx);
                })
                .id();
            // A current-thread runtime runs its tasks only inside `block_on`.
            let d = loop {
                rt.block_on(runtime::task::yield_now());
                let d = rt.dump();
                if [notified, acquirer, writer, reader, sender, receiver]
                    .iter()
                    .all(|&id| idle_with_wait(&d, id))
                {
                    break d;
                }
            };
            let kind_of = |id| match waits(&d, id) {
                [WaitsOn::Sync { kind, holder, .. }] => (*kind, *holder),
                other => panic!("task {id}: {other:?}\n{d}"),
            };
            assert_eq!(kind_of(notified), ("Notify", None));
            assert_eq!(kind_of(acquirer), ("Semaphore", None));
            assert_eq!(kind_of(reader), ("RwLock", Some(writer)));
            assert_eq!(kind_of(sender), ("mpsc send", None));
            assert_eq!(kind_of(receiver), ("mpsc recv", None));
            // A receiver that got its message no longer shows as waiting on the channel.
            utx.send(1).unwrap();
            rt.block_on(runtime::task::yield_now());
            assert!(
                task::waits::snapshot()
                    .iter()
                    .all(|r| r.waiter != Some(receiver)),
                "a served receiver is still shown waiting"
            );
            // The waiters leave the registry with their queues.
            notify.notify_one();
            sem.add_permits(1);
            rt.block_on(runtime::task::yield_now());
            let d = rt.dump();
            assert!(
                d.task(notified).is_none() && d.task(acquirer).is_none(),
                "{d}"
            );
            let left: Vec<_> = task::waits::snapshot()
                .into_iter()
                .filter(|r| r.waiter == Some(notified) || r.waiter == Some(acquirer))
                .collect();
            assert!(left.is_empty(), "served waiters still recorded: {left:?}");
            // Shutdown cancels the rest; their records go with their queues.
            drop(rt);
            let left: Vec<_> = task::waits::snapshot()
                .into_iter()
                .filter(|r| {
                    [writer, reader, sender]
                        .iter()
                        .any(|&id| r.waiter == Some(id))
                })
                .collect();
            assert!(
                left.is_empty(),
                "cancelled waiters still recorded: {left:?}"
            );
        },
    );
}

#[test]
fn a_notify_waiter_keeps_its_record_when_a_served_waiter_leaves_after_it() {
    watchdog("Notify waiters served, queued again and leaving", || {
        let rt = support::current_thread();
        let notify = Arc::new(runtime::sync::Notify::new());
        // What the dump shows (the record sits in the task's own slots).
        let on_notify = |id| {
            rt.dump().task(id).is_some_and(|t| {
                t.waits_on()
                    .iter()
                    .any(|w| matches!(w, runtime::dump::WaitsOn::Sync { kind: "Notify", .. }))
            })
        };
        let spawn_waiter = || {
            let n = notify.clone();
            rt.spawn(async move { n.notified().await }).id()
        };
        // A current-thread runtime runs its tasks only inside `block_on`, in the order
        // they were scheduled.
        let first = spawn_waiter();
        rt.block_on(runtime::task::yield_now());
        assert!(on_notify(first), "a queued waiter is recorded");
        let second = spawn_waiter();
        // Serves the first waiter (its node is freed) while its future still lives: no
        // longer shown as waiting.
        notify.notify_one();
        assert!(!on_notify(first), "a served waiter is still shown waiting");
        // The second waiter queues (on the node the first was served from), then the
        // first runs and leaves.
        rt.block_on(runtime::task::yield_now());
        assert!(
            rt.dump().task(first).is_none(),
            "the served waiter finished"
        );
        assert!(
            on_notify(second),
            "the first waiter's exit took the second one's record"
        );
        notify.notify_one();
        rt.block_on(runtime::task::yield_now());
        assert!(
            rt.dump().task(second).is_none() && !on_notify(second),
            "a finished waiter is still recorded"
        );
    });
}
