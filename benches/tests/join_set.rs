//! Smoke test of the `join_set` bench: two iterations of the workload on each runtime and
//! flavor (each iteration asserts the sum of the 10,000 outputs).

use benches::workloads::join_set::{ours_join_set, ours_runtime, tokio_join_set, tokio_runtime};
use benches::Flavor;

#[test]
fn join_set_workload_runs_on_both_runtimes() {
    for flavor in [Flavor::MultiThread(2), Flavor::CurrentThread] {
        let ours = ours_runtime(flavor);
        ours_join_set(&ours);
        ours_join_set(&ours);
        let tokio = tokio_runtime(flavor);
        tokio_join_set(&tokio);
        tokio_join_set(&tokio);
    }
}
