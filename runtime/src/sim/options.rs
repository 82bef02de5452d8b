//! How a deterministic run explores: the stepper's strategy and its perturbation knobs.
//!
//! The participants a strategy chooses among are the logical workers, the `block_on`
//! future and the blocking participant, whichever of them can take a step. `Random`
//! draws one uniformly at every step. `Pct` is the probabilistic concurrency testing of
//! Burckhardt et al. (ASPLOS 2010), as shuttle implements it for threads: each
//! participant gets a random priority, the highest-priority eligible one always runs, and
//! at `depth - 1` change points drawn over the expected run length the running one drops
//! to the lowest priority; a bug of depth d is found with probability at least
//! 1/(n·k^(d-1)). `Fixed` is exploration off: the lowest-numbered eligible participant,
//! no perturbation, parked workers woken in their parking order — the same scheduling
//! for every seed (the program's own draws, `select!`'s, still follow the seed). The
//! perturbations (`Options`): a LIFO task demoted to the ring, a driver turn inserted
//! before a step, a poll's coop budget cut so the task yields at a ready await.

/// Which eligible participant takes the next step (module docs).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Strategy {
    /// A uniform draw among the eligible participants at every step.
    Random,
    /// Probabilistic concurrency testing with bug depth `depth` (at least 1) over runs of
    /// about `steps` steps.
    Pct {
        /// The number of ordering constraints the bugs sought depend on.
        depth: u32,
        /// The expected number of steps of a run (where change points are drawn).
        steps: u32,
    },
    /// Exploration off: one scheduling order, whatever the seed (the program's own draws,
    /// `select!`'s and `RngSeed`'s, still come from the seed).
    Fixed,
}

/// The deterministic mode's settings ([`Builder::deterministic_options`](crate::Builder)).
///
/// ```
/// let options = runtime::sim::Options {
///     strategy: runtime::sim::Strategy::Pct { depth: 3, steps: 10_000 },
///     ..Default::default()
/// };
/// assert_eq!(options.lifo_demote_per_mille, 50);
/// ```
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Options {
    /// The strategy (default `Random`).
    pub strategy: Strategy,
    /// Per mille of worker steps before which the worker's LIFO slot is demoted to the
    /// back of its ring (where a sibling can steal it): explores the orders the LIFO slot
    /// hides. Default 50; 0 under `Fixed`.
    pub lifo_demote_per_mille: u32,
    /// Per mille of worker steps that begin with a driver turn (timers and the deferred
    /// list run before the next task, as at a maintenance tick): explores yields landing
    /// elsewhere. Default 20; 0 under `Fixed`.
    pub turn_per_mille: u32,
    /// Which parked worker a notify wakes is drawn by the seed (default true; false under
    /// `Fixed`: the most recently parked, as on threads).
    pub shuffle_parked: bool,
    /// Per mille of polls whose coop budget is cut to a seeded 0 to 3 operations, so the
    /// task yields at one of its next ready awaits (a channel, a lock, a timer, I/O):
    /// inserts yields where the program has none. Default 20; 0 under `Fixed`.
    pub yield_per_mille: u32,
}

impl Default for Options {
    fn default() -> Options {
        Options {
            strategy: Strategy::Random,
            lifo_demote_per_mille: 50,
            turn_per_mille: 20,
            shuffle_parked: true,
            yield_per_mille: 20,
        }
    }
}

impl Options {
    /// Exploration off (`Strategy::Fixed`, no perturbation).
    pub fn fixed() -> Options {
        Options {
            strategy: Strategy::Fixed,
            lifo_demote_per_mille: 0,
            turn_per_mille: 0,
            shuffle_parked: false,
            yield_per_mille: 0,
        }
    }

    /// The options named by `RUNTIME_SIM_STRATEGY` (`random`, `pct`, `fixed`), else
    /// `self`. An unknown name is a panic that lists the known ones.
    pub(crate) fn or_env(self) -> Options {
        match std::env::var("RUNTIME_SIM_STRATEGY")
            .ok()
            .as_deref()
            .map(str::trim)
        {
            None | Some("") => self,
            Some("random") => Options {
                strategy: Strategy::Random,
                ..Options::default()
            },
            Some("pct") => Options {
                strategy: Strategy::Pct {
                    depth: 3,
                    steps: 10_000,
                },
                ..Options::default()
            },
            Some("fixed") => Options::fixed(),
            Some(other) => panic!(
                "RUNTIME_SIM_STRATEGY={other:?} is not a strategy: use `random`, `pct` or `fixed`"
            ),
        }
    }
}
