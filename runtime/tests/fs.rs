//! `runtime::fs` on both flavors: the whole-file helpers, directories, links, metadata,
//! `read_dir`, and `File` through tokio's and futures-io's traits (reads, buffered writes
//! surfaced at flush, seeks mixing with read-ahead, `set_len`, `sync_*`, std round trips).
#![cfg(all(unix, not(loom)))]

#[macro_use]
mod support;

use support::*;

use std::io::SeekFrom;
use std::path::{Path, PathBuf};

use runtime::fs::{self, File, OpenOptions};
use runtime::io::{AsyncRead, AsyncReadExt, AsyncSeekExt, AsyncWriteExt, ReadBuf};
use runtime::time::timeout;
use runtime::Runtime;

/// A fresh directory for one test run; removed by the test (left behind on failure).
fn scratch(tag: &str) -> PathBuf {
    use std::sync::atomic::{AtomicUsize, Ordering};
    static N: AtomicUsize = AtomicUsize::new(0);
    let dir = std::env::temp_dir().join(format!(
        "runtime-fs-{tag}-{}-{}",
        std::process::id(),
        N.fetch_add(1, Ordering::Relaxed)
    ));
    std::fs::create_dir_all(&dir).unwrap();
    dir
}

/// Runs the test body as a task on `rt` in a fresh directory, failing after `GENEROUS`.
fn in_scratch<F, Fut>(rt: &Runtime, tag: &str, f: F)
where
    F: FnOnce(PathBuf) -> Fut,
    Fut: std::future::Future<Output = ()> + Send + 'static,
{
    let dir = scratch(tag);
    let fut = f(dir.clone());
    rt.block_on(async move {
        timeout(GENEROUS, runtime::spawn(fut))
            .await
            .expect("test timed out")
            .expect("test task panicked");
    });
    std::fs::remove_dir_all(&dir).unwrap();
}

