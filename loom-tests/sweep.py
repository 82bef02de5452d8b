#!/usr/bin/env python3
"""The weakening sweep: does every atomic operation's ordering (and every CAS retry and
flag test) matter to some loom model?

For each atomic operation in the shipping code that goes through the shim (queue/,
task/, runtime/src/{park.rs,scheduler,sync/}, shim/src/spin_mutex.rs,
io-driver/src/readiness.rs), this script
makes the
one-step-weaker variant -- SeqCst -> AcqRel (RMW) / Acquire (load, CAS failure) /
Release (store), AcqRel -> Acquire and -> Release, Acquire/Release -> Relaxed; for a
`fence`, SeqCst -> AcqRel (loom models a SeqCst fence's total order, unlike SeqCst
accesses) and the fence removed -- plus the
hand-written variants in `MANUAL` (a retried CAS that gives up, a flag test removed,
and planted bugs in the queues, the task state machine, the sync primitives and the
scheduler's wake-ups), applies it to a SCRATCH COPY of the tree (never the
tree itself: a copy under --scratch, default /tmp/loom-sweep), builds the relevant loom suite
there and runs its tests one at a time (each with a timeout) until one fails.

Each variant ends as one of:
  caught     a loom test failed; the table names it and loom's message
  SURVIVES   every test of the suite(s) passed: a model is missing (or the ordering
             is stronger than needed)
  timeout    a test ran past --timeout without failing (inconclusive)
  build-err  the variant does not compile (should not happen; a bug in this script)

Usage (from anywhere; the tree is this script's repository):
  loom-tests/sweep.py --list                     # the variants, no build
  loom-tests/sweep.py                            # run them all (hours at full size)
  loom-tests/sweep.py --only local.rs            # variants whose id contains a string
  loom-tests/sweep.py --only plant: --timeout 300
Results: one line per variant on stdout (a Markdown table row), and appended as JSON to
--out (default <scratch>/results.jsonl). Environment: LOOM_MAX_PREEMPTIONS (default 2).
The build uses its own target dir, target/sweep (seeded from target/loom; see
SWEEP_TARGET for why it must not share target/loom).
"""

import argparse
import json
import os
import re
import shutil
import subprocess
import sys
import time

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))

# Which loom suites exercise which file (in the order they are tried).
SUITES = [
    ("queue/src/local.rs", ["loom_local", "loom_scheduler"]),
    # The schedulers consume both queues too; their suite is slow, so it runs last.
    ("queue/src/inject.rs", ["loom_inject", "loom_local", "loom_scheduler"]),
    ("task/src/", ["loom_task"]),
    ("runtime/src/sync/oneshot.rs", ["loom_oneshot"]),
    # The locks (batch semaphore, its wait list, Notify) and the channels.
    ("runtime/src/sync/batch_semaphore.rs", ["loom_sync_locks", "loom_sync_chan"]),
    # The wait list's handoff (`serve`) feeds Notify and broadcast.
    ("runtime/src/sync/wait_list.rs", ["loom_sync_locks", "loom_sync_chan"]),
    ("runtime/src/sync/notify.rs", ["loom_sync_locks"]),
    # The shim's own lock, under Notify's waiter queue.
    ("shim/src/spin_mutex.rs", ["loom_spin_mutex", "loom_sync_locks"]),
    ("runtime/src/sync/atomic_waker.rs", ["loom_sync_chan", "loom_sync_locks"]),
    # OnceCell sits on the batch semaphore; its model is with the locks'.
    ("runtime/src/sync/once_cell.rs", ["loom_sync_locks"]),
    ("runtime/src/sync/", ["loom_sync_chan"]),
    ("runtime/src/park.rs", ["loom_scheduler"]),
    ("runtime/src/scheduler/multi_thread/idle.rs", ["loom_idle", "loom_scheduler"]),
    # The LIFO slot, and the stuck-worker rescue around it (driven directly: under loom no
    # monitor runs, so no loom_scheduler model reaches the rescue).
    ("queue/src/lifo.rs", ["loom_lifo"]),
    ("runtime/src/scheduler/multi_thread/worker_shared.rs", ["loom_lifo"]),
    # No loom build: std atomics, the monitor thread is not built and the spin token is a
    # no-op under loom. Their rows are argued (NO_LOOM), never run.
    ("runtime/src/scheduler/multi_thread/spin.rs", []),
    ("runtime/src/scheduler/multi_thread/monitor.rs", []),
    ("runtime/src/scheduler/", ["loom_scheduler"]),
    # The I/O driver's readiness word: the only part of io-driver built under loom.
    ("io-driver/src/readiness.rs", ["loom_readiness"]),
]
# Not swept (no loom build; every row argued in README.md instead): runtime/src/time/clock.rs
# and io-driver's slab.rs, timer.rs, clock.rs, driver.rs (std atomics under mutexes).

FILES = [
    "queue/src/local.rs",
    "queue/src/inject.rs",
    "task/src/state.rs",
    "task/src/core.rs",
    "task/src/lib.rs",
    "task/src/list.rs",
    "task/src/harness.rs",
    "task/src/join.rs",
    "task/src/waker.rs",
    "runtime/src/sync/oneshot.rs",
    "runtime/src/sync/batch_semaphore.rs",
    "runtime/src/sync/wait_list.rs",
    "runtime/src/sync/mpsc/semaphore.rs",
    "runtime/src/sync/mpsc/chan.rs",
    "runtime/src/sync/mpsc/list.rs",
    "runtime/src/sync/mpsc/ring.rs",
    "runtime/src/sync/atomic_waker.rs",
    "runtime/src/sync/notify.rs",
    "shim/src/spin_mutex.rs",
    "runtime/src/sync/watch.rs",
    "runtime/src/sync/broadcast.rs",
    "runtime/src/sync/once_cell.rs",
    "runtime/src/park.rs",
    "runtime/src/scheduler/multi_thread/idle.rs",
    "runtime/src/scheduler/multi_thread/worker.rs",
    "runtime/src/scheduler/multi_thread/worker/search.rs",
    "runtime/src/scheduler/multi_thread/mod.rs",
    "runtime/src/scheduler/current_thread.rs",
    "queue/src/lifo.rs",
    "runtime/src/scheduler/inject.rs",
    "runtime/src/scheduler/multi_thread/worker_shared.rs",
    "runtime/src/scheduler/multi_thread/spin.rs",
    "runtime/src/scheduler/multi_thread/monitor.rs",
    "io-driver/src/readiness.rs",
]

