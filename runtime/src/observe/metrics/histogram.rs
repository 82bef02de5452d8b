//! Histogram bucket layouts (tokio's `HistogramConfiguration`, `LogHistogram`) and the
//! published bucket counts of one worker.
//!
//! A layout maps a duration, in nanoseconds, to a bucket index and back to the bucket's
//! range; the first bucket starts at zero and the last one is unbounded above, so every
//! duration lands in exactly one bucket.
//!
//! - Linear: `num_buckets` buckets of `bucket_width` each, the last one open-ended.
//! - Log (an H2 histogram): with `p` bits of precision, values below `2^p` ns get a
//!   bucket each, and every range `[2^h, 2^(h+1))` above is cut into `2^p` buckets of
//!   width `2^(h-p)`, so a bucket's width is at most `2^-p` of its lower bound (the
//!   relative error). Every bucket up to the one holding `min_value` is folded into
//!   bucket 0, and every bucket from the one holding `max_value` on into the last. The
//!   index is a leading-zeros count, a shift and a mask: no loop, no division.
//!
//! `Buckets` are written by one worker only (its core, whichever thread holds it), with a
//! relaxed load and store per recorded value (no read-modify-write: there is no other
//! writer), and read by `RuntimeMetrics` with relaxed loads. Values are recorded only for
//! sampled events (`sampler.rs`), so each is written as it happens rather than batched.

use std::fmt;
use std::ops::Range;
use std::sync::atomic::{AtomicU64, Ordering::Relaxed};
use std::time::Duration;

/// The largest `precision_exact` a log histogram accepts (0.1% relative error).
const MAX_PRECISION: u32 = 10;

/// How a histogram's buckets are laid out: [`linear`](HistogramConfiguration::linear) or
/// [`log`](HistogramConfiguration::log) (tokio's type).
///
/// ```
/// use std::time::Duration;
/// use runtime::{HistogramConfiguration, LogHistogram};
///
/// let linear = HistogramConfiguration::linear(Duration::from_micros(100), 10);
/// let log = HistogramConfiguration::log(LogHistogram::builder().max_error(0.1));
/// let rt = runtime::Builder::new_current_thread()
///     .metrics_poll_time_histogram_configuration(linear)
///     .metrics_schedule_latency_histogram_configuration(log)
///     .build()
///     .unwrap();
/// assert_eq!(rt.metrics().poll_time_histogram_num_buckets(), 10);
/// ```
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct HistogramConfiguration {
    layout: Layout,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Layout {
    Linear { width_ns: u64, num_buckets: usize },
    Log(LogHistogram),
}

impl HistogramConfiguration {
    /// `num_buckets` buckets of `bucket_width` each: bucket `i` holds durations in
    /// `[i * bucket_width, (i + 1) * bucket_width)`, the last one everything from its
    /// lower bound on.
    ///
    /// # Panics
    /// When `bucket_width` is zero or `num_buckets` is 0 (such a histogram holds nothing:
    /// pick a width of at least 1 ns and at least one bucket).
    #[track_caller]
    pub fn linear(bucket_width: Duration, num_buckets: usize) -> HistogramConfiguration {
        let width_ns = as_nanos(bucket_width);
        assert!(
            width_ns > 0,
            "HistogramConfiguration::linear: the bucket width must be at least 1 ns"
        );
        assert!(
            num_buckets > 0,
            "HistogramConfiguration::linear: a histogram needs at least one bucket"
        );
        HistogramConfiguration {
            layout: Layout::Linear {
                width_ns,
                num_buckets,
            },
        }
    }

    /// A log-scaled layout (an H2 histogram: bounded relative error, see
    /// [`LogHistogramBuilder`]).
    pub fn log(histogram: impl Into<LogHistogram>) -> HistogramConfiguration {
        HistogramConfiguration {
            layout: Layout::Log(histogram.into()),
        }
    }
}

impl Default for HistogramConfiguration {
    /// The default layout of both histograms: [`LogHistogram::default`].
    fn default() -> HistogramConfiguration {
        HistogramConfiguration::log(LogHistogram::default())
    }
}

/// A log-scaled (H2) bucket layout, built by [`LogHistogram::builder`] (tokio's type).
///
/// Bucket 0 covers `0` up to at least `min_value`; the last bucket covers from at most
/// `max_value` up; in between, each bucket's width is at most `2^-p` of its lower bound.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct LogHistogram {
    /// Precision bits: the relative error is at most `2^-p`.
    p: u32,
    /// The raw H2 index of the bucket holding `min_value`: raw buckets `0..=offset` are
    /// bucket 0.
    offset: u64,
    num_buckets: usize,
}