rt_test! {
    #[test]
    fn whole_file_helpers() {
        watchdog("the whole-file helpers' blocking-pool jobs", || {
            in_scratch(&rt(), "whole", |dir| async move {
                let p = dir.join("a.txt");
                fs::write(&p, "héllo").await.unwrap();
                assert_eq!(fs::read(&p).await.unwrap(), "héllo".as_bytes());
                assert_eq!(fs::read_to_string(&p).await.unwrap(), "héllo");
                fs::write(&p, [0xff, 0xfe]).await.unwrap();
                let err = fs::read_to_string(&p).await.unwrap_err();
                assert_eq!(err.kind(), std::io::ErrorKind::InvalidData);
                let missing = fs::read(dir.join("missing")).await.unwrap_err();
                assert_eq!(missing.kind(), std::io::ErrorKind::NotFound);
            });
        })
    }

    #[test]
    fn directories_links_and_metadata() {
        watchdog("the directory and metadata jobs", || {
            in_scratch(&rt(), "dirs", |dir| async move {
                let deep = dir.join("x/y/z");
                assert!(fs::create_dir(&deep).await.is_err(), "parents missing");
                fs::create_dir_all(&deep).await.unwrap();
                fs::create_dir_all(&deep).await.unwrap(); // idempotent
                assert!(fs::metadata(&deep).await.unwrap().is_dir());
                fs::DirBuilder::new()
                    .recursive(true)
                    .mode(0o700)
                    .create(dir.join("built/inner"))
                    .await
                    .unwrap();
                {
                    use std::os::unix::fs::PermissionsExt;
                    let m = fs::metadata(dir.join("built/inner")).await.unwrap();
                    assert_eq!(m.permissions().mode() & 0o777, 0o700);
                }
                assert!(fs::DirBuilder::new()
                    .create(dir.join("built/inner"))
                    .await
                    .is_err());
                fs::create_dir(dir.join("solo")).await.unwrap();
                fs::remove_dir(dir.join("solo")).await.unwrap();
                assert!(!fs::try_exists(dir.join("solo")).await.unwrap());

                let f = deep.join("f.txt");
                fs::write(&f, "12345").await.unwrap();
                assert_eq!(fs::metadata(&f).await.unwrap().len(), 5);
                assert!(fs::remove_dir(dir.join("x")).await.is_err(), "not empty");

                // copy, rename, hard_link
                assert_eq!(fs::copy(&f, dir.join("copy.txt")).await.unwrap(), 5);
                fs::rename(dir.join("copy.txt"), dir.join("moved.txt"))
                    .await
                    .unwrap();
                assert!(!fs::try_exists(dir.join("copy.txt")).await.unwrap());
                assert_eq!(
                    fs::read_to_string(dir.join("moved.txt")).await.unwrap(),
                    "12345"
                );
                fs::hard_link(dir.join("moved.txt"), dir.join("hard.txt"))
                    .await
                    .unwrap();
                {
                    use std::os::unix::fs::MetadataExt;
                    assert_eq!(fs::metadata(dir.join("hard.txt")).await.unwrap().nlink(), 2);
                }

                // symlinks: metadata follows, symlink_metadata does not; canonicalize resolves.
                fs::symlink(&f, dir.join("link")).await.unwrap();
                assert!(fs::metadata(dir.join("link")).await.unwrap().is_file());
                let lm = fs::symlink_metadata(dir.join("link")).await.unwrap();
                assert!(lm.file_type().is_symlink());
                assert_eq!(fs::read_link(dir.join("link")).await.unwrap(), f);
                let canon = fs::canonicalize(dir.join("x/y/../y/z/f.txt"))
                    .await
                    .unwrap();
                assert_eq!(canon, std::fs::canonicalize(&f).unwrap());
                // A broken link does not "exist".
                fs::symlink(dir.join("nowhere"), dir.join("broken"))
                    .await
                    .unwrap();
                assert!(!fs::try_exists(dir.join("broken")).await.unwrap());
                assert!(fs::try_exists(dir.join("link")).await.unwrap());

                fs::remove_file(dir.join("link")).await.unwrap();
                fs::remove_dir_all(dir.join("x")).await.unwrap();
                assert!(!fs::try_exists(dir.join("x")).await.unwrap());
                assert_eq!(
                    fs::remove_file(dir.join("x")).await.unwrap_err().kind(),
                    std::io::ErrorKind::NotFound
                );
            });
        })
    }

    #[test]
    fn read_dir_lists_every_entry_across_batches() {
        watchdog("the read_dir batches", || {
            in_scratch(&rt(), "readdir", |dir| async move {
                // More than one batch (32) of entries.
                for i in 0..75 {
                    fs::write(dir.join(format!("f{i:03}")), [i as u8])
                        .await
                        .unwrap();
                }
                fs::create_dir(dir.join("sub")).await.unwrap();
                let mut rd = fs::read_dir(&dir).await.unwrap();
                let mut names = Vec::new();
                while let Some(e) = rd.next_entry().await.unwrap() {
                    let name = e.file_name().into_string().unwrap();
                    assert_eq!(e.path(), dir.join(&name));
                    let ft = e.file_type().await.unwrap();
                    assert_eq!(ft.is_dir(), name == "sub");
                    if name != "sub" {
                        assert_eq!(e.metadata().await.unwrap().len(), 1);
                    }
                    assert_ne!(e.ino(), 0);
                    names.push(name);
                }
                // The end is sticky.
                assert!(rd.next_entry().await.unwrap().is_none());
                names.sort();
                let mut want: Vec<String> = (0..75).map(|i| format!("f{i:03}")).collect();
                want.push("sub".into());
                assert_eq!(names, want);
                // As a Stream too.
                use futures::StreamExt;
                let n = fs::read_dir(&dir).await.unwrap().count().await;
                assert_eq!(n, 76);
                assert!(fs::read_dir(dir.join("missing")).await.is_err());
            });
        })
    }

    #[test]
    fn file_write_then_read_back_large() {
        watchdog("the large write and read-back", || {
            in_scratch(&rt(), "large", |dir| async move {
                let p = dir.join("big.bin");
                let data: Vec<u8> = (0..5_000_000u32).map(|i| (i % 251) as u8).collect();
                let mut f = File::create(&p).await.unwrap();
                // Several chunks, some larger than the 2 MiB per-call bound.
                for chunk in data.chunks(3_000_000) {
                    f.write_all(chunk).await.unwrap();
                }
                f.flush().await.unwrap();
                f.sync_all().await.unwrap();
                assert_eq!(f.metadata().await.unwrap().len(), data.len() as u64);
                drop(f);
                let mut f = File::open(&p).await.unwrap();
                let mut back = Vec::new();
                f.read_to_end(&mut back).await.unwrap();
                assert!(back == data, "read back differs");
                // A small max_buf_size still makes progress.
                let mut f = File::open(&p).await.unwrap();
                f.set_max_buf_size(7);
                let mut head = [0u8; 20];
                f.read_exact(&mut head).await.unwrap();
                assert_eq!(&head[..], &data[..20]);
            });
        })
    }

    #[test]
    fn file_seeks_mix_with_read_ahead_and_writes() {
        watchdog("the seeks, reads and writes", || {
            in_scratch(&rt(), "seek", |dir| async move {
                let p = dir.join("s.txt");
                fs::write(&p, "0123456789").await.unwrap();
                let mut f = OpenOptions::new()
                    .read(true)
                    .write(true)
                    .open(&p)
                    .await
                    .unwrap();
                start_read_from_zero(&mut f).await;
                let mut two = [0u8; 2];
                f.read_exact(&mut two).await.unwrap(); // 2 handed out, up to 8 read ahead
                assert_eq!(&two, b"01");
                // A write after a read lands at the caller's position (2), not at the OS
                // cursor's (past the bytes read ahead).
                f.write_all(b"ab").await.unwrap();
                f.flush().await.unwrap();
                assert_eq!(f.stream_position().await.unwrap(), 4);
                f.read_exact(&mut two).await.unwrap();
                assert_eq!(&two, b"45");
                // Read ahead again, then a relative seek counts from the caller's position.
                start_read_from_zero(&mut f).await;
                f.read_exact(&mut two[..1]).await.unwrap();
                assert_eq!(f.seek(SeekFrom::Current(1)).await.unwrap(), 2);
                assert_eq!(f.seek(SeekFrom::End(-1)).await.unwrap(), 9);
                f.read_exact(&mut two[..1]).await.unwrap();
                assert_eq!(two[0], b'9');
                f.seek(SeekFrom::Start(0)).await.unwrap();
                let mut all = String::new();
                f.read_to_string(&mut all).await.unwrap();
                assert_eq!(all, "01ab456789");
                // set_len truncates and keeps the position; sync_data after.
                f.seek(SeekFrom::Start(3)).await.unwrap();
                f.set_len(5).await.unwrap();
                f.sync_data().await.unwrap();
                let mut rest = Vec::new();
                f.read_to_end(&mut rest).await.unwrap();
                assert_eq!(rest, b"b4");
                assert_eq!(fs::read(&p).await.unwrap(), b"01ab4");
                // A seek before the start is an error.
                assert!(f.seek(SeekFrom::Current(-100)).await.is_err());
            });
        })
    }

    #[test]
    fn file_futures_io_traits() {
        watchdog("the futures-io reads and writes", || {
            in_scratch(&rt(), "futures", |dir| async move {
                let p = dir.join("f.txt");
                let mut f = File::create(&p).await.unwrap();
                futures::io::AsyncWriteExt::write_all(&mut f, b"futures world")
                    .await
                    .unwrap();
                futures::io::AsyncWriteExt::close(&mut f).await.unwrap();
                let mut f = File::open(&p).await.unwrap();
                futures::io::AsyncSeekExt::seek(&mut f, SeekFrom::Start(8))
                    .await
                    .unwrap();
                let mut s = String::new();
                futures::io::AsyncReadExt::read_to_string(&mut f, &mut s)
                    .await
                    .unwrap();
                assert_eq!(s, "world");
                let pos = futures::io::AsyncSeekExt::seek(&mut f, SeekFrom::Current(-5))
                    .await
                    .unwrap();
                assert_eq!(pos, 8);
                let mut buf = [0u8; 5];
                futures::io::AsyncReadExt::read_exact(&mut f, &mut buf)
                    .await
                    .unwrap();
                assert_eq!(&buf, b"world");
            });
        })
    }

    #[test]
    fn background_write_errors_surface_at_flush() {
        watchdog("the flush that reports the write error", || {
            in_scratch(&rt(), "errors", |_dir| async move {
                // /dev/full accepts the open, fails every write with ENOSPC.
                if !Path::new("/dev/full").exists() {
                    return;
                }
                let mut f = OpenOptions::new()
                    .write(true)
                    .open("/dev/full")
                    .await
                    .unwrap();
                // Accepted at once: the write runs on the pool.
                assert_eq!(f.write(b"x").await.unwrap(), 1);
                let err = f.flush().await.unwrap_err();
                assert_eq!(err.raw_os_error(), Some(libc::ENOSPC), "{err}");
                // Once reported, the error is gone.
                f.flush().await.unwrap();
                // The next write reports a failure left behind by the previous one.
                f.write_all(b"y").await.unwrap();
                assert!(f.write_all(b"z").await.is_err());
            });
        })
    }

    #[test]
    fn open_options_and_std_round_trips() {
        watchdog("the open and std round trips", || {
            in_scratch(&rt(), "opts", |dir| async move {
                let p = dir.join("o.txt");
                assert_eq!(
                    File::open(&p).await.unwrap_err().kind(),
                    std::io::ErrorKind::NotFound
                );
                let mut f = File::create_new(&p).await.unwrap();
                assert_eq!(
                    File::create_new(&p).await.unwrap_err().kind(),
                    std::io::ErrorKind::AlreadyExists
                );
                f.write_all(b"one\n").await.unwrap();
                f.flush().await.unwrap();
                let mut log = File::options().append(true).open(&p).await.unwrap();
                log.write_all(b"two\n").await.unwrap();
                log.flush().await.unwrap();
                assert_eq!(fs::read_to_string(&p).await.unwrap(), "one\ntwo\n");

                let mode_file = dir.join("mode.txt");
                let g = OpenOptions::new()
                    .write(true)
                    .create(true)
                    .mode(0o600)
                    .open(&mode_file)
                    .await
                    .unwrap();
                {
                    use std::os::unix::fs::PermissionsExt;
                    let perm = g.metadata().await.unwrap().permissions();
                    assert_eq!(perm.mode() & 0o777, 0o600);
                    g.set_permissions(std::fs::Permissions::from_mode(0o640))
                        .await
                        .unwrap();
                    let perm = fs::metadata(&mode_file).await.unwrap().permissions();
                    assert_eq!(perm.mode() & 0o777, 0o640);
                    fs::set_permissions(&mode_file, std::fs::Permissions::from_mode(0o600))
                        .await
                        .unwrap();
                }

                // try_clone shares the position; into_std / from_std keep the file.
                let mut a = File::open(&p).await.unwrap();
                let mut b = a.try_clone().await.unwrap();
                let mut four = [0u8; 4];
                a.read_exact(&mut four).await.unwrap();
                assert_eq!(&four, b"one\n");
                let mut rest = Vec::new();
                b.read_to_end(&mut rest).await.unwrap();
                assert_eq!(rest, b"two\n", "the clone shares the (advanced) cursor");
                let std = a.into_std().await;
                let c = File::from_std(std);
                assert_eq!(c.metadata().await.unwrap().len(), 8);
                let c = c.try_into_std().expect("nothing in flight");
                assert_eq!(c.metadata().unwrap().len(), 8);
            });
        })
    }

    #[test]
    fn concurrent_self_ops_are_serialized() {
        watchdog("the concurrent operations on one file", || {
            in_scratch(&rt(), "concurrent", |dir| async move {
                let p = dir.join("c.txt");
                let mut f = File::create(&p).await.unwrap();
                f.write_all(&[7u8; 4096]).await.unwrap(); // in flight while the &self ops start
                let f = std::sync::Arc::new(f);
                let mut tasks = Vec::new();
                for i in 0..8u64 {
                    let f = f.clone();
                    tasks.push(runtime::spawn(async move {
                        if i % 2 == 0 {
                            f.sync_all().await.unwrap();
                        } else {
                            f.set_len(4096 + i).await.unwrap();
                        }
                    }));
                }
                for t in tasks {
                    t.await.unwrap();
                }
                let len = fs::metadata(&p).await.unwrap().len();
                assert!(len > 4096 && len <= 4096 + 7, "{len}");
            });
        })
    }
}