# The slow suite's tests that reach a file's code, per suite (the likely catcher first):
# used when no --tests filter is given, so that a variant never runs the whole suite.
# (scheduler/inject.rs: its own atomics are argued, NO_LOOM; these are for a hand-written
# variant of its logic: the remote push refused at shutdown, the drain at shutdown.)
TESTS = {
    "runtime/src/scheduler/inject.rs": {
        "loom_scheduler": ["spawn_racing_shutdown_one_worker",
                           "shutdown_with_queued_and_idle_tasks_one_worker",
                           "current_thread_shutdown_while_waking"],
    },
}

# Files whose atomics loom cannot see: std atomics (not the shim's) that carry no
# synchronization, or code with no loom build. Their auto variants are not run; each
# operation, Relaxed ones included (nothing is weaker), gets an "argued" row whose argument
# is `argued(v)`, also written at the site.
NO_LOOM = {
    "runtime/src/scheduler/inject.rs",
    "runtime/src/scheduler/multi_thread/worker_shared.rs",
    "runtime/src/scheduler/multi_thread/spin.rs",
    "runtime/src/scheduler/multi_thread/monitor.rs",
}

# Hand-written variants: (id, file, old, new, what). `old` must occur exactly once.
MANUAL = [
    # --- planted: progress of a steal (queue/src/local.rs) ---
    ("plant:steal-half-rounded-down", "queue/src/local.rs",
     "let n = avail - avail / 2;", "let n = avail / 2;",
     "steal takes n/2 rounded down"),
    ("plant:steal-commit-gives-up", "queue/src/local.rs",
     """                Ok(_) => break,
                Err(actual) => head = actual,
            }
        }

        if n > 1 {""",
     """                Ok(_) => break,
                Err(_) => break,
            }
        }

        if n > 1 {""",
     "the steal's commit CAS gives up when the owner popped meanwhile"),
    ("plant:steal-claim-not-retried", "queue/src/local.rs",
     """                Ok(_) => break (real, n),
                Err(actual) => head = actual,""",
     """                Ok(_) => break (real, n),
                Err(_) => return None,""",
     "the steal's claim CAS is not retried when the owner's pop raced it"),
    ("cas:pop-gives-up", "queue/src/local.rs",
     """                Ok(_) => break real,
                Err(actual) => head = actual,""",
     """                Ok(_) => break real,
                Err(_) => return None,""",
     "the owner's pop gives up when a thief's claim raced it"),
    ("flag:push-ignores-mid-steal", "queue/src/local.rs",
     "            if steal != real {\n                // A thief is copying",
     "            if false && steal != real {\n                // A thief is copying",
     "push_back on a full ring ignores a thief mid-steal"),
    ("flag:steal-ignores-mid-steal", "queue/src/local.rs",
     "            if steal != real {\n                // Another thief",
     "            if false && steal != real {\n                // Another thief",
     "a thief ignores another thief mid-steal"),
    ("flag:steal-dst-room-unchecked", "queue/src/local.rs",
     "if dst_tail.wrapping_sub(dst_steal) as usize > CAPACITY / 2 {",
     "if false && dst_tail.wrapping_sub(dst_steal) as usize > CAPACITY / 2 {",
     "a steal does not check dst's room"),
    # --- inject ---
    ("plant:inject-push-ignores-closed", "queue/src/inject.rs",
     "            if cur & CLOSED != 0 {\n                self.stack.len",
     "            if false && cur & CLOSED != 0 {\n                self.stack.len",
     "a push ignores the CLOSED bit"),
    ("cas:inject-push-gives-up", "queue/src/inject.rs",
     """                Ok(_) => return Ok(()),
                Err(now) => cur = now,""",
     """                Ok(_) => return Ok(()),
                Err(_) => return Err(()),""",
     "a push's CAS gives up (refused) when another push raced it"),
    # --- task ---
    ("plant:ref-dec-release-only", "task/src/state.rs",
     "let prev = Snapshot(self.val.fetch_sub(REF_ONE, AcqRel));",
     "let prev = Snapshot(self.val.fetch_sub(REF_ONE, shim::sync::atomic::Ordering::Release));",
     "the last reference decrement is Release only (the freeing thread acquires nothing)"),
    ("plant:terminal-release-only", "task/src/state.rs",
     "let prev = Snapshot(self.val.fetch_sub(count * REF_ONE, AcqRel));",
     "let prev = Snapshot(self.val.fetch_sub(count * REF_ONE, shim::sync::atomic::Ordering::Release));",
     "the completing run's terminal decrement is Release only"),
    ("plant:wake-by-val-leaks", "task/src/harness.rs",
     "        ToNotifiedByVal::Dealloc => unsafe { (header.vtable.dealloc)(ptr) },",
     "        ToNotifiedByVal::Dealloc => {}",
     "a by-value wake holding the last reference leaks the task"),
    # --- oneshot ---
    ("plant:try-recv-relaxed", "runtime/src/sync/oneshot.rs",
     """        // Acquire: pairs with the sender's Release of COMPLETE (the value).
        let state = inner.state.load(Acquire);""",
     """        // Acquire: pairs with the sender's Release of COMPLETE (the value).
        let state = inner.state.load(Relaxed);""",
     "try_recv loads the state Relaxed"),
    ("cas:oneshot-complete-gives-up", "runtime/src/sync/oneshot.rs",
     """                Ok(_) => break,
                Err(now) => state = now,""",
     """                Ok(_) => break,
                Err(_) => return false,""",
     "the sender's complete CAS gives up when the receiver raced it"),
    ("flag:oneshot-register-too-late-ignored", "runtime/src/sync/oneshot.rs",
     "            if state & done != 0 {\n                // Too late",
     "            if false && state & done != 0 {\n                // Too late",
     "a waker replacement ignores that the event already happened"),
    # --- the unbounded list's CLOSED bit (dd97c7e) ---
    ("flag:list-push-ignores-closed", "runtime/src/sync/mpsc/list.rs",
     "        if pos & CLOSED != 0 {\n            return Err(value);",
     "        if false && pos & CLOSED != 0 {\n            return Err(value);",
     "a send ignores CLOSED in the value its claim replaced (sends after the close)"),
    ("flag:list-pop-ignores-closed-at", "runtime/src/sync/mpsc/list.rs",
     "            if rx.index >= rx.closed_at {\n                return Pop::Empty;",
     "            if false && rx.index >= rx.closed_at {\n                return Pop::Empty;",
     "the receiver looks past the close's final index (waits for refused claims)"),
    # --- Notify::notify_waiters' lock-free path (3e7c023) ---
    ("plant:notify-waiters-fast-path-store", "runtime/src/sync/notify.rs",
     """            match self.state.compare_exchange(cur, cur + CALL, SeqCst, SeqCst) {
                Ok(_) => return,
                Err(now) => cur = now,
            }""",
     """            self.state.store(cur + CALL, SeqCst);
            return;""",
     "the lock-free `notify_waiters` counts the call with a store, not a CAS"),
    ("flag:notify-waiters-fast-path-ignores-waiting", "runtime/src/sync/notify.rs",
     "        while cur & STATE != WAITING {\n            match self.state.compare_exchange(cur, cur + CALL",
     "        while cur & STATE != WAITING || cur & STATE == WAITING {\n            match self.state.compare_exchange(cur, cur + CALL",
     "the lock-free `notify_waiters` is taken with waiters queued (wakes none)"),
    # --- the handoff word (wait_list.rs `serve`): a leaving waiter must look again under
    # the lock, or it frees a node a notifier already freed (and reused) ---
    ("flag:notify-cancel-no-recheck", "runtime/src/sync/notify.rs",
     """            if got == GOT_NOTHING {
                // Relaxed: notifiers store under the lock we hold.
                got = self.got.load(Relaxed);
            }""",
     """            let _ = Relaxed;""",
     "a dropped `Notified` that read \"nothing\" frees its node without looking again under the lock"),
    ("flag:broadcast-leave-no-recheck", "runtime/src/sync/broadcast.rs",
     """(self.served.load(Relaxed) == 0).then(|| tail.waiters.remove(k))""",
     """Some(tail.waiters.remove(k))""",
     "a leaving broadcast receive that read \"not served\" frees its node without looking again under the lock"),
    # --- the shim's SpinMutex ---
    ("plant:spin-mutex-take-always-wins", "shim/src/spin_mutex.rs",
     """            .compare_exchange(false, true, Ordering::Acquire, Ordering::Relaxed)
            .is_ok()""",
     """            .compare_exchange(false, true, Ordering::Acquire, Ordering::Relaxed)
            .is_ok()
            || true""",
     "an attempt on a taken lock succeeds (two holders)"),
    ("plant:spin-mutex-release-wakes-nobody", "shim/src/spin_mutex.rs",
     """            self.lock.released.1.notify_all();""",
     "",
     "a release wakes no waiter (under loom, the waiters sleep between looks)"),
    # --- planted: the scheduler skips a wake-up ---
    ("plant:no-searcher-handoff", "runtime/src/scheduler/multi_thread/worker/search.rs",
     """        if idle.transition_worker_from_searching(|| handle.has_visible_work()) {
            handle.notify_parked();
        }""",
     """        if idle.transition_worker_from_searching(|| handle.has_visible_work()) {}""",
     "the last searcher to find work wakes no one"),
    ("plant:no-notify-others-on-park-exit", "runtime/src/scheduler/multi_thread/worker.rs",
     """        if core.should_notify_others() {
            self.handle.notify_parked();
        }""",
     "",
     "a worker leaving park with several tasks of its own wakes no sibling"),
    ("plant:no-recheck-on-park", "runtime/src/scheduler/multi_thread/worker/search.rs",
     """        if must_recheck {
            handle.notify_if_work_pending();
        }""",
     "",
     "a worker parking with no searcher left does not re-check the queues"),
    ("plant:recheck-last-searcher-only", "runtime/src/scheduler/multi_thread/idle.rs",
     "num_searching(prev) == usize::from(is_searching)",
     "is_searching && num_searching(prev) == 1",
     "only the last searcher re-checks on park (a non-searcher parking while none "
     "searches does not)"),
    # (Spawns and wakes on a worker now share one decision, `Handle::schedule`; the two
    # plants of the separate paths, `no-notify-local-wake` and `no-notify-local-spawn`,
    # became this one.)
    ("plant:no-notify-local-schedule", "runtime/src/scheduler/multi_thread/worker.rs",
     "            Ok(true) => me.notify_parked(),",
     "            Ok(true) => {}",
     "a task scheduled (spawned or woken) on a worker where it can be stolen wakes no "
     "sibling"),
    # --- the stuck-worker rescue (worker_shared.rs): the permission's flag tests ---
    ("flag:steal-lifo-ignores-stuck", "runtime/src/scheduler/multi_thread/worker_shared.rs",
     "        if self.is_stuck() {\n            self.lifo.steal()",
     "        if true || self.is_stuck() {\n            self.lifo.steal()",
     "a sibling takes a worker's LIFO task without the stuck permission"),
    ("flag:is-stuck-ignores-parity", "runtime/src/scheduler/multi_thread/worker_shared.rs",
     "seq & 1 == 1 && self.stuck_seq.load(Relaxed) == seq",
     "self.stuck_seq.load(Relaxed) == seq",
     "`is_stuck` does not test that a poll is running (odd `poll_seq`)"),
    ("flag:is-stuck-ignores-stuck-seq", "runtime/src/scheduler/multi_thread/worker_shared.rs",
     "seq & 1 == 1 && self.stuck_seq.load(Relaxed) == seq",
     "seq & 1 == 1",
     "`is_stuck` does not test that the monitor found this poll stuck"),
    ("flag:stealable-lifo-ignores-empty", "runtime/src/scheduler/multi_thread/worker_shared.rs",
     "self.is_stuck() && !self.lifo.is_empty()",
     "self.is_stuck()",
     "`has_stealable_lifo` offers a stuck worker's empty slot to searchers"),
    ("flag:stealable-lifo-ignores-stuck", "runtime/src/scheduler/multi_thread/worker_shared.rs",
     "self.is_stuck() && !self.lifo.is_empty()",
     "!self.lifo.is_empty()",
     "`has_stealable_lifo` offers any worker's LIFO task to searchers"),
    ("plant:lifo-take-load-then-store", "queue/src/lifo.rs",
     "        let p = self.item.swap(ptr::null_mut(), Acquire);",
     "        let p = self.item.load(Acquire);\n        self.item.store(ptr::null_mut(), Relaxed);",
     "taking from the LIFO slot is a load then a store of null, not one swap"),
    # --- the I/O driver's readiness word (io-driver/src/readiness.rs) ---
    ("cas:readiness-set-gives-up", "io-driver/src/readiness.rs",
     """                Ok(_) => return true,
                Err(actual) => cur = actual,""",
     """                Ok(_) => return true,
                Err(_) => return false,""",
     "the driver's readiness CAS gives up when a clear raced it"),
    ("flag:readiness-clear-ignores-tick", "io-driver/src/readiness.rs",
     "            if tick_of(cur) != ev.tick {",
     "            if false && tick_of(cur) != ev.tick {",
     "a clear ignores the tick (erases a newer event)"),
    ("flag:readiness-no-recheck-under-lock", "io-driver/src/readiness.rs",
     "        let res = Self::check(self.state.load(Ordering::Acquire), dir);",
     "        let res: Option<io::Result<ReadyEvent>> = None;",
     "a poll does not re-read the word under the mutex after registering its waker"),
    ("cas:readiness-clear-gives-up", "io-driver/src/readiness.rs",
     """                Ok(_) => return,
                Err(actual) => cur = actual,""",
     """                Ok(_) => return,
                Err(_) => return,""",
     "a clear's CAS gives up when it raced"),
]

