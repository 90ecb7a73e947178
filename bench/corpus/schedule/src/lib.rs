//! A priority scheduler in the manner of the Siemens suite's `schedule` (the process
//! scheduler of Hutchins et al.'s test-adequacy study).
//!
//! Processes wait in three ready queues, one per priority (1 lowest, 3 highest), or in the
//! blocked queue. The current process is the head of the highest non-empty ready queue.
//! Commands create jobs, raise a job's priority, block and unblock the current job, rotate
//! it at the end of its quantum, and finish it. Where a command picks a job inside a queue
//! it names it by a ratio of the queue's length, given in thousandths (no floating point):
//! 0 is the head, 1000 the tail.

// Bounds are spelled as explicit comparisons and options as explicit matches: the code
// under test stays in instrumented expressions, not in library calls and closures.
#![allow(clippy::manual_range_contains, clippy::manual_map, clippy::manual_find)]

use autodebug_runtime::autodebug;

/// Number of priority levels; priorities run from 1 (lowest) to `PRIORITIES` (highest).
pub const PRIORITIES: usize = 3;
/// Denominator of ratios: a ratio of `RATIO_SCALE` selects the last job of a queue.
pub const RATIO_SCALE: u32 = 1000;

/// One command of the scheduler's input.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Command {
    /// Create a job of the given priority at the tail of its queue.
    NewJob(usize),
    /// Move the job selected by the ratio from the queue of the given priority to the tail
    /// of the next higher one.
    UpgradePrio(usize, u32),
    /// Move the current job to the blocked queue.
    Block,
    /// Move the blocked job selected by the ratio back to the tail of its ready queue.
    Unblock(u32),
    /// Move the current job to the tail of its ready queue.
    QuantumExpire,
    /// Remove the current job: it is done.
    Finish,
    /// Finish every ready job, in scheduling order.
    Flush,
}

/// A job: its id (1, 2, … in order of creation) and its priority.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Process {
    /// Id, unique within a scheduler.
    pub id: u32,
    /// Priority, 1 to [`PRIORITIES`].
    pub prio: usize,
}

/// The scheduler's state; the default has no jobs.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct Scheduler {
    /// `ready[p - 1]` holds the ready jobs of priority `p`, head first.
    ready: [Vec<Process>; PRIORITIES],
    /// Blocked jobs, in order of blocking.
    blocked: Vec<Process>,
    /// Id of the last job created.
    last_id: u32,
}

#[autodebug]
impl Command {
    /// Decodes the original program's numeric command: a code and its arguments.
    /// `1 prio` new job, `2 prio ratio` upgrade, `3` block, `4 ratio` unblock, `5` quantum
    /// expire, `6` finish, `7` flush. `None` for an unknown code or a wrong argument count.
    pub fn decode(codes: &[u32]) -> Option<Command> {
        let (&code, args) = codes.split_first()?;
        let command = match code {
            1 if args.len() == 1 => Command::NewJob(args[0] as usize),
            2 if args.len() == 2 => Command::UpgradePrio(args[0] as usize, args[1]),
            3 if args.is_empty() => Command::Block,
            4 if args.len() == 1 => Command::Unblock(args[0]),
            5 if args.is_empty() => Command::QuantumExpire,
            6 if args.is_empty() => Command::Finish,
            7 if args.is_empty() => Command::Flush,
            _ => return None,
        };
        Some(command)
    }
}

/// The position a ratio (in thousandths) selects in a queue of `len` jobs: `len * ratio /
/// 1000`, kept inside the queue so that 1000 selects the tail. `None` for an empty queue or
/// a ratio above [`RATIO_SCALE`].
#[autodebug]
pub fn select(len: usize, ratio: u32) -> Option<usize> {
    if len == 0 || ratio > RATIO_SCALE {
        return None;
    }
    let index = len * ratio as usize / RATIO_SCALE as usize;
    if index >= len {
        Some(len - 1)
    } else {
        Some(index)
    }
}

#[autodebug]
impl Scheduler {
    /// A scheduler with `counts[p - 1]` jobs of priority `p`, created (and numbered) from
    /// the highest priority down, as the original program does with its arguments.
    pub fn with_jobs(counts: [usize; PRIORITIES]) -> Scheduler {
        let mut scheduler = Scheduler::default();
        for prio in (1..=PRIORITIES).rev() {
            for _ in 0..counts[prio - 1] {
                scheduler.new_job(prio);
            }
        }
        scheduler
    }

    /// Creates a job of priority `prio` at the tail of its queue and returns its id;
    /// `None` (and no job) when `prio` is not a priority.
    pub fn new_job(&mut self, prio: usize) -> Option<u32> {
        if prio < 1 || prio > PRIORITIES {
            return None;
        }
        self.last_id += 1;
        let id = self.last_id;
        self.ready[prio - 1].push(Process { id, prio });
        Some(id)
    }

