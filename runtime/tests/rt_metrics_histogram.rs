//! The per-worker poll-time and schedule-latency histograms of `RuntimeMetrics`: the
//! bucket layouts the builder configures, that sampled polls and waits land in buckets
//! consistent with what the tasks did (a busy poll above an empty one, a wait behind a
//! busy poll at least that poll's length), that the counts sum to what was sampled, that
//! only waits of tasks a sampled poll queued on its worker are measured, and that a
//! disabled histogram records nothing and says so. No timing thresholds: every
//! bound compares the histograms with each other or with durations the test measured.
#![cfg(not(loom))]

#[macro_use]
mod support;

use support::*;

use std::time::{Duration, Instant};

use runtime::{Builder, HistogramConfiguration, LogHistogram, Runtime, RuntimeMetrics};

/// Runs `iters` rounds of work the optimizer cannot remove.
fn spin(iters: u64) -> u64 {
    let mut x = 0u64;
    for i in 0..iters {
        x = std::hint::black_box(x.wrapping_mul(31) ^ i);
    }
    x
}

/// Busy rounds per busy poll: a millisecond or more on any machine these tests run on;
/// the assertions below hold for any length, only the histogram's separation needs the
/// busy polls to be longer than empty ones.
const BUSY: u64 = 2_000_000;

/// Every worker's poll-time counts, summed per bucket.
fn poll_times(m: &RuntimeMetrics) -> Vec<u64> {
    (0..m.poll_time_histogram_num_buckets())
        .map(|b| {
            (0..m.num_workers())
                .map(|w| m.poll_time_histogram_bucket_count(w, b))
                .sum()
        })
        .collect()
}

/// Every worker's schedule-latency counts, summed per bucket.
fn latencies(m: &RuntimeMetrics) -> Vec<u64> {
    (0..m.schedule_latency_histogram_num_buckets())
        .map(|b| {
            (0..m.num_workers())
                .map(|w| m.schedule_latency_histogram_bucket_count(w, b))
                .sum()
        })
        .collect()
}

fn diff(after: &[u64], before: &[u64]) -> Vec<u64> {
    after.iter().zip(before).map(|(a, b)| a - b).collect()
}

/// The bucket holding the median of `counts` (which must not be all zero).
fn median_bucket(counts: &[u64]) -> usize {
    let total: u64 = counts.iter().sum();
    assert!(total > 0, "no samples to take a median of");
    let mut seen = 0;
    for (b, c) in counts.iter().enumerate() {
        seen += c;
        if 2 * seen >= total {
            return b;
        }
    }
    unreachable!()
}

fn total_polls(m: &RuntimeMetrics) -> u64 {
    (0..m.num_workers()).map(|w| m.worker_poll_count(w)).sum()
}

/// Both flavors, sampling every poll.
fn every_event(multi: Option<usize>) -> Runtime {
    every_event_with(multi, |_| {})
}

/// As `every_event`, with `more` applied to the builder.
fn every_event_with(multi: Option<usize>, more: impl FnOnce(&mut Builder)) -> Runtime {
    let mut b = match multi {
        None => Builder::new_current_thread(),
        Some(n) => {
            let mut b = Builder::new_multi_thread();
            b.worker_threads(n);
            b
        }
    };
    b.enable_all().metrics_histogram_sample_interval(1);
    more(&mut b);
    b.build().unwrap()
}