ORD = r"(?:(?:shim::sync::atomic::|std::sync::atomic::)?Ordering::)?(Relaxed|Acquire|Release|AcqRel|SeqCst)\b"
CALL = re.compile(
    r"\.(load|store|swap|fetch_add|fetch_sub|fetch_and|fetch_or|fetch_xor|fetch_max|"
    r"fetch_min|compare_exchange_weak|compare_exchange)\s*\(")
Q = "shim::sync::atomic::Ordering::"


def q(rel):
    """The path of `Ordering` a variant writes: inside the shim itself it is `crate::`."""
    return "crate::sync::atomic::Ordering::" if rel.startswith("shim/") else Q


def weaker(order, role):
    """One-step-weaker orderings that are legal for `role` (load/store/rmw/fail)."""
    if order == "SeqCst":
        return {"load": ["Acquire"], "fail": ["Acquire"], "store": ["Release"],
                "rmw": ["AcqRel"]}[role]
    if order == "AcqRel":
        return ["Acquire", "Release"]
    if order in ("Acquire", "Release"):
        return ["Relaxed"]
    return []


def matching_paren(src, open_idx):
    depth = 0
    for i in range(open_idx, len(src)):
        if src[i] == "(":
            depth += 1
        elif src[i] == ")":
            depth -= 1
            if depth == 0:
                return i
    raise ValueError("unbalanced")