impl LogHistogram {
    /// A builder with the defaults (see [`LogHistogramBuilder`]).
    pub fn builder() -> LogHistogramBuilder {
        LogHistogramBuilder::default()
    }

    /// The lower bound, in nanoseconds, of the last bucket: larger values all land there.
    pub fn max_value(&self) -> u64 {
        raw_lower(self.offset + self.num_buckets as u64 - 1, self.p)
    }

    fn bucket(&self, ns: u64) -> usize {
        let raw = raw_index(ns, self.p);
        (raw.saturating_sub(self.offset) as usize).min(self.num_buckets - 1)
    }

    fn lower(&self, bucket: usize) -> u64 {
        if bucket == 0 {
            0
        } else {
            raw_lower(self.offset + bucket as u64, self.p)
        }
    }
}

impl Default for LogHistogram {
    /// 100 ns to about 68.7 s (2^36 ns) at 25% relative error: 119 buckets.
    fn default() -> LogHistogram {
        LogHistogram::builder().build()
    }
}

impl From<LogHistogramBuilder> for LogHistogram {
    fn from(builder: LogHistogramBuilder) -> LogHistogram {
        builder.build()
    }
}

/// Configures a [`LogHistogram`] (tokio's type).
///
/// Defaults: `min_value` 100 ns, `max_value` 2^36 ns (about 68.7 s), precision `p = 2`
/// (at most 25% relative error): 119 buckets.
///
/// ```
/// use std::time::Duration;
/// use runtime::LogHistogram;
///
/// let h = LogHistogram::builder()
///     .min_value(Duration::from_micros(1))
///     .max_value(Duration::from_millis(100))
///     .precision_exact(3)
///     .max_buckets(200)
///     .unwrap();
/// assert!(h.max_value() <= 100_000_000);
/// // Too fine for 10 buckets: a clear error, not a silent truncation.
/// assert!(LogHistogram::builder().max_buckets(10).is_err());
/// ```
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct LogHistogramBuilder {
    p: u32,
    min_value: Duration,
    max_value: Duration,
}

impl Default for LogHistogramBuilder {
    fn default() -> LogHistogramBuilder {
        LogHistogramBuilder {
            p: 2,
            min_value: Duration::from_nanos(100),
            max_value: Duration::from_nanos(1 << 36),
        }
    }
}

impl LogHistogramBuilder {
    /// The largest relative error a bucket may have: picks the smallest `p` with
    /// `2^-p <= max_error`.
    ///
    /// # Panics
    /// When `max_error` is not in `(0, 1)`, or asks for more than 10 bits of precision
    /// (below 0.1%): pass a fraction such as `0.25`, or use `precision_exact`.
    #[track_caller]
    pub fn max_error(mut self, max_error: f64) -> LogHistogramBuilder {
        assert!(
            max_error > 0.0 && max_error < 1.0,
            "LogHistogramBuilder::max_error: the error is a fraction in (0, 1), such as 0.25; \
             got {max_error}"
        );
        let mut p = 0;
        while 2f64.powi(-(p as i32)) > max_error {
            p += 1;
        }
        assert!(
            p <= MAX_PRECISION,
            "LogHistogramBuilder::max_error: {max_error} needs {p} bits of precision, at most \
             {MAX_PRECISION} are supported (an error of 2^-{MAX_PRECISION})"
        );
        self.p = p;
        self
    }

