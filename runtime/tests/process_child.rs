//! `process`: real children through `sh -c` and `cat`: exit codes and signals, piped
//! streams both ways (a megabyte through `cat`), `output`/`status`/`wait_with_output`,
//! `kill`/`start_kill`/`kill_on_drop`, `try_wait`, `id`, the builder's settings reaching
//! the child, a pipe handed from one child to the next, a missing program, and spawning
//! outside a runtime. Both flavors; every wait bounded.
#![cfg(all(target_os = "linux", not(loom)))]

#[macro_use]
mod support;

use support::*;

use std::os::unix::process::ExitStatusExt;
use std::process::Stdio;

use runtime::io::{AsyncBufReadExt, AsyncReadExt, AsyncWriteExt, BufReader};
use runtime::process::Command;

/// True while `pid` exists as a process that is not a zombie.
fn state_of(pid: u32) -> Option<char> {
    let stat = std::fs::read_to_string(format!("/proc/{pid}/stat")).ok()?;
    // "pid (comm) S ...": the state follows the last ')'.
    stat.rsplit_once(')')?.1.trim_start().chars().next()
}

rt_test! {
    #[test]
    fn exit_codes_and_signals_come_back() {
        watchdog("sh's exit statuses", || {
            on(&rt(), || async {
                let ok = Command::new("sh").args(["-c", "exit 0"]).status().await.unwrap();
                assert!(ok.success());
                let seven = Command::new("sh").args(["-c", "exit 7"]).status().await.unwrap();
                assert_eq!(seven.code(), Some(7));
                let killed = Command::new("sh")
                    .args(["-c", "kill -TERM $$"])
                    .status()
                    .await
                    .unwrap();
                assert_eq!(killed.signal(), Some(libc::SIGTERM));
            });
        });
    }

    #[test]
    fn output_collects_both_streams_and_the_builder_reaches_the_child() {
        watchdog("sh's output", || {
            on(&rt(), || async {
                let dir = std::env::temp_dir();
                let out = Command::new("sh")
                    .args(["-c", "echo \"$GREETING $0\"; pwd; echo oops >&2; test -z \"$GONE\""])
                    .arg0("custom-argv0")
                    .env("GREETING", "hello")
                    .envs([("GONE", "x")])
                    .env_remove("GONE")
                    .current_dir(&dir)
                    .output()
                    .await
                    .unwrap();
                assert!(out.status.success(), "{out:?}");
                let stdout = String::from_utf8(out.stdout).unwrap();
                let mut lines = stdout.lines();
                assert_eq!(lines.next(), Some("hello custom-argv0"));
                assert_eq!(
                    std::path::Path::new(lines.next().unwrap()).canonicalize().unwrap(),
                    dir.canonicalize().unwrap()
                );
                assert_eq!(out.stderr, b"oops\n");
                // env_clear: nothing but what is set.
                let out = Command::new("/usr/bin/env")
                    .env_clear()
                    .env("ONLY", "1")
                    .output()
                    .await
                    .unwrap();
                assert_eq!(out.stdout, b"ONLY=1\n");
            });
        });
    }

    #[test]
    fn cat_echoes_a_megabyte_through_its_pipes() {
        watchdog("cat's echo", || {
            on(&rt(), || async {
                let mut child = Command::new("cat")
                    .stdin(Stdio::piped())
                    .stdout(Stdio::piped())
                    .spawn()
                    .unwrap();
                assert!(child.id().is_some());
                let mut stdin = child.stdin.take().unwrap();
                let mut stdout = child.stdout.take().unwrap();
                let data: Vec<u8> = (0..1u32 << 20).map(|i| (i % 251) as u8).collect();
                let sent = data.clone();
                let writer = runtime::spawn(async move {
                    stdin.write_all(&sent).await.unwrap();
                    // Dropped: cat sees EOF.
                });
                let mut got = Vec::new();
                within("cat's output", stdout.read_to_end(&mut got)).await.unwrap();
                within("the writer", writer).await.unwrap();
                assert!(got == data, "{} of {} bytes", got.len(), data.len());
                let status = within("cat's exit", child.wait()).await.unwrap();
                assert!(status.success());
                assert_eq!(child.id(), None, "no id once reaped");
                assert_eq!(child.try_wait().unwrap(), Some(status), "the status stays");
            });
        });
    }

    #[test]
    fn lines_stream_as_they_are_written() {
        watchdog("a line per answer", || {
            on(&rt(), || async {
                // The child answers each line only after the previous answer was read.
                let mut child = Command::new("sh")
                    .args(["-c", "while read l; do echo \"got $l\"; done"])
                    .stdin(Stdio::piped())
                    .stdout(Stdio::piped())
                    .spawn()
                    .unwrap();
                let mut stdin = child.stdin.take().unwrap();
                let mut lines = BufReader::new(child.stdout.take().unwrap()).lines();
                for i in 0..20 {
                    stdin.write_all(format!("{i}\n").as_bytes()).await.unwrap();
                    let line = within("an answer", lines.next_line()).await.unwrap();
                    assert_eq!(line, Some(format!("got {i}")));
                }
                drop(stdin);
                assert_eq!(within("EOF", lines.next_line()).await.unwrap(), None);
                assert!(within("exit", child.wait()).await.unwrap().success());
            });
        });
    }

    #[test]
    fn kill_and_try_wait() {
        watchdog("a killed child", || {
            on(&rt(), || async {
                let mut child = Command::new("sleep").arg("1000").spawn().unwrap();
                assert_eq!(child.try_wait().unwrap(), None, "still running");
                within("kill", child.kill()).await.unwrap();
                let status = child.try_wait().unwrap().expect("reaped by kill");
                assert_eq!(status.signal(), Some(libc::SIGKILL));
                // Once done, start_kill does nothing.
                child.start_kill().unwrap();
                let mut child = Command::new("sleep").arg("1000").spawn().unwrap();
                child.start_kill().unwrap();
                let status = within("the wait", child.wait()).await.unwrap();
                assert_eq!(status.signal(), Some(libc::SIGKILL));
            });
        });
    }

    #[test]
    fn kill_on_drop_kills_and_the_child_is_reaped() {
        watchdog("the killed child's reaping", || {
            on(&rt(), || async {
                let mut cmd = Command::new("sleep");
                cmd.arg("1000").kill_on_drop(true);
                assert!(cmd.get_kill_on_drop());
                let child = cmd.spawn().unwrap();
                let pid = child.id().unwrap();
                drop(child);
                within("the process to be gone (killed and reaped)", async {
                    while state_of(pid).is_some() {
                        runtime::time::sleep(std::time::Duration::from_millis(5)).await;
                    }
                })
                .await;
            });
        });
    }

    #[test]
    fn a_child_outliving_its_child_handle_is_reaped() {
        watchdog("the orphan's reaping", || {
            on(&rt(), || async {
                let mut child = Command::new("sh")
                    .args(["-c", "read x"])
                    .stdin(Stdio::piped())
                    .spawn()
                    .unwrap();
                let pid = child.id().unwrap();
                let stdin = child.stdin.take().unwrap();
                drop(child);
                // Still running: it waits for its input.
                assert!(matches!(state_of(pid), Some(s) if s != 'Z'), "{:?}", state_of(pid));
                drop(stdin);
                within("the orphan to exit and be reaped (no zombie)", async {
                    while state_of(pid).is_some() {
                        runtime::time::sleep(std::time::Duration::from_millis(5)).await;
                    }
                })
                .await;
            });
        });
    }

    #[test]
    fn a_pipe_goes_from_one_child_to_the_next() {
        watchdog("a two-child pipeline", || {
            on(&rt(), || async {
                let mut first = Command::new("sh")
                    .args(["-c", "echo piped through"])
                    .stdout(Stdio::piped())
                    .spawn()
                    .unwrap();
                let handoff: Stdio = first.stdout.take().unwrap().try_into().unwrap();
                let out = Command::new("tr")
                    .args(["a-z", "A-Z"])
                    .stdin(handoff)
                    .output()
                    .await
                    .unwrap();
                assert_eq!(out.stdout, b"PIPED THROUGH\n");
                assert!(within("first", first.wait()).await.unwrap().success());
                // into_owned_fd: blocking again, readable with std.
                let mut c = Command::new("sh")
                    .args(["-c", "echo fd"])
                    .stdout(Stdio::piped())
                    .spawn()
                    .unwrap();
                let fd = c.stdout.take().unwrap().into_owned_fd().unwrap();
                let mut s = String::new();
                std::io::Read::read_to_string(&mut std::fs::File::from(fd), &mut s).unwrap();
                assert_eq!(s, "fd\n");
                assert!(within("c", c.wait()).await.unwrap().success());
            });
        });
    }

    #[test]
    fn wait_with_output_and_std_conversions() {
        watchdog("wait_with_output", || {
            on(&rt(), || async {
                let mut std_cmd = std::process::Command::new("sh");
                std_cmd.args(["-c", "head -c 300000 /dev/zero; echo e >&2; exit 3"]);
                let mut cmd = Command::from(std_cmd);
                assert_eq!(cmd.as_std().get_program(), "sh");
                cmd.as_std_mut().stdout(Stdio::piped());
                let child = cmd.stderr(Stdio::piped()).spawn().unwrap();
                let out = within("the output", child.wait_with_output()).await.unwrap();
                assert_eq!(out.status.code(), Some(3));
                assert_eq!(out.stdout.len(), 300_000);
                assert!(out.stdout.iter().all(|&b| b == 0));
                assert_eq!(out.stderr, b"e\n");
                let std_back = cmd.into_std();
                assert_eq!(std_back.get_args().count(), 2);
            });
        });
    }

    #[test]
    fn a_missing_program_is_not_found() {
        watchdog("the spawn error", || {
            on(&rt(), || async {
                let err = Command::new("/nonexistent/program").spawn().unwrap_err();
                assert_eq!(err.kind(), std::io::ErrorKind::NotFound);
                let err = Command::new("/nonexistent/program").status().await.unwrap_err();
                assert_eq!(err.kind(), std::io::ErrorKind::NotFound);
            });
        });
    }

    #[test]
    fn uid_gid_process_group_and_pre_exec() {
        watchdog("the unix settings", || {
            on(&rt(), || async {
                // SAFETY: getuid/getgid have no preconditions.
                let (uid, gid) = unsafe { (libc::getuid(), libc::getgid()) };
                let mut cmd = Command::new("sh");
                cmd.args(["-c", "id -u; id -g; ps -o pgid= -p $$ 2>/dev/null || cut -d' ' -f5 /proc/$$/stat; echo $$; cat /proc/$$/comm"])
                    .uid(uid)
                    .gid(gid)
                    .process_group(0);
                // SAFETY: the closure only calls prctl, which is async-signal-safe.
                unsafe {
                    cmd.pre_exec(|| {
                        // Renames the process before exec; exec then resets comm to the
                        // program's name, so this proves only that the hook ran without
                        // error.
                        if libc::prctl(libc::PR_SET_NAME, c"pre-exec".as_ptr()) != 0 {
                            return Err(std::io::Error::last_os_error());
                        }
                        Ok(())
                    });
                }
                let out = cmd.output().await.unwrap();
                assert!(out.status.success(), "{out:?}");
                let s = String::from_utf8(out.stdout).unwrap();
                let l: Vec<&str> = s.lines().map(str::trim).collect();
                assert_eq!(l[0], uid.to_string());
                assert_eq!(l[1], gid.to_string());
                assert_eq!(l[2], l[3], "its own process group: {l:?}");
                // A failing pre_exec fails the spawn.
                let mut bad = Command::new("true");
                // SAFETY: the closure does nothing unsafe.
                unsafe {
                    bad.pre_exec(|| Err(std::io::Error::from_raw_os_error(libc::EACCES)));
                }
                let err = bad.spawn().unwrap_err();
                assert_eq!(err.raw_os_error(), Some(libc::EACCES));
            });
        });
    }
}