def strip_comments_mask(src):
    """Indices inside // comments (so orderings named in comments are ignored)."""
    mask = bytearray(len(src))
    for m in re.finditer(r"//[^\n]*", src):
        for i in range(m.start(), m.end()):
            mask[i] = 1
    return mask


# Auto variants deliberately not run, with the reason (shown by --list).
NOT_SHIPPING = {
    "runtime/src/scheduler/multi_thread/idle.rs:counts": "#[cfg(test)] helper",
}


def auto_variants():
    out = []
    for rel in FILES:
        path = os.path.join(ROOT, rel)
        if not os.path.exists(path):
            continue
        src = open(path).read()
        # Unit tests at the end of a file are not shipping code.
        end = len(src)
        m = re.search(r"\n#\[cfg\((all\()?test", src)
        if m:
            end = m.start()
        mask = strip_comments_mask(src)
        for call in CALL.finditer(src, 0, end):
            if mask[call.start()]:
                continue
            op = call.group(1)
            lparen = call.end() - 1
            rparen = matching_paren(src, lparen)
            args = src[lparen:rparen]
            # A std atomic (not through the shim) is a documented exception.
            line_start = src.rfind("\n", 0, call.start()) + 1
            prefix = src[max(0, call.start() - 200):call.start()]
            if "std::sync::atomic" in args or re.search(r"\bNEXT$", prefix.strip()):
                continue
            # An ordering inside a nested atomic call (`x.store(x.load(Relaxed) + 1, ..)`)
            # is that call's, which has its own row.
            nested = [(m.start(), matching_paren(args, m.end() - 1))
                      for m in CALL.finditer(args)]
            ords = [o for o in re.finditer(ORD, args) if not mask[lparen + o.start()]
                    and not any(a0 <= o.start() <= b0 for a0, b0 in nested)]
            if not ords:
                continue
            for k, o in enumerate(ords):
                if op == "load":
                    role = "load"
                elif op == "store":
                    role = "store"
                elif op.startswith("compare_exchange"):
                    role = "rmw" if k == 0 else "fail"
                else:
                    role = "rmw"
                order = o.group(1)
                label = f"{op}" + (" success" if role == "rmw" and op.startswith("compare") else
                                   " failure" if role == "fail" else "")
                if rel in NO_LOOM:
                    # Argued rows name the word (two accesses may share a line).
                    recv = re.search(r"(\w+)\s*$", src[max(0, call.start() - 200):call.start()])
                    word = recv.group(1) if recv else "?"
                    if word == "0":  # a newtype's field: name the type
                        word = "SpinToken" if rel.endswith("spin.rs") else "RemoteSpawns"
                    label = f"`{word}` {label}"
                if rel in NO_LOOM and order == "Relaxed":
                    a = lparen + o.start()
                    lineno = src.count("\n", 0, a) + 1
                    fn = enclosing_fn(src, call.start())
                    out.append({
                        "id": f"{rel}:{lineno}:{op}:Relaxed" + (f"#{k}" if len(ords) > 1 else ""),
                        "file": rel, "line": lineno, "fn": fn,
                        "what": f"{label} Relaxed (nothing weaker)", "apply": None,
                        "src": src[line_start:src.find("\n", call.start())].strip(),
                    })
                    continue
                for w in weaker(order, role):
                    a, b = lparen + o.start(), lparen + o.end()
                    lineno = src.count("\n", 0, a) + 1
                    fn = enclosing_fn(src, call.start())
                    if f"{rel}:{fn}" in NOT_SHIPPING:
                        continue
                    vid = f"{rel}:{lineno}:{op}:{order}->{w}" + (f"#{k}" if len(ords) > 1 else "")
                    out.append({
                        "id": vid, "file": rel, "line": lineno, "fn": fn,
                        "what": f"{label} {order} -> {w}",
                        "apply": None if rel in NO_LOOM else ("span", a, b, q(rel) + w),
                        "src": src[line_start:src.find("\n", call.start())].strip(),
                    })
        out += fence_variants(rel, src, end, mask)
    return out