/// Seeks `f` to 0 and leaves a 64-byte read in flight, abandoned (as a cancelled `read`
/// would): its bytes wait in the file's buffer for the next, smaller read. The blocking
/// pool may finish the read before our first poll returns; then we try again.
async fn start_read_from_zero(f: &mut File) {
    for _ in 0..1000 {
        f.seek(SeekFrom::Start(0)).await.unwrap();
        let mut big = [0u8; 64];
        let first = futures::poll!(std::future::poll_fn(|cx| {
            let mut rb = ReadBuf::new(&mut big);
            std::pin::Pin::new(&mut *f).poll_read(cx, &mut rb)
        }));
        if first.is_pending() {
            return;
        }
    }
    panic!("never caught a blocking read in flight");
}

#[test]
#[should_panic(expected = "outside of a runtime")]
fn fs_outside_a_runtime_panics_with_a_message() {
    let _ = futures::executor::block_on(fs::read("/dev/null"));
}

/// As tokio's: a vectored write on a `File` takes what fits of every buffer (up to the
/// file's buffer size), not only the first, on both trait families.
#[test]
fn file_write_vectored_takes_every_buffer() {
    use runtime::io::AsyncWrite;
    use std::io::IoSlice;
    watchdog("the vectored file writes", || {
        in_scratch(&current_thread(), "vectored", |dir| async move {
            let p = dir.join("v.txt");
            let mut f = File::create(&p).await.unwrap();
            assert!(f.is_write_vectored());
            let n = f
                .write_vectored(&[IoSlice::new(b"hello "), IoSlice::new(b"world")])
                .await
                .unwrap();
            assert_eq!(n, 11);
            f.flush().await.unwrap();
            assert_eq!(std::fs::read(&p).unwrap(), b"hello world");

            // Bounded by the buffer size, split over the buffers in order.
            let mut f = File::create(&p).await.unwrap();
            f.set_max_buf_size(3);
            let n = f
                .write_vectored(&[IoSlice::new(b"a"), IoSlice::new(b"bcde")])
                .await
                .unwrap();
            assert_eq!(n, 3);
            let n = futures::io::AsyncWriteExt::write_vectored(
                &mut f,
                &[IoSlice::new(b""), IoSlice::new(b"xy")],
            )
            .await
            .unwrap();
            assert_eq!(n, 2);
            f.shutdown().await.unwrap();
            assert_eq!(std::fs::read(&p).unwrap(), b"abcxy");
        });
    })
}

