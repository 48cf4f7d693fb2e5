//! Allocation in the runner's steady state, counted by a global allocator: the extra
//! allocations of a longer encounter against its extra trace events. The scenario is a long
//! Frontiers duel driven by the HoldBack and Aggressive policies (attacks, checks, reactions,
//! pool steps, limits); other paths (the Random policy, choices, scripts) are not covered here.

use std::alloc::{GlobalAlloc, Layout, System};
use std::sync::atomic::{AtomicU64, Ordering};

struct Counting;

static ALLOCATIONS: AtomicU64 = AtomicU64::new(0);

unsafe impl GlobalAlloc for Counting {
    unsafe fn alloc(&self, layout: Layout) -> *mut u8 {
        ALLOCATIONS.fetch_add(1, Ordering::Relaxed);
        unsafe { System.alloc(layout) }
    }

    unsafe fn dealloc(&self, ptr: *mut u8, layout: Layout) {
        unsafe { System.dealloc(ptr, layout) }
    }

    unsafe fn realloc(&self, ptr: *mut u8, layout: Layout, new_size: usize) -> *mut u8 {
        ALLOCATIONS.fetch_add(1, Ordering::Relaxed);
        unsafe { System.realloc(ptr, layout, new_size) }
    }
}

#[global_allocator]
static GLOBAL: Counting = Counting;

/// (allocations, trace events) of a duel of `rounds` rounds where nobody falls.
fn duel(ruleset: &tempo::ir::Ruleset, rounds: u32) -> (u64, u64) {
    let text = format!(
        r#"(seed: 5, rounds: {rounds}, participants: [
  (name: "A", side: "a", stats: {{"hp_max": 1000000, "damage": 1}}, position: 0, controller: Policy(HoldBack(pool: "ap", keep: 1))),
  (name: "B", side: "b", stats: {{"hp_max": 1000000, "damage": 1}}, position: 1, controller: Policy(Aggressive)),
])"#
    );
    let scenario = tempo::run::scenario::parse(&text).unwrap();
    let before = ALLOCATIONS.load(Ordering::Relaxed);
    let records = tempo::run::run(ruleset, &scenario, None).unwrap();
    let after = ALLOCATIONS.load(Ordering::Relaxed);
    (after - before, records.len() as u64)
}

#[test]
fn steady_state_allocations_per_event_are_measured() {
    let c = tempo::check::compile_path(std::path::Path::new("rulesets/frontiers.rules"));
    let ruleset = c.ruleset.unwrap();
    let (a1, e1) = duel(&ruleset, 200);
    let (a2, e2) = duel(&ruleset, 400);
    let per_event = (a2 - a1) as f64 / (e2 - e1) as f64;
    println!(
        "steady state: {:.3} allocations per event ({} events more, {} allocations more)",
        per_event,
        e2 - e1,
        a2 - a1
    );
    assert!(e2 > e1 + 1000, "the duel must go on for the whole run");
    // Nothing per event: the only extra allocations of a longer run are the trace's own vector
    // growing (it doubles, so a few at most). Measured 1 on 2026-11-21.
    assert!(a2 - a1 <= 4, "{} allocations for {} more events ({per_event:.3} per event)", a2 - a1, e2 - e1);
}