rt_test! {
    flavors {
        current_thread => every_event(None);
        multi_thread_1 => every_event(Some(1));
        multi_thread_2 => every_event(Some(2));
    }

    #[test]
    fn busy_polls_land_above_empty_ones_and_counts_sum_to_the_polls() {
        watchdog("the busy and empty tasks", || {
            let rt = rt();
            let m = rt.metrics();
            assert!(m.poll_time_histogram_enabled());
            assert_eq!(m.histogram_sample_interval(), 1);
            const TASKS: usize = 40;
            let before = poll_times(&m);
            rt.block_on(async {
                for _ in 0..TASKS {
                    runtime::spawn(async {}).await.unwrap();
                }
            });
            // A worker records a poll's time after the poll returned, which may be after
            // the join woke `block_on`: wait for the last one.
            let sampled = |before: &[u64]| diff(&poll_times(&m), before).iter().sum::<u64>();
            eventually("the empty polls' samples", || sampled(&before) >= TASKS as u64);
            let empty = diff(&poll_times(&m), &before);
            let before = poll_times(&m);
            let started = Instant::now();
            rt.block_on(async {
                for _ in 0..TASKS {
                    runtime::spawn(async { spin(BUSY) }).await.unwrap();
                }
            });
            eventually("the busy polls' samples", || sampled(&before) >= TASKS as u64);
            let phase = started.elapsed();
            let busy = diff(&poll_times(&m), &before);
            // One sample per poll (interval 1): each task polled once, to completion.
            assert_eq!(empty.iter().sum::<u64>(), TASKS as u64, "{FLAVOR}: {empty:?}");
            assert_eq!(busy.iter().sum::<u64>(), TASKS as u64, "{FLAVOR}: {busy:?}");
            let (e, b) = (median_bucket(&empty), median_bucket(&busy));
            assert!(
                b > e,
                "{FLAVOR}: busy polls' median bucket {b} ({:?}) not above empty polls' {e} ({:?})",
                m.poll_time_histogram_bucket_range(b),
                m.poll_time_histogram_bucket_range(e),
            );
            // No poll lasted longer than the whole phase that ran it.
            let top = busy.iter().rposition(|&c| c > 0).unwrap();
            assert!(
                m.poll_time_histogram_bucket_range(top).start <= phase,
                "{FLAVOR}: a poll in bucket {top} ({:?}) outlasted its phase ({phase:?})",
                m.poll_time_histogram_bucket_range(top),
            );
            // Every poll of a task was timed, and nothing else was.
            drop(rt);
            assert_eq!(poll_times(&m).iter().sum::<u64>(), total_polls(&m), "{FLAVOR}");
        });
    }

    #[test]
    fn schedule_latency_counts_move_under_a_queue_of_local_tasks() {
        watchdog("a queue of 500 tasks", || {
            let rt = rt();
            let m = rt.metrics();
            assert!(m.schedule_latency_histogram_enabled());
            let before = latencies(&m);
            rt.block_on(async {
                // Spawned from a task: on a worker's own queues (from `block_on` on the
                // multi-thread flavor they would arrive through the global queue).
                runtime::spawn(async {
                    let handles: Vec<_> = (0..500)
                        .map(|i| runtime::spawn(async move { spin(1_000) ^ i }))
                        .collect();
                    for h in handles {
                        h.await.unwrap();
                    }
                })
                .await
                .unwrap();
            });
            let moved = diff(&latencies(&m), &before).iter().sum::<u64>();
            assert!(moved > 0, "{FLAVOR}: no schedule latency sampled");
            // At most one sample per local schedule (spawns and wakes on the workers):
            // one mark at a time, each of a task a poll queued.
            drop(rt);
            let schedules: u64 = (0..m.num_workers())
                .map(|w| m.worker_local_schedule_count(w))
                .sum();
            assert!(
                moved <= schedules,
                "{FLAVOR}: {moved} latency samples for {schedules} local schedules"
            );
        });
    }

    #[test]
    fn remote_spawns_are_not_in_the_schedule_latency_histogram() {
        watchdog("200 tasks spawned from outside", || {
            let rt = rt();
            let m = rt.metrics();
            let before = latencies(&m);
            // From the test thread, outside `block_on`: every spawn takes the global queue.
            let handles: Vec<_> = (0..200).map(|i| rt.spawn(async move { i })).collect();
            rt.block_on(async {
                for h in handles {
                    h.await.unwrap();
                }
            });
            // Every poll was sampled (a poll's time is recorded after it returns: the
            // workers are joined first), but none queued a task on a worker (the tasks
            // only wake `block_on`, which is no task): nothing was marked.
            drop(rt);
            assert_eq!(poll_times(&m).iter().sum::<u64>(), total_polls(&m), "{FLAVOR}");
            let moved = diff(&latencies(&m), &before).iter().sum::<u64>();
            assert_eq!(moved, 0, "{FLAVOR}: {moved} waits of remote spawns sampled");
        });
    }
}