# A free `fence(..)` call (not a method, not the `use` list).
FENCE = re.compile(r"(?<![\w.])fence\s*\(")


def fence_variants(rel, src, end, mask):
    """A fence's one-step-weaker ordering (SeqCst -> AcqRel, AcqRel -> Acquire and ->
    Release) and the fence removed. Unlike SeqCst accesses, loom models a SeqCst fence
    (its total order), so SeqCst -> AcqRel is a different program under loom."""
    out = []
    for call in FENCE.finditer(src, 0, end):
        if mask[call.start()]:
            continue
        lparen = call.end() - 1
        rparen = matching_paren(src, lparen)
        o = re.search(ORD, src[lparen:rparen])
        if not o:
            continue
        order = o.group(1)
        a, b = lparen + o.start(), lparen + o.end()
        lineno = src.count("\n", 0, call.start()) + 1
        fn = enclosing_fn(src, call.start())
        line_start = src.rfind("\n", 0, call.start()) + 1
        line = src[line_start:src.find("\n", call.start())].strip()
        weaker_fence = {"SeqCst": ["AcqRel"], "AcqRel": ["Acquire", "Release"]}
        for w in weaker_fence.get(order, []):
            out.append({"id": f"{rel}:{lineno}:fence:{order}->{w}", "file": rel,
                        "line": lineno, "fn": fn, "what": f"fence {order} -> {w}",
                        "apply": ("span", a, b, q(rel) + w), "src": line})
        # Removed: the call becomes `()` (the statement `();`).
        out.append({"id": f"{rel}:{lineno}:fence:removed", "file": rel, "line": lineno,
                    "fn": fn, "what": f"fence({order}) removed",
                    "apply": ("span", call.start(), rparen + 1, "()"), "src": line})
    return out


def enclosing_fn(src, idx):
    fns = list(re.finditer(r"\bfn\s+(\w+)", src[:idx]))
    return fns[-1].group(1) if fns else "?"


STALL_PERMISSION = (
    "std atomic (not loom's), Relaxed suffices: the stuck-rescue permission (`poll_seq`, "
    "`stuck_seq`) only decides whether a sibling tries the LIFO slot; the task travels "
    "through the slot's own Release push / Acquire swap, and one swap wins it. A stale "
    "\"stuck\" runs the task a little early on a sibling, a stale \"not stuck\" leaves it "
    "to the owner or the monitor's next tick (worker_shared.rs module docs). The permission's "
    "logic (flag tests) is modelled: loom_lifo::stuck_worker_lifo_rescue")
STALL_METRICS = (
    "std atomic (not loom's), Relaxed suffices: the monitor's poll metrics (`Published`), "
    "written by the monitor only and read by `metrics()` as a snapshot; no memory is read "
    "on their strength (worker_shared.rs module docs)")
REMOTE_SPAWNS = (
    "std atomic (not loom's), Relaxed suffices: the remote-spawn metrics counter; no memory "
    "is read on its strength, a snapshot may see a completion before its spawn, which "
    "`live_tasks` clamps at 0; raise and lowering are RMWs, so no count is lost "
    "(argued at `RemoteSpawns`)")
SPIN_TOKEN = (
    "no loom build (the token is a no-op under loom, and a std atomic): weakened to Relaxed "
    "in the code (was AcqRel swap / Release store): the token guards no memory, only the "
    "right to spin; what a spinner reads carries its own synchronization, and \"one at a "
    "time\" rests on the swap being one RMW (argued at `SpinToken`)")