    /// Priority of the highest non-empty ready queue.
    pub fn current_prio(&self) -> Option<usize> {
        for prio in (1..=PRIORITIES).rev() {
            if !self.ready[prio - 1].is_empty() {
                return Some(prio);
            }
        }
        None
    }

    /// Id of the current job: the head of the highest non-empty ready queue.
    pub fn current(&self) -> Option<u32> {
        match self.current_prio() {
            Some(prio) => Some(self.ready[prio - 1][0].id),
            None => None,
        }
    }

    /// Removes the current job from its ready queue.
    fn take_current(&mut self) -> Option<Process> {
        let prio = self.current_prio()?;
        Some(self.ready[prio - 1].remove(0))
    }

    /// Moves the job selected by `ratio` in the queue of priority `prio` to the tail of the
    /// queue of priority `prio + 1`. Whether a job moved (the highest priority cannot be
    /// raised).
    pub fn upgrade_prio(&mut self, prio: usize, ratio: u32) -> bool {
        if prio < 1 || prio >= PRIORITIES {
            return false;
        }
        let Some(index) = select(self.ready[prio - 1].len(), ratio) else {
            return false;
        };
        let mut process = self.ready[prio - 1].remove(index);
        process.prio = prio + 1;
        self.ready[prio].push(process);
        true
    }

    /// Moves the current job to the blocked queue. Whether there was one.
    pub fn block(&mut self) -> bool {
        match self.take_current() {
            Some(process) => {
                self.blocked.push(process);
                true
            }
            None => false,
        }
    }

    /// Moves the blocked job selected by `ratio` to the tail of its ready queue. Whether a
    /// job moved.
    pub fn unblock(&mut self, ratio: u32) -> bool {
        let Some(index) = select(self.blocked.len(), ratio) else {
            return false;
        };
        let process = self.blocked.remove(index);
        self.ready[process.prio - 1].push(process);
        true
    }

    /// Moves the current job to the tail of its ready queue. Whether there was one.
    pub fn quantum_expire(&mut self) -> bool {
        match self.take_current() {
            Some(process) => {
                self.ready[process.prio - 1].push(process);
                true
            }
            None => false,
        }
    }

    /// Removes the current job and returns its id.
    pub fn finish(&mut self) -> Option<u32> {
        let process = self.take_current()?;
        Some(process.id)
    }

    /// Finishes every ready job, in scheduling order; blocked jobs stay blocked.
    pub fn flush(&mut self) -> Vec<u32> {
        let mut done = Vec::new();
        while let Some(id) = self.finish() {
            done.push(id);
        }
        done
    }

    /// Ids of the ready jobs of priority `prio`, head first (empty for a non-priority).
    pub fn ready_ids(&self, prio: usize) -> Vec<u32> {
        let mut ids = Vec::new();
        if prio >= 1 && prio <= PRIORITIES {
            for process in &self.ready[prio - 1] {
                ids.push(process.id);
            }
        }
        ids
    }

    /// Ids of the blocked jobs, in order of blocking.
    pub fn blocked_ids(&self) -> Vec<u32> {
        self.blocked.iter().map(|process| process.id).collect()
    }

    /// Number of jobs not finished, ready or blocked.
    pub fn len(&self) -> usize {
        let mut total = self.blocked.len();
        for queue in &self.ready {
            total += queue.len();
        }
        total
    }

    /// Whether every job has finished.
    pub fn is_empty(&self) -> bool {
        self.len() == 0
    }

    /// Executes one command; returns the ids of the jobs it finished. Commands that do not
    /// apply (bad priority or ratio, nothing to act on) change nothing.
    pub fn execute(&mut self, command: Command) -> Vec<u32> {
        let mut done = Vec::new();
        match command {
            Command::NewJob(prio) => {
                self.new_job(prio);
            }
            Command::UpgradePrio(prio, ratio) => {
                self.upgrade_prio(prio, ratio);
            }
            Command::Block => {
                self.block();
            }
            Command::Unblock(ratio) => {
                self.unblock(ratio);
            }
            Command::QuantumExpire => {
                self.quantum_expire();
            }
            Command::Finish => {
                if let Some(id) = self.finish() {
                    done.push(id);
                }
            }
            Command::Flush => done = self.flush(),
        }
        done
    }
}

/// The original program's whole run: jobs created from `counts`, then `commands`; the
/// ids of the jobs in the order they finished.
#[autodebug]
pub fn run(counts: [usize; PRIORITIES], commands: &[Command]) -> Vec<u32> {
    let mut scheduler = Scheduler::with_jobs(counts);
    let mut finished = Vec::new();
    for &command in commands {
        let done = scheduler.execute(command);
        for id in done {
            finished.push(id);
        }
    }
    finished
}