/// As tokio's: a clone keeps the buffer size of the file it was cloned from, and writes
/// through the clone reach the file.
#[test]
fn try_clone_keeps_max_buf_size() {
    watchdog("the cloned file", || {
        in_scratch(&current_thread(), "clone", |dir| async move {
            let p = dir.join("c.txt");
            let mut f = File::create(&p).await.unwrap();
            f.set_max_buf_size(7);
            let mut clone = f.try_clone().await.unwrap();
            assert_eq!(clone.max_buf_size(), 7);
            clone.write_all(b"hello").await.unwrap();
            clone.flush().await.unwrap();
            assert_eq!(std::fs::read(&p).unwrap(), b"hello");
        });
    })
}

#[test]
#[should_panic(expected = "`max_buf_size` must be greater than 0")]
fn set_max_buf_size_zero_panics_with_tokios_text() {
    current_thread().block_on(async {
        let mut f = File::open("Cargo.toml").await.unwrap();
        f.set_max_buf_size(0);
    });
}

/// tokio's `File::set_times` / `set_modified` and `fs::FileTimes`: the timestamps set are
/// applied (after a write still in flight), the unset ones kept.
#[test]
fn set_times_and_set_modified() {
    use std::time::{Duration, SystemTime};
    watchdog("the file times", || {
        in_scratch(&current_thread(), "times", |dir| async move {
            let p = dir.join("t.txt");
            let mut f = File::create(&p).await.unwrap();
            // A buffered write still in flight: set_times runs after it.
            f.write_all(b"data").await.unwrap();
            let modified = SystemTime::UNIX_EPOCH + Duration::from_secs(1_000_000);
            let accessed = SystemTime::UNIX_EPOCH + Duration::from_secs(2_000_000);
            f.set_times(
                fs::FileTimes::new()
                    .set_modified(modified)
                    .set_accessed(accessed),
            )
            .await
            .unwrap();
            let meta = std::fs::metadata(&p).unwrap();
            assert_eq!(meta.modified().unwrap(), modified);
            assert_eq!(meta.accessed().unwrap(), accessed);
            assert_eq!(meta.len(), 4);

            let later = modified + Duration::from_secs(60);
            f.set_modified(later).await.unwrap();
            let meta = std::fs::metadata(&p).unwrap();
            assert_eq!(meta.modified().unwrap(), later);
            assert_eq!(
                meta.accessed().unwrap(),
                accessed,
                "set_modified kept atime"
            );
        });
    })
}