/// One task spawns a busy task and then a child, queued behind it (one worker, no LIFO
/// slot, so nothing else can run it first): the child, the task the sampled poll queued
/// last, waits at least the busy poll's length, and its wait is in the histogram.
fn a_wait_behind_a_busy_poll_shows_in_the_histogram(rt: Runtime, flavor: &str) {
    let m = rt.metrics();
    let before = latencies(&m);
    let (busy, child) = rt.block_on(async {
        runtime::spawn(async {
            let busy = runtime::spawn(async {
                let t = Instant::now();
                spin(BUSY);
                t.elapsed()
            });
            (busy, runtime::spawn(async {}))
        })
        .await
        .unwrap()
    });
    let busy = rt.block_on(busy).unwrap();
    rt.block_on(child).unwrap();
    let counts = diff(&latencies(&m), &before);
    let top = counts
        .iter()
        .rposition(|&c| c > 0)
        .unwrap_or_else(|| panic!("{flavor}: no latency sample for the spawned task"));
    assert!(
        m.schedule_latency_histogram_bucket_range(top).end > busy,
        "{flavor}: the longest wait's bucket {:?} ends before the busy poll it waited \
         behind ({busy:?})",
        m.schedule_latency_histogram_bucket_range(top),
    );
}

#[test]
fn a_wait_behind_a_busy_poll_shows_on_current_thread() {
    watchdog("the busy task and its child", || {
        a_wait_behind_a_busy_poll_shows_in_the_histogram(every_event(None), "current_thread")
    });
}

#[test]
fn a_wait_behind_a_busy_poll_shows_on_one_worker() {
    watchdog("the busy task and its child", || {
        let rt = every_event_with(Some(1), |b| {
            b.disable_lifo_slot();
        });
        a_wait_behind_a_busy_poll_shows_in_the_histogram(rt, "multi_thread_1")
    });
}

#[test]
fn the_default_samples_some_polls_not_all() {
    watchdog("10,000 spawns", || {
        for rt in [current_thread(), multi_thread(2)] {
            let m = rt.metrics();
            assert!(m.poll_time_histogram_enabled() && m.schedule_latency_histogram_enabled());
            let n = u64::from(m.histogram_sample_interval());
            assert!(n > 1, "the default interval samples");
            rt.block_on(async {
                runtime::spawn(async {
                    // Each child is queued by its parent's poll, and wakes the parent.
                    for i in 0..10_000u64 {
                        runtime::spawn(async move { i }).await.unwrap();
                    }
                })
                .await
                .unwrap()
            });
            drop(rt);
            let (samples, polls) = (poll_times(&m).iter().sum::<u64>(), total_polls(&m));
            // Intervals are drawn from 1..=2n-1: at least one sample per 2n-1 polls, at
            // most one per poll.
            assert!(
                samples >= (polls / (2 * n - 1)).saturating_sub(1) && samples <= polls,
                "{samples} timed polls of {polls} at one in about {n}"
            );
            assert!(latencies(&m).iter().sum::<u64>() > 0, "no wait sampled");
        }
    });
}