#[cfg(test)]
mod tests {
    use super::*;
    use Command::*;

    #[test]
    fn select_scales_the_ratio_to_the_queue() {
        assert_eq!(select(0, 0), None);
        assert_eq!(select(0, 500), None);
        assert_eq!(select(1, 0), Some(0));
        assert_eq!(select(1, 1000), Some(0));
        assert_eq!(select(4, 0), Some(0));
        assert_eq!(select(4, 249), Some(0));
        assert_eq!(select(4, 250), Some(1));
        assert_eq!(select(4, 500), Some(2));
        assert_eq!(select(4, 999), Some(3));
        assert_eq!(select(4, 1000), Some(3));
        assert_eq!(select(4, 1001), None);
        assert_eq!(select(3, 667), Some(2));
        assert_eq!(select(10, 333), Some(3));
    }

    #[test]
    fn decodes_numeric_commands() {
        assert_eq!(Command::decode(&[1, 3]), Some(NewJob(3)));
        assert_eq!(Command::decode(&[2, 1, 500]), Some(UpgradePrio(1, 500)));
        assert_eq!(Command::decode(&[3]), Some(Block));
        assert_eq!(Command::decode(&[4, 250]), Some(Unblock(250)));
        assert_eq!(Command::decode(&[5]), Some(QuantumExpire));
        assert_eq!(Command::decode(&[6]), Some(Finish));
        assert_eq!(Command::decode(&[7]), Some(Flush));
        assert_eq!(Command::decode(&[]), None);
        assert_eq!(Command::decode(&[0]), None);
        assert_eq!(Command::decode(&[8]), None);
        assert_eq!(Command::decode(&[1]), None);
        assert_eq!(Command::decode(&[2, 1]), None);
        assert_eq!(Command::decode(&[3, 1]), None);
        assert_eq!(Command::decode(&[4]), None);
        assert_eq!(Command::decode(&[7, 7]), None);
    }

    #[test]
    fn initial_jobs_are_numbered_from_the_highest_priority() {
        let s = Scheduler::with_jobs([2, 1, 3]);
        assert_eq!(s.ready_ids(3), vec![1, 2, 3]);
        assert_eq!(s.ready_ids(2), vec![4]);
        assert_eq!(s.ready_ids(1), vec![5, 6]);
        assert_eq!(s.ready_ids(0), Vec::<u32>::new());
        assert_eq!(s.ready_ids(4), Vec::<u32>::new());
        assert_eq!(s.len(), 6);
        assert_eq!(s.current(), Some(1));
        let t = Scheduler::with_jobs([1, 0, 0]);
        assert_eq!(t.ready_ids(1), vec![1]);
        assert_eq!(t.current_prio(), Some(1));
        assert!(Scheduler::with_jobs([0, 0, 0]).is_empty());
    }

    #[test]
    fn new_jobs_go_to_the_tail_of_their_queue() {
        let mut s = Scheduler::default();
        assert_eq!(s.current(), None);
        assert_eq!(s.current_prio(), None);
        assert_eq!(s.new_job(1), Some(1));
        assert_eq!(s.current(), Some(1));
        assert_eq!(s.new_job(0), None);
        assert_eq!(s.new_job(4), None);
        assert_eq!(s.new_job(2), Some(2));
        assert_eq!(s.new_job(2), Some(3));
        assert_eq!(s.new_job(3), Some(4));
        assert_eq!(s.ready_ids(2), vec![2, 3]);
        assert_eq!(s.current(), Some(4));
        assert_eq!(s.current_prio(), Some(3));
        assert_eq!(s.len(), 4);
        assert!(!s.is_empty());
    }

    #[test]
    fn finish_takes_the_head_of_the_highest_queue() {
        let mut s = Scheduler::with_jobs([1, 1, 1]);
        assert_eq!(s.finish(), Some(1));
        assert_eq!(s.current_prio(), Some(2));
        assert_eq!(s.finish(), Some(2));
        assert_eq!(s.finish(), Some(3));
        assert_eq!(s.finish(), None);
        assert!(s.is_empty());
        assert_eq!(
            run([2, 2, 2], &[Finish, Finish, Finish, Finish]),
            vec![1, 2, 3, 4]
        );
    }

    #[test]
    fn quantum_expiry_rotates_within_a_priority() {
        let mut s = Scheduler::with_jobs([0, 0, 3]);
        assert!(s.quantum_expire());
        assert_eq!(s.ready_ids(3), vec![2, 3, 1]);
        assert!(s.quantum_expire());
        assert_eq!(s.current(), Some(3));
        assert!(!Scheduler::default().quantum_expire());
        assert_eq!(
            run([2, 1, 0], &[QuantumExpire, Finish, QuantumExpire, Flush]),
            vec![1, 3, 2]
        );
    }