    /// Sets `p` directly: each bucket's width is at most `2^-p` of its lower bound.
    ///
    /// # Panics
    /// When `p` is above 10.
    #[track_caller]
    pub fn precision_exact(mut self, p: u32) -> LogHistogramBuilder {
        assert!(
            p <= MAX_PRECISION,
            "LogHistogramBuilder::precision_exact: p = {p} is above the supported \
             {MAX_PRECISION}"
        );
        self.p = p;
        self
    }

    /// Durations up to this one (at least) go to bucket 0.
    pub fn min_value(mut self, d: Duration) -> LogHistogramBuilder {
        self.min_value = d;
        self
    }

    /// Durations from this one (at most) on go to the last bucket.
    pub fn max_value(mut self, d: Duration) -> LogHistogramBuilder {
        self.max_value = d;
        self
    }

    /// Builds the layout, or says how many buckets it would need when that is more than
    /// `max_buckets`.
    ///
    /// # Panics
    /// As [`build`](Self::build).
    #[track_caller]
    pub fn max_buckets(
        self,
        max_buckets: usize,
    ) -> Result<LogHistogram, InvalidHistogramConfiguration> {
        let h = self.build();
        if h.num_buckets > max_buckets {
            return Err(InvalidHistogramConfiguration {
                required_buckets: h.num_buckets,
                max_buckets,
            });
        }
        Ok(h)
    }

    /// Builds the layout.
    ///
    /// # Panics
    /// When `min_value` is not below `max_value` (set a `max_value` above `min_value`).
    #[track_caller]
    pub fn build(self) -> LogHistogram {
        let (min, max) = (as_nanos(self.min_value), as_nanos(self.max_value));
        assert!(
            min < max,
            "LogHistogramBuilder: min_value ({:?}) must be below max_value ({:?})",
            self.min_value,
            self.max_value
        );
        let offset = raw_index(min, self.p);
        let last = raw_index(max, self.p).max(offset + 1);
        LogHistogram {
            p: self.p,
            offset,
            num_buckets: (last - offset + 1) as usize,
        }
    }
}

/// A log histogram would need more buckets than `LogHistogramBuilder::max_buckets` allows.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct InvalidHistogramConfiguration {
    required_buckets: usize,
    max_buckets: usize,
}

impl fmt::Display for InvalidHistogramConfiguration {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(
            f,
            "the histogram needs {} buckets, more than the {} allowed: lower the precision or \
             narrow min_value..max_value",
            self.required_buckets, self.max_buckets
        )
    }
}

impl std::error::Error for InvalidHistogramConfiguration {}

/// The H2 index of `v` with `p` precision bits (module docs).
#[inline]
fn raw_index(v: u64, p: u32) -> u64 {
    if v < (1 << p) {
        return v;
    }
    let h = 63 - v.leading_zeros();
    (u64::from(h - p + 1) << p) | ((v >> (h - p)) & ((1 << p) - 1))
}

/// The smallest value whose H2 index is `i`.
fn raw_lower(i: u64, p: u32) -> u64 {
    if i < (1 << p) {
        return i;
    }
    let group = i >> p;
    ((1 << p) | (i & ((1 << p) - 1))) << (group - 1)
}

fn as_nanos(d: Duration) -> u64 {
    d.as_nanos().min(u128::from(u64::MAX)) as u64
}

impl HistogramConfiguration {
    pub(crate) fn num_buckets(&self) -> usize {
        match self.layout {
            Layout::Linear { num_buckets, .. } => num_buckets,
            Layout::Log(h) => h.num_buckets,
        }
    }