/// As tokio's: a `File` operation whose blocking task fails (here cancelled: the runtime's
/// pool is shut down) returns an error and leaves the `File` usable, so the next operation
/// fails the same way instead of polling the finished `JoinHandle` again.
#[test]
fn file_ops_survive_a_join_error() {
    use futures::FutureExt;
    use std::future::Future;
    fn once<F: Future>(f: F) -> Option<F::Output> {
        Box::pin(f).now_or_never()
    }
    let dir = scratch("join-error");
    let path = dir.join("f");
    std::fs::write(&path, vec![b'x'; 4096]).unwrap();
    let rt = multi_thread(1);
    let handle = rt.handle().clone();
    rt.shutdown_timeout(std::time::Duration::ZERO);
    let _enter = handle.enter();
    let open = || {
        let std = std::fs::File::options()
            .read(true)
            .write(true)
            .open(&path)
            .unwrap();
        File::from_std(std)
    };
    let mut f = open();
    for _ in 0..2 {
        assert!(once(f.read(&mut [0u8; 8])).unwrap().is_err());
    }
    let mut f = open();
    for _ in 0..2 {
        assert!(once(f.seek(SeekFrom::Start(0))).unwrap().is_err());
    }
    let f2 = open();
    for _ in 0..2 {
        assert!(once(f2.set_len(0)).unwrap().is_err());
    }
    let mut f = open();
    // The write is accepted (it runs in the background); its failure shows next.
    let _ = once(f.write(b"z"));
    assert!(once(f.write(b"z")).unwrap().is_err());
    assert!(once(f.flush()).is_some());
    let mut f = open();
    assert!(once(f.read(&mut [0u8; 8])).unwrap().is_err());
    assert!(
        once(f.flush()).unwrap().is_ok(),
        "nothing in flight after the error"
    );
    drop(_enter);
    std::fs::remove_dir_all(&dir).unwrap();
}