#[test]
#[should_panic(expected = "must be called from the context of a runtime")]
fn spawning_outside_a_runtime_panics_with_a_message() {
    let _ = Command::new("true").spawn();
}

/// As tokio's: a child spawned on one runtime, which then shuts down, is waited for on
/// another. The child runs until the test closes its stdin (a pipe the test holds), so
/// the wait surely begins while it runs, on a watch whose runtime is gone.
#[test]
fn a_child_is_waited_for_on_another_runtime() {
    use std::os::fd::{FromRawFd, OwnedFd};
    watchdog("the wait on the second runtime", || {
        for second in [current_thread(), multi_thread(2)] {
            let mut fds = [0; 2];
            // SAFETY: `fds` is a writable array of two ints, as pipe2 wants.
            assert_eq!(unsafe { libc::pipe2(fds.as_mut_ptr(), libc::O_CLOEXEC) }, 0);
            // SAFETY: two fresh descriptors just returned by the kernel, owned by nobody.
            let (rd, wr) = unsafe { (OwnedFd::from_raw_fd(fds[0]), OwnedFd::from_raw_fd(fds[1])) };
            let first = multi_thread(1);
            let mut child = first.block_on(async {
                Command::new("sh")
                    .args(["-c", "read line; exit 3"])
                    .stdin(Stdio::from(rd))
                    .spawn()
                    .unwrap()
            });
            drop(first);
            let status = second.block_on(async move {
                let wait = runtime::spawn(async move { child.wait().await });
                for _ in 0..3 {
                    runtime::task::yield_now().await;
                }
                drop(wr); // EOF: `read` returns, the shell exits.
                within("the child's exit", wait).await.unwrap()
            });
            assert_eq!(status.unwrap().code(), Some(3));
        }
    })
}