    /// The bucket `d` falls in.
    #[inline]
    pub(crate) fn bucket(&self, d: Duration) -> usize {
        let ns = as_nanos(d);
        match self.layout {
            Layout::Linear {
                width_ns,
                num_buckets,
            } => ((ns / width_ns) as usize).min(num_buckets - 1),
            Layout::Log(h) => h.bucket(ns),
        }
    }

    /// The durations bucket `bucket` holds (the last one ends at `u64::MAX` ns).
    pub(crate) fn range(&self, bucket: usize) -> Range<Duration> {
        let n = self.num_buckets();
        let lower = |b: usize| match self.layout {
            Layout::Linear { width_ns, .. } => width_ns.saturating_mul(b as u64),
            Layout::Log(h) => h.lower(b),
        };
        let end = if bucket + 1 == n {
            u64::MAX
        } else {
            lower(bucket + 1)
        };
        Duration::from_nanos(lower(bucket))..Duration::from_nanos(end)
    }
}

/// One worker's counts for one histogram (module docs: one writer, relaxed).
pub(crate) struct Buckets {
    counts: Box<[AtomicU64]>,
}

impl Buckets {
    pub(crate) fn new(n: usize) -> Buckets {
        Buckets {
            counts: (0..n).map(|_| AtomicU64::new(0)).collect(),
        }
    }

    /// Counts one value in `bucket`. Only the worker owning these buckets calls it.
    #[inline]
    pub(crate) fn record(&self, bucket: usize) {
        let c = &self.counts[bucket];
        // A load and a store, not an RMW: this worker is the only writer.
        c.store(c.load(Relaxed) + 1, Relaxed);
    }

    pub(crate) fn get(&self, bucket: usize) -> u64 {
        self.counts[bucket].load(Relaxed)
    }
}

#[cfg(all(test, not(loom)))]
mod tests {
    use super::*;

    #[test]
    fn log_buckets_are_contiguous_and_cover_every_value() {
        for p in [0, 1, 2, 4] {
            let c = HistogramConfiguration::log(
                LogHistogram::builder()
                    .precision_exact(p)
                    .min_value(Duration::from_nanos(50))
                    .max_value(Duration::from_millis(10)),
            );
            let n = c.num_buckets();
            assert_eq!(c.range(0).start, Duration::ZERO);
            assert_eq!(c.range(n - 1).end, Duration::from_nanos(u64::MAX));
            for b in 0..n - 1 {
                let (r, next) = (c.range(b), c.range(b + 1));
                assert_eq!(r.end, next.start, "p={p}: bucket {b} and {} touch", b + 1);
                assert!(r.start < r.end, "p={p}: bucket {b} is not empty");
                assert_eq!(c.bucket(r.start), b, "p={p}: {:?} lands in {b}", r.start);
                let last = r.end - Duration::from_nanos(1);
                assert_eq!(c.bucket(last), b, "p={p}: {last:?} lands in {b}");
                if b > 0 {
                    let width = (r.end - r.start).as_nanos() as f64;
                    let error = width / r.start.as_nanos() as f64;
                    assert!(
                        error <= 2f64.powi(-(p as i32)),
                        "p={p}: bucket {b} too wide"
                    );
                }
            }
            assert!(c.range(0).end >= Duration::from_nanos(50));
            assert!(c.range(n - 1).start <= Duration::from_millis(10));
            assert_eq!(c.bucket(Duration::MAX), n - 1);
        }
    }

    #[test]
    fn the_default_log_layout_has_119_buckets() {
        assert_eq!(HistogramConfiguration::default().num_buckets(), 119);
    }

    #[test]
    fn linear_buckets() {
        let c = HistogramConfiguration::linear(Duration::from_micros(10), 5);
        assert_eq!(c.bucket(Duration::from_micros(9)), 0);
        assert_eq!(c.bucket(Duration::from_micros(10)), 1);
        assert_eq!(c.bucket(Duration::from_secs(1)), 4);
        assert_eq!(
            c.range(1),
            Duration::from_micros(10)..Duration::from_micros(20)
        );
    }
}