SPIN_HINT = (
    "no loom build: the pre-check load before the swap; a stale value costs a swap or a "
    "skipped spin")
MONITOR_NEEDED = (
    "no loom build (the monitor thread is not built under loom; std atomics): SeqCst "
    "needed, the store-load (Dekker) pair with the idle word: the monitor stores "
    "`sleeping = true` then loads the unparked count (SeqCst, idle.rs), a waking worker's "
    "count increment (SeqCst RMW) happens-before its load of `sleeping` in "
    "`worker_unparked`; with anything weaker both loads may read the old values and the "
    "monitor sleeps without a timeout while a worker runs (argued in monitor.rs's docs)")
MONITOR_LOCKED = (
    "no loom build (the monitor thread is not built under loom; std atomics): made under "
    "the monitor's lock, which orders every access but `worker_unparked`'s load; a stale "
    "`true` read there costs a lock and a swap that finds `false`. Relaxed would do; kept "
    "SeqCst, off the hot path (once per sleep, wake, shutdown; argued in monitor.rs's docs)")


def argued(v):
    """The argument of a NO_LOOM row (None for a variant that runs)."""
    f, fn, src = v["file"], v["fn"], v.get("src", "")
    if f not in NO_LOOM or v["apply"] is not None:
        return None
    if f.endswith("worker_shared.rs"):
        return STALL_METRICS if fn in ("publish_seen", "add_long_poll", "raise_longest",
                                       "fill") else STALL_PERMISSION
    if f.endswith("scheduler/inject.rs"):
        return REMOTE_SPAWNS
    if f.endswith("spin.rs"):
        return SPIN_HINT if "load Relaxed" in v["what"] else SPIN_TOKEN
    if f.endswith("monitor.rs"):
        if fn == "worker_unparked" or "sleeping.store(true" in src:
            return MONITOR_NEEDED
        return MONITOR_LOCKED
    return None


def manual_variants():
    out = []
    for vid, rel, old, new, what in MANUAL:
        path = os.path.join(ROOT, rel)
        src = open(path).read()
        n = src.count(old)
        lineno = src.count("\n", 0, src.find(old)) + 1 if n else 0
        out.append({
            "id": vid, "file": rel, "line": lineno,
            "fn": enclosing_fn(src, src.find(old)) if n else "?",
            "what": what, "apply": ("replace", old, new, n),
        })
    return out


def suites_for(rel):
    for prefix, suites in SUITES:
        if rel.startswith(prefix):
            return suites
    return []


# The sweep's own target dir. NOT the tree's target/loom: cargo names a path crate's
# artifacts by its path relative to the workspace, so a scratch copy's planted build would
# overwrite the tree's own artifacts there. Seeded from target/loom (registry deps).
SWEEP_TARGET = os.path.join(ROOT, "target", "sweep")


def sync_scratch(scratch):
    if not os.path.exists(SWEEP_TARGET) and os.path.exists(os.path.join(ROOT, "target", "loom")):
        subprocess.run(["cp", "-a", os.path.join(ROOT, "target", "loom"), SWEEP_TARGET],
                       check=True)
    tree = os.path.join(scratch, "tree")
    shutil.rmtree(tree, ignore_errors=True)
    shutil.rmtree(tree + ".orig", ignore_errors=True)
    # copy2 keeps mtimes, so cargo rebuilds only what a variant touches.
    shutil.copytree(ROOT, tree, symlinks=True, copy_function=shutil.copy2,
                    ignore=lambda d, names: [n for n in names if d == ROOT and n in
                                             ("target", ".git")])
    shutil.copytree(tree, tree + ".orig", symlinks=True, copy_function=shutil.copy2)
    # The copy keeps the sources' mtimes, so a workspace artifact left in SWEEP_TARGET by a
    # run that stopped with a variant applied looks newer than its (restored) source and
    # would be reused: a stale plant under every variant. The workspace's own crates are
    # rebuilt once per sweep instead (seconds; the registry deps stay).
    subprocess.run(["cargo", "clean", "--release"] +
                   [a for c in ("shim", "queue", "task", "io-driver", "runtime", "loom-tests")
                    for a in ("-p", c)],
                   cwd=tree, env=env(), capture_output=True)
    return tree


def apply(tree, v):
    path = os.path.join(tree, v["file"])
    src = open(path).read()
    kind = v["apply"][0]
    if kind == "span":
        _, a, b, new = v["apply"]
        src = src[:a] + new + src[b:]
    else:
        _, old, new, n = v["apply"]
        if n != 1:
            raise ValueError(f"{v['id']}: pattern found {n} times")
        src = src.replace(old, new)
    open(path, "w").write(src)


def restore(tree, v):
    # From the pristine copy taken at the start (the tree may be edited meanwhile, and the
    # variants' offsets were computed from the start's content).
    shutil.copyfile(os.path.join(tree + ".orig", v["file"]), os.path.join(tree, v["file"]))


def env():
    e = dict(os.environ)
    e.update({
        "RUSTFLAGS": "--cfg loom",
        "CARGO_PROFILE_RELEASE_LTO": "false",
        "CARGO_PROFILE_RELEASE_CODEGEN_UNITS": "16",
        "CARGO_PROFILE_RELEASE_DEBUG": "0",
        "CARGO_PROFILE_RELEASE_DEBUG_ASSERTIONS": "true",
        "CARGO_TARGET_DIR": SWEEP_TARGET,
        "CARGO_TERM_COLOR": "never",
        "RUST_BACKTRACE": "0",
    })
    e.setdefault("LOOM_MAX_PREEMPTIONS", "2")
    return e


