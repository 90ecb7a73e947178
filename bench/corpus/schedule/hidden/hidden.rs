//! Hidden tests of `schedule`: further command sequences, judged on the finishing order.

use schedule::Command::*;
use schedule::{Command, Scheduler, run, select};

#[test]
fn flush_of_initial_jobs_is_priority_then_creation_order() {
    assert_eq!(run([2, 2, 2], &[Flush]), vec![1, 2, 3, 4, 5, 6]);
    assert_eq!(run([3, 0, 1], &[Flush]), vec![1, 2, 3, 4]);
    assert_eq!(run([0, 0, 0], &[Flush, Finish]), Vec::<u32>::new());
}

#[test]
fn repeated_upgrades_reach_the_top() {
    let commands = [UpgradePrio(1, 1000), UpgradePrio(2, 1000), Finish, Flush];
    // Priority 1 holds 2, 3, 4 (job 1 is priority 2); job 4 climbs to the top.
    assert_eq!(run([3, 1, 0], &commands), vec![4, 1, 2, 3]);
    let commands = [
        UpgradePrio(1, 0),
        UpgradePrio(1, 0),
        UpgradePrio(2, 500),
        Flush,
    ];
    assert_eq!(run([3, 0, 0], &commands), vec![2, 1, 3]);
}

#[test]
fn round_robin_at_one_priority() {
    let commands = [
        QuantumExpire,
        QuantumExpire,
        Finish,
        QuantumExpire,
        Finish,
        Finish,
    ];
    assert_eq!(run([0, 3, 0], &commands), vec![3, 2, 1]);
    let commands = [QuantumExpire, Finish, NewJob(3), QuantumExpire, Flush];
    assert_eq!(run([0, 0, 2], &commands), vec![2, 3, 1]);
}

#[test]
fn unblocking_from_the_middle_of_the_blocked_queue() {
    let commands = [
        Block,
        Block,
        Block,
        Block,
        Unblock(500),
        Finish,
        Unblock(750),
        Flush,
    ];
    // Blocked: 1, 2, 3, 4; ratio 500 of 4 picks 3; then 750 of 3 picks index 2: job 4.
    assert_eq!(run([1, 1, 2], &commands), vec![3, 4]);
    let mut s = Scheduler::with_jobs([1, 1, 2]);
    for command in commands {
        s.execute(command);
    }
    assert_eq!(s.blocked_ids(), vec![1, 2]);
    assert_eq!(s.len(), 2);
}

#[test]
fn selection_on_larger_queues() {
    assert_eq!(select(7, 0), Some(0));
    assert_eq!(select(7, 142), Some(0));
    assert_eq!(select(7, 143), Some(1));
    assert_eq!(select(7, 857), Some(5));
    assert_eq!(select(7, 858), Some(6));
    assert_eq!(select(2, 500), Some(1));
    assert_eq!(select(2, 499), Some(0));
    assert_eq!(select(100, 1000), Some(99));
    assert_eq!(select(5, 2000), None);
}

#[test]
fn decoded_session() {
    let codes: [&[u32]; 9] = [
        &[1, 1],
        &[1, 3],
        &[3],
        &[5],
        &[2, 1, 1000],
        &[6],
        &[4, 0],
        &[9],
        &[7],
    ];
    let mut commands = Vec::new();
    for code in codes {
        if let Some(command) = Command::decode(code) {
            commands.push(command);
        }
    }
    assert_eq!(commands.len(), 8);
    // Initially 1 (prio 2), 2 (prio 1); new 3 (prio 1), 4 (prio 3, blocked at once); 3 is
    // raised to 2 behind 1; 4 comes back before the flush.
    assert_eq!(run([1, 1, 0], &commands), vec![1, 4, 3, 2]);
}