#[test]
fn configured_layouts_give_their_bucket_ranges() {
    let rt = Builder::new_current_thread()
        .metrics_poll_time_histogram_configuration(HistogramConfiguration::linear(
            Duration::from_micros(100),
            10,
        ))
        .metrics_schedule_latency_histogram_configuration(HistogramConfiguration::log(
            LogHistogram::builder()
                .min_value(Duration::from_micros(1))
                .max_value(Duration::from_millis(1))
                .precision_exact(0),
        ))
        .build()
        .unwrap();
    let m = rt.metrics();
    assert_eq!(m.poll_time_histogram_num_buckets(), 10);
    assert_eq!(
        m.poll_time_histogram_bucket_range(0),
        Duration::ZERO..Duration::from_micros(100)
    );
    assert_eq!(
        m.poll_time_histogram_bucket_range(3),
        Duration::from_micros(300)..Duration::from_micros(400)
    );
    assert_eq!(
        m.poll_time_histogram_bucket_range(9),
        Duration::from_micros(900)..Duration::from_nanos(u64::MAX)
    );
    // Powers of two (p = 0): bucket 0 up to 1,024 ns (past 1 us), then doubling, the last
    // from 2^19 ns (below 1 ms) on.
    let n = m.schedule_latency_histogram_num_buckets();
    assert_eq!(n, 11);
    assert_eq!(
        m.schedule_latency_histogram_bucket_range(0),
        Duration::ZERO..Duration::from_nanos(1024)
    );
    assert_eq!(
        m.schedule_latency_histogram_bucket_range(1),
        Duration::from_nanos(1024)..Duration::from_nanos(2048)
    );
    assert_eq!(
        m.schedule_latency_histogram_bucket_range(n - 1).start,
        Duration::from_nanos(1 << 19)
    );
    for b in 0..n - 1 {
        assert_eq!(
            m.schedule_latency_histogram_bucket_range(b).end,
            m.schedule_latency_histogram_bucket_range(b + 1).start
        );
    }
    let err = LogHistogram::builder().max_buckets(5).unwrap_err();
    assert!(err.to_string().contains("buckets"), "{err}");
}

#[test]
fn disabled_histograms_record_nothing_and_say_so() {
    let rt = Builder::new_multi_thread()
        .worker_threads(1)
        .disable_metrics_poll_time_histogram()
        .disable_metrics_schedule_latency_histogram()
        .build()
        .unwrap();
    let m = rt.metrics();
    rt.block_on(async {
        runtime::spawn(async { runtime::spawn(async {}).await.unwrap() })
            .await
            .unwrap()
    });
    assert!(!m.poll_time_histogram_enabled());
    assert!(!m.schedule_latency_histogram_enabled());
    assert_eq!(m.poll_time_histogram_num_buckets(), 0);
    assert_eq!(m.schedule_latency_histogram_num_buckets(), 0);
    let err = std::panic::catch_unwind(|| m.poll_time_histogram_bucket_count(0, 0)).unwrap_err();
    let msg = panic_message(err);
    assert!(
        msg.contains("disabled") && msg.contains("enable_metrics_poll_time_histogram"),
        "{msg}"
    );
    // Enabling again restores the default layout.
    let rt = Builder::new_current_thread()
        .disable_metrics_poll_time_histogram()
        .enable_metrics_poll_time_histogram()
        .build()
        .unwrap();
    assert_eq!(
        rt.metrics().poll_time_histogram_num_buckets(),
        Builder::new_current_thread()
            .build()
            .unwrap()
            .metrics()
            .poll_time_histogram_num_buckets()
    );
}

#[test]
#[should_panic(expected = "bucket 10 out of range")]
fn a_bucket_past_the_last_panics_with_the_range() {
    let rt = Builder::new_current_thread()
        .metrics_poll_time_histogram_configuration(HistogramConfiguration::linear(
            Duration::from_micros(1),
            10,
        ))
        .build()
        .unwrap();
    rt.metrics().poll_time_histogram_bucket_range(10);
}

#[test]
#[should_panic(expected = "n must be at least 1")]
fn a_zero_sample_interval_panics_with_what_to_do() {
    Builder::new_current_thread().metrics_histogram_sample_interval(0);
}