def build(tree, suite):
    p = subprocess.run(
        ["cargo", "test", "-p", "loom-tests", "--release", "--test", suite, "--no-run",
         "--message-format=json"], cwd=tree, env=env(), capture_output=True, text=True)
    if p.returncode != 0:
        return None, p.stderr[-2000:]
    exe = None
    for line in p.stdout.splitlines():
        try:
            msg = json.loads(line)
        except ValueError:
            continue
        if msg.get("reason") == "compiler-artifact" and msg.get("executable") and \
                msg["target"]["name"] == suite:
            exe = msg["executable"]
    return exe, None


def list_tests(exe, only_tests, ignored):
    args = [exe, "--list"] + (["--include-ignored"] if ignored else [])
    p = subprocess.run(args, capture_output=True, text=True, env=env())
    tests = [l.split(": test")[0] for l in p.stdout.splitlines() if l.endswith(": test")]
    if only_tests:
        # In the order the filters were given (put the likely catcher first).
        picked = []
        for f in only_tests:
            picked += [t for t in tests if f in t and t not in picked]
        return picked
    # One-worker scheduler models first: they are the quick ones.
    return sorted(tests, key=lambda t: ("two_workers" in t, t))


def first_message(out):
    lines = out.splitlines()
    for i, l in enumerate(lines):
        if "panicked at" in l:
            msg = []
            for x in lines[i + 1:i + 6]:
                if not x.strip() or x.startswith(("stack backtrace", "note:")) or \
                        re.match(r"\s*\d+: ", x):
                    break
                msg.append(x.strip())
            return " ".join(msg)[:300]
    return (lines[-1] if lines else "")[:300]


def run_variant(tree, v, timeout, only_tests, only_suites=()):
    apply(tree, v)
    try:
        ran = 0
        for suite in suites_for(v["file"]):
            if only_suites and suite not in only_suites:
                continue
            exe, err = build(tree, suite)
            if exe is None:
                return "build-err", suite, "", (err or "").strip().splitlines()[-1:] or [""]
            timed_out = []
            filters = only_tests or TESTS.get(v["file"], {}).get(suite, [])
            # Ignored (slow) models run only when named with --tests.
            for t in list_tests(exe, filters, ignored=bool(only_tests)):
                ran += 1
                try:
                    p = subprocess.run([exe, "--exact", t, "--test-threads=1"] +
                                       (["--include-ignored"] if only_tests else []), env=env(),
                                       capture_output=True, text=True, timeout=timeout)
                except subprocess.TimeoutExpired:
                    timed_out.append(t)
                    continue
                if p.returncode != 0:
                    return "caught", suite, t, first_message(p.stdout + p.stderr)
            if timed_out:
                return "timeout", suite, ",".join(timed_out), ""
        return ("SURVIVES" if ran else "no-tests"), ",".join(suites_for(v["file"])), "", ""
    finally:
        restore(tree, v)


# How each variant that survived a run was resolved, keyed by (file, fn, variant text).
RESOLVED = {
    ("queue/src/local.rs", "pop", "the owner's pop gives up when a thief's claim raced it"):
        "model added: loom_local::steal_racing_pop_gets_some (the owner's pop must get one)",
    ("queue/src/local.rs", "len", "load Acquire -> Relaxed"):
        "weakened to Relaxed in the code (a hint; argued at the site)",
    ("queue/src/local.rs", "steal_into", "load Acquire -> Relaxed#first"):
        "weakened to Relaxed in the code (a guess the claim CAS validates)",
    ("queue/src/local.rs", "steal_into", "load Acquire -> Relaxed#reload"):
        "caught once the two above are Relaxed: loom_local::push_pop_vs_thief, Model "
        "exceeded maximum number of branches (a thief spinning on a stale tail); kept Acquire",
    ("queue/src/local.rs", "steal_into", "compare_exchange_weak failure Acquire -> Relaxed"):
        "weakened to Relaxed in the code (loops as on the first load)",
    ("queue/src/inject.rs", "close", "fetch_or AcqRel -> Acquire"):
        "weakened to Acquire in the code (its Release half publishes nothing; argued at the "
        "site): survives loom_inject and loom_scheduler's current_thread and shutdown models",
    ("task/src/state.rs", "drop_join_handle_fast", "compare_exchange success AcqRel -> Acquire"):
        "weakened to Relaxed in the code (in INITIAL the handle touched no cell)",
    ("task/src/state.rs", "drop_join_handle_fast", "compare_exchange success AcqRel -> Release"):
        "weakened to Relaxed in the code (as above)",
    ("runtime/src/sync/oneshot.rs", "register", "fetch_and AcqRel -> Acquire"):
        "weakened to Acquire in the code (the slot write is published by the next fetch_or)",
    ("runtime/src/sync/oneshot.rs", "close", "fetch_or AcqRel -> Acquire"):
        "weakened to Acquire in the code (a close publishes nothing)",
    ("runtime/src/sync/oneshot.rs", "is_closed", "load Acquire -> Relaxed"):
        "weakened to Relaxed in the code (a snapshot; nothing read on its strength)",
    ("queue/src/lifo.rs", "push", "store Release -> Relaxed"):
        "caught by a model added for it: loom_lifo::owner_writes_reach_the_thief (no model "
        "wrote to an item before pushing it)",
    ("queue/src/lifo.rs", "push", "swap AcqRel -> Acquire"):
        "caught by a model added for it: loom_lifo::owner_writes_reach_the_thief",
    ("queue/src/lifo.rs", "push", "swap AcqRel -> Release"):
        "weakened to Release in the code (what the swap displaces is the owner's own push "
        "or a thief's null; argued at the site)",
    ("queue/src/lifo.rs", "steal", "load Acquire -> Relaxed"):
        "weakened to Relaxed in the code (a hint: the swap that takes the item acquires it, "
        "and must, since it may take a newer item than the load saw)",
    ("queue/src/lifo.rs", "swap_out", "swap Acquire -> Relaxed"):
        "caught by a model added for it: loom_lifo::owner_writes_reach_the_thief",
    ("runtime/src/scheduler/current_thread.rs", "run_until", "store Release -> Relaxed"):
        "weakened to Relaxed in the code (only the core's holder reads `woken`)",
    ("runtime/src/scheduler/current_thread.rs", "run_until", "swap AcqRel -> Acquire"):
        "weakened to Acquire in the code (the false it writes is read only by this thread)",
    ("runtime/src/scheduler/current_thread.rs", "run_until", "swap AcqRel -> Release"):
        "redundant with the re-check load's Acquire; that load is now Relaxed and the swap "
        "Acquire -> Relaxed is caught",
    ("runtime/src/scheduler/current_thread.rs", "run_until", "load Acquire -> Relaxed"):
        "weakened to Relaxed in the code (a true it reads is read again by the swap)",
    ("io-driver/src/readiness.rs", "clear_readiness", "a clear's CAS gives up when it raced"):
        "harmless, argued: a clear that gives up leaves readiness set, so the next poll "
        "returns it, the I/O operation meets WouldBlock again and clears again (one spurious "
        "round); no event can be lost by clearing less",
}


