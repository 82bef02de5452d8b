//! No zombies: 1,000 concurrent short children, half of them awaited and half dropped
//! unawaited, leave the process with no child at all (`waitid(P_ALL, WNOWAIT)` says
//! `ECHILD`, and never names an exited child that nobody reaps); a child orphaned while
//! its runtime shuts down is reaped by a later spawn. These tests look at every child of
//! the process, so they run one at a time (a file of their own, a lock).
#![cfg(all(target_os = "linux", not(loom)))]

#[macro_use]
mod support;

use support::*;

use std::process::Stdio;
use std::sync::Mutex;
use std::time::Duration;

use runtime::process::Command;

static ONE_AT_A_TIME: Mutex<()> = Mutex::new(());

/// What `waitid` says about this process's children, reaping none.
#[derive(Debug, PartialEq)]
enum Children {
    /// No child at all.
    None,
    /// Children, none exited.
    Running,
    /// An exited child nobody has reaped yet (a zombie), by pid.
    Zombie(i32),
}

fn children() -> Children {
    // SAFETY: a zeroed siginfo_t is a valid out-buffer for waitid.
    let mut info: libc::siginfo_t = unsafe { std::mem::zeroed() };
    // SAFETY: `info` is a live siginfo_t; WNOWAIT leaves any child as it is.
    let ret = unsafe {
        libc::waitid(
            libc::P_ALL,
            0,
            &mut info,
            libc::WEXITED | libc::WNOHANG | libc::WNOWAIT,
        )
    };
    if ret < 0 {
        let err = std::io::Error::last_os_error();
        assert_eq!(err.raw_os_error(), Some(libc::ECHILD), "{err}");
        return Children::None;
    }
    // SAFETY: waitid filled `info` (si_pid is 0 when no child had exited).
    match unsafe { info.si_pid() } {
        0 => Children::Running,
        pid => Children::Zombie(pid),
    }
}

/// Waits until the process has no child left; a zombie that stays is reported by pid.
async fn until_no_children(what: &str) {
    let mut last = children();
    let res = runtime::time::timeout(Duration::from_secs(50), async {
        loop {
            last = children();
            if last == Children::None {
                return;
            }
            runtime::time::sleep(Duration::from_millis(5)).await;
        }
    })
    .await;
    assert!(res.is_ok(), "{what}: children left after 50 s: {last:?}");
}

rt_test! {
    #[test]
    fn a_thousand_concurrent_children_leave_no_zombie() {
        let _one = ONE_AT_A_TIME.lock().unwrap_or_else(|p| p.into_inner());
        watchdog("1,000 children and their reaping", || {
            let rt = rt();
            rt.block_on(async {
                assert_eq!(children(), Children::None, "a clean start");
                let mut set = runtime::task::JoinSet::new();
                for i in 0..1000 {
                    set.spawn(async move {
                        if i % 2 == 0 {
                            let status = Command::new("true").status().await.unwrap();
                            assert!(status.success());
                        } else {
                            // Dropped at once: orphaned, to be reaped when it exits.
                            let child = Command::new("sh")
                                .args(["-c", "exit 3"])
                                .stdout(Stdio::null())
                                .spawn()
                                .unwrap();
                            drop(child);
                        }
                    });
                }
                let all = runtime::time::timeout(Duration::from_secs(50), async {
                    while let Some(res) = set.join_next().await {
                        res.unwrap();
                    }
                })
                .await;
                assert!(all.is_ok(), "1,000 spawns and waits did not finish in 50 s");
                until_no_children("after 1,000 children").await;
            });
        });
    }

    #[test]
    fn a_child_orphaned_by_a_runtime_shutdown_is_reaped_later() {
        let _one = ONE_AT_A_TIME.lock().unwrap_or_else(|p| p.into_inner());
        watchdog("the orphan of a dead runtime", || {
            let rt = rt();
            let (pid, stdin) = rt.block_on(async {
                let mut child = Command::new("sh")
                    .args(["-c", "read x"])
                    .stdin(Stdio::piped())
                    .spawn()
                    .unwrap();
                let stdin = child.stdin.take().unwrap().into_owned_fd().unwrap();
                (child.id().unwrap(), (child, stdin))
            });
            let (child, stdin) = stdin;
            // Dropped in the runtime's context as it shuts down: its reaper task is cancelled.
            rt.spawn(async move {
                drop(child);
            });
            drop(rt);
            // The child exits now, with nobody watching it.
            drop(stdin);
            let rt = super::current_thread();
            rt.block_on(async {
                let res = runtime::time::timeout(Duration::from_secs(50), async {
                    loop {
                        // Each spawn and each collected exit sweeps the orphans.
                        Command::new("true").status().await.unwrap();
                        if std::fs::metadata(format!("/proc/{pid}")).is_err() {
                            return;
                        }
                        runtime::time::sleep(Duration::from_millis(5)).await;
                    }
                })
                .await;
                assert!(res.is_ok(), "child {pid} was never reaped");
                until_no_children("after the orphan").await;
            });
        });
    }
}