    #[test]
    fn upgrade_moves_the_selected_job_up_one_level() {
        let mut s = Scheduler::with_jobs([4, 1, 0]);
        // Priority 1 holds 2, 3, 4, 5; ratio 500 selects index 2: job 4.
        assert!(s.upgrade_prio(1, 500));
        assert_eq!(s.ready_ids(1), vec![2, 3, 5]);
        assert_eq!(s.ready_ids(2), vec![1, 4]);
        assert!(s.upgrade_prio(2, 1000));
        assert_eq!(s.ready_ids(2), vec![1]);
        assert_eq!(s.ready_ids(3), vec![4]);
        assert_eq!(s.current(), Some(4));
        assert!(!s.upgrade_prio(3, 0));
        assert!(!s.upgrade_prio(0, 0));
        assert!(!s.upgrade_prio(1, 1001));
        assert_eq!(s.flush(), vec![4, 1, 2, 3, 5]);
        assert!(!s.upgrade_prio(1, 0));
    }

    #[test]
    fn upgraded_jobs_keep_their_new_priority() {
        // Job 1 is raised to 2, blocked, unblocked: it returns to priority 2, so it still
        // runs before job 2.
        let commands = [UpgradePrio(1, 0), Block, Unblock(0), Finish, Finish, Finish];
        assert_eq!(run([2, 0, 0], &commands), vec![1, 2]);
        let commands = [UpgradePrio(1, 999), QuantumExpire, NewJob(2), Flush];
        assert_eq!(run([3, 0, 0], &commands), vec![3, 4, 1, 2]);
        // Job 2 is raised behind job 1; rotating twice brings job 1 back to the head.
        let commands = [
            UpgradePrio(1, 0),
            QuantumExpire,
            QuantumExpire,
            Finish,
            Finish,
        ];
        assert_eq!(run([1, 1, 0], &commands), vec![1, 2]);
    }

    #[test]
    fn block_and_unblock_by_ratio() {
        let mut s = Scheduler::with_jobs([0, 0, 4]);
        assert!(s.block());
        assert!(s.block());
        assert!(s.block());
        assert_eq!(s.blocked_ids(), vec![1, 2, 3]);
        assert_eq!(s.current(), Some(4));
        assert!(s.unblock(400));
        assert_eq!(s.blocked_ids(), vec![1, 3]);
        assert_eq!(s.ready_ids(3), vec![4, 2]);
        assert!(!s.unblock(1001));
        assert!(s.unblock(1000));
        assert_eq!(s.blocked_ids(), vec![1]);
        assert_eq!(s.len(), 4);
        assert_eq!(s.flush(), vec![4, 2, 3]);
        assert_eq!(s.len(), 1);
        assert!(!s.block());
        assert!(s.unblock(0));
        assert!(!s.unblock(0));
        assert_eq!(s.finish(), Some(1));
    }

    #[test]
    fn blocked_jobs_survive_a_flush() {
        let commands = [Block, Flush, Unblock(0), NewJob(1), Flush];
        assert_eq!(run([1, 1, 1], &commands), vec![2, 3, 1, 4]);
        assert_eq!(run([0, 0, 1], &[Block, Block, Flush]), Vec::<u32>::new());
    }

    #[test]
    fn invalid_commands_change_nothing() {
        let commands = [
            NewJob(0),
            NewJob(9),
            UpgradePrio(3, 0),
            Unblock(0),
            Block,
            Flush,
        ];
        assert_eq!(run([1, 1, 0], &commands), vec![2]);
        let mut s = Scheduler::with_jobs([1, 0, 1]);
        let before = s.clone();
        assert_eq!(s.execute(UpgradePrio(2, 0)), Vec::<u32>::new());
        assert_eq!(s.execute(Unblock(500)), Vec::<u32>::new());
        assert_eq!(s, before);
        assert_eq!(s.execute(Finish), vec![1]);
        assert_eq!(s.execute(NewJob(1)), Vec::<u32>::new());
        assert_eq!(s.execute(Flush), vec![2, 3]);
        assert_eq!(s.execute(Finish), Vec::<u32>::new());
    }

    #[test]
    fn a_mixed_session() {
        let commands = [
            NewJob(3),
            QuantumExpire,
            Block,
            UpgradePrio(1, 500),
            Finish,
            Unblock(1000),
            QuantumExpire,
            NewJob(2),
            Finish,
            UpgradePrio(2, 0),
            Flush,
        ];
        assert_eq!(run([3, 2, 1], &commands), vec![1, 7, 2, 3, 5, 8, 4, 6]);
    }
}