def print_table(variants, files):
    """The results as recorded (line numbers of the code they ran on), then the current
    variants no result covers, as 'not run'."""
    latest = {}
    for path in files:
        for line in open(path):
            rec = json.loads(line)
            latest[rec["id"]] = rec
    print("| operation (file:line, fn) | variant | result | catching test, loom's message |")
    print("|---|---|---|---|")
    seen = set()
    steal_loads = 0
    for r in latest.values():
        what = r["what"]
        key = (r["file"], r["fn"], what)
        if key == ("queue/src/local.rs", "steal_into", "load Acquire -> Relaxed") and \
                r["status"] == "SURVIVES":
            steal_loads += 1
            key = (r["file"], r["fn"], what + ("#first" if steal_loads == 1 else "#reload"))
        seen.add((r["file"], r["fn"], what))
        status = r["status"]
        detail = f"{r['suite']}::{r['test']}: {r['message']}" if r["test"] else r["suite"]
        if status == "SURVIVES" and key in RESOLVED:
            status, detail = "survived", RESOLVED[key]
        detail = detail.replace("|", "\\|")
        print(f"| `{r['file']}:{r['line']}` `{r['fn']}` | {what} | {status} | {detail} |")
    for v in variants:
        if (v["file"], v["fn"], v["what"]) not in seen:
            note = ""
            if "SeqCst ->" in v["what"] and not v["what"].startswith("fence"):
                note = ("loom-blind: loom models SeqCst accesses as AcqRel "
                        "(tokio-rs/loom#180), so this variant is the same model; argued "
                        "instead (README: which SeqCst is a store-load pattern, which "
                        "AcqRel would do)")
            elif v["id"] == "plant:no-notify-others-on-park-exit":
                note = "unreachable under loom (only the driver queues onto a parked worker)"
            if argued(v):
                print(f"| `{v['file']}:{v['line']}` `{v['fn']}` | {v['what']} | argued | "
                      f"{argued(v)} |")
                continue
            print(f"| `{v['file']}:{v['line']}` `{v['fn']}` | {v['what']} | not run | {note} |")


def main():
    ap = argparse.ArgumentParser(description=__doc__,
                                 formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--scratch", default="/tmp/loom-sweep")
    ap.add_argument("--out")
    ap.add_argument("--only", action="append", default=[],
                    help="run variants whose id contains this (repeatable)")
    ap.add_argument("--skip", action="append", default=[],
                    help="skip variants whose id contains this (repeatable)")
    ap.add_argument("--tests", action="append", default=[],
                    help="run only tests whose name contains this (repeatable)")
    ap.add_argument("--suites", action="append", default=[],
                    help="build and run only these suites of a variant's list (repeatable; "
                         "e.g. the one suite whose models the --tests filters name)")
    ap.add_argument("--timeout", type=int, default=180, help="seconds per test")
    ap.add_argument("--list", action="store_true")
    ap.add_argument("--table", metavar="JSONL", action="append",
                    help="print the Markdown table of these results (latest per variant, "
                         "in sweep order, 'not run' for the rest) and exit")
    a = ap.parse_args()

    variants = manual_variants() + auto_variants()
    if a.table:
        print_table(variants, a.table)
        return
    if a.only:
        variants = [v for v in variants if any(s in v["id"] for s in a.only)]
    variants = [v for v in variants if not any(s in v["id"] for s in a.skip)]
    if a.list:
        for v in variants:
            print(f"{v['id']}\t{v['fn']}\t{v['what']}\t{','.join(suites_for(v['file']))}")
        print(f"{len(variants)} variants", file=sys.stderr)
        return
    os.makedirs(a.scratch, exist_ok=True)
    out = a.out or os.path.join(a.scratch, "results.jsonl")
    tree = sync_scratch(a.scratch)
    for v in variants:
        if v["apply"] is None:
            # A NO_LOOM row: argued, nothing to run.
            print(f"| `{v['file']}:{v['line']}` {v['fn']} | {v['what']} | argued | |",
                  flush=True)
            continue
        t0 = time.time()
        status, suite, test, msg = run_variant(tree, v, a.timeout, a.tests, a.suites)
        rec = {"id": v["id"], "file": v["file"], "line": v["line"], "fn": v["fn"],
               "what": v["what"], "status": status, "suite": suite, "test": test,
               "message": msg, "secs": round(time.time() - t0),
               "bound": env()["LOOM_MAX_PREEMPTIONS"]}
        with open(out, "a") as f:
            f.write(json.dumps(rec) + "\n")
        print(f"| `{v['file']}:{v['line']}` {v['fn']} | {v['what']} | {status} | "
              f"{suite} {test} | {msg} |", flush=True)


if __name__ == "__main__":
    main()
