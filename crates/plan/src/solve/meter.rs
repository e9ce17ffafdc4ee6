//! The one work and time account of a solve: every loop whose work grows
//! with the problem (greedy passes, the searches, window repair, the DSA-RP
//! replay) books its work here and stops when the [`Budget`] is spent.
//!
//! Work is counted in *units*: one search node, one buffer placed by a
//! greedy pass, or 64 obstacles (placed buffers, candidate offsets)
//! examined. [`Budget::node_limit`] caps the units of the whole solve, so a
//! node limit cuts every solver at the same point on every machine (and
//! with any number of threads). The time limit is read from the clock every
//! [`CHECK_EVERY`] units, which keeps the overshoot to microseconds of
//! work; the clock can be replaced ([`Budget::with_clock`]) so tests can
//! spend time without waiting for it.
//!
//! A stop flag ([`Budget::with_stop`]) is read with the clock: once set,
//! time counts as up, so an interrupted solve ends like a timed-out one.
//!
//! The deadline is 95 % of the time limit: the last 5 % is left for what
//! follows the search (the outcome's bound and penalty, the caller's
//! validation), so the whole solve ends within the limit plus a little.
//!
//! Once spent, a meter stays spent: every later charge fails, and solvers
//! return the best placement they completed (or a bump allocation, see
//! `super::fallback`), reported as cut short.

use std::cell::{Cell, RefCell};
use std::sync::atomic::{AtomicBool, AtomicU64, AtomicU8, Ordering};
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};

use super::Budget;
use crate::bound::Bound;

/// Units of work between two reads of the clock.
pub(crate) const CHECK_EVERY: u64 = 256;

/// Obstacles examined per unit of work.
pub(crate) const OBSTACLES_PER_UNIT: u64 = 64;

/// A clock for budgets: time elapsed since an origin the clock chooses.
/// The default reads [`Instant`]; tests inject a clock that advances with
/// each read.
pub type Clock = fn() -> Duration;

/// The real clock: time since a process-wide origin (one origin for all
/// threads, since a portfolio's members compare their readings with a
/// deadline set on the thread that started them).
fn real_clock() -> Duration {
    static ORIGIN: std::sync::OnceLock<Instant> = std::sync::OnceLock::new();
    ORIGIN.get_or_init(Instant::now).elapsed()
}

/// Work and time spent by one solve (or one member of a portfolio) against
/// its budget. Not shared between threads; a portfolio gives every member
/// its own meter and a shared race bound.
pub(crate) struct Meter<'a> {
    clock: Clock,
    /// Clock reading at which time is up (`None`: no time limit).
    deadline: Option<Duration>,
    /// Units this meter may book: the budget's node limit, or a
    /// sub-search's work cap (see [`Meter::sub`]).
    limit: u64,
    /// True when the solve's budget has a node limit (inherited by every
    /// sub-meter): work alone must bound every step, so the result does
    /// not depend on the machine. A sub-meter's work cap does not set it.
    node_limited: bool,
    used: Cell<u64>,
    next_check: Cell<u64>,
    spent: Cell<bool>,
    /// A portfolio's race: the least work with which a member proved the
    /// goal. A member past it cannot win any more and stops.
    race: Option<&'a AtomicU64>,
    /// A stop request, read with the clock.
    stop: Option<&'static AtomicBool>,
    /// A portfolio's pacing between its members (see [`Pace`]), and this
    /// meter's member number.
    pace: Option<(&'a Pace, u8)>,
    /// When this member last ran on (for the pause of a paced member).
    resumed: Cell<Option<Instant>>,
    /// The highest lower bound proven during the solve (see
    /// [`Meter::prove`]), one record shared by the meter and every meter
    /// made from it.
    proof: Arc<Mutex<Option<Bound>>>,
    /// Why this meter was given up before its deadline (see
    /// [`Meter::give_up`]); its own, not shared with sub-meters: a window
    /// that gives up does not end the solve.
    gave_up: RefCell<Option<String>>,
}

/// Pacing between members of a portfolio racing on shared cores: while
/// one member leads, every other one pauses at each clock check for three
/// times as long as it ran since the last one, so the leader gets most of
/// a core that the others share with it (or with other processes). A
/// member may lead from the start ([`Pace::led_by`]); a member whose
/// search reports that it is close to a full placement
/// ([`Meter::progress`]) takes the lead. Pauses change only when work
/// happens, never how much or which: results under a node limit stay the
/// same.
#[derive(Default)]
pub(crate) struct Pace {
    /// The leading member's number (0: nobody leads yet).
    leader: AtomicU8,
}

impl Pace {
    /// A pace led by `member` from the start (until another member
    /// reports progress).
    pub(crate) fn led_by(member: u8) -> Pace {
        Pace {
            leader: AtomicU8::new(member),
        }
    }

    /// Longest single pause: keeps the follower responsive to a stop.
    const MAX_PAUSE: Duration = Duration::from_millis(20);

    /// Slice of a pause between two reads of the race: a proof by the
    /// leader ends the pause within this, so the portfolio does not wait
    /// for a sleeping follower to join.
    const PAUSE_SLICE: Duration = Duration::from_millis(1);

    /// Pauses `member` (when another one leads) in proportion to the time
    /// it ran since `resumed`, until the `race` is decided.
    fn pause(&self, member: u8, resumed: &Cell<Option<Instant>>, race: Option<&AtomicU64>) {
        let now = Instant::now();
        let leader = self.leader.load(Ordering::Relaxed);
        if leader != 0 && leader != member {
            if let Some(r) = resumed.get() {
                let until = now + (now - r).saturating_mul(3).min(Self::MAX_PAUSE);
                let open = || race.is_none_or(|r| r.load(Ordering::Relaxed) == u64::MAX);
                loop {
                    let t = Instant::now();
                    if t >= until || !open() {
                        break;
                    }
                    std::thread::sleep((until - t).min(Self::PAUSE_SLICE));
                }
            }
            resumed.set(Some(Instant::now()));
        } else {
            resumed.set(Some(now));
        }
    }
}

impl<'a> Meter<'a> {
    /// A meter for `budget`, its time counted from now.
    pub(crate) fn new(budget: &Budget) -> Meter<'static> {
        let clock = budget.clock.unwrap_or(real_clock);
        let now = clock();
        Meter {
            clock,
            // A limit too long for the clock's range is no limit (the
            // `time_limit` field may be set to anything, `Duration::MAX`
            // included).
            deadline: budget
                .time_limit
                .and_then(|d| now.checked_add(d.mul_f64(0.95))),
            limit: budget.node_limit.unwrap_or(u64::MAX),
            node_limited: budget.node_limit.is_some(),
            used: Cell::new(0),
            next_check: Cell::new(CHECK_EVERY),
            spent: Cell::new(false),
            race: None,
            stop: budget.stop,
            pace: None,
            resumed: Cell::new(None),
            proof: Arc::default(),
            gave_up: RefCell::new(None),
        }
    }

    /// A meter that never runs out.
    pub(crate) fn unlimited() -> Meter<'static> {
        Meter {
            clock: real_clock,
            deadline: None,
            limit: u64::MAX,
            node_limited: false,
            used: Cell::new(0),
            next_check: Cell::new(u64::MAX),
            spent: Cell::new(false),
            race: None,
            stop: None,
            pace: None,
            resumed: Cell::new(None),
            proof: Arc::default(),
            gave_up: RefCell::new(None),
        }
    }

    /// A meter with the same deadline (cut to `within` from now, when
    /// given) and `units` of work (at most what this one has left), that
    /// also stops once its work passes the value of `race`: one member's
    /// share of a portfolio.
    pub(crate) fn share<'b>(
        &self,
        units: u64,
        within: Option<Duration>,
        race: &'b AtomicU64,
    ) -> Meter<'b>
    where
        'a: 'b,
    {
        Meter {
            race: Some(race),
            ..self.sub(within, Some(units))
        }
    }

    /// This meter paced by `pace` as member number `member` (not 0),
    /// which pauses while another member leads.
    pub(crate) fn paced(self, pace: &'a Pace, member: u8) -> Meter<'a> {
        Meter {
            pace: Some((pace, member)),
            ..self
        }
    }

    /// Reports that the member's search has placed `placed` of `total`
    /// buffers at once (its deepest so far): a member that places seven
    /// eighths takes the lead. A placement count, not work or time, so the
    /// signal is the same on every machine.
    pub(crate) fn progress(&self, placed: usize, total: usize) {
        if let Some((p, member)) = self.pace {
            if placed.saturating_mul(8) >= total.saturating_mul(7) {
                p.leader.store(member, Ordering::Relaxed);
            }
        }
    }

    /// A meter with this one's deadline cut to `within` from now and its
    /// work to `units` (for a sub-search such as a repair window). Work it
    /// books must be charged to this meter too (see [`Meter::used`]).
    ///
    /// It carries both limits: the work cap (at most what this meter has
    /// left) and the deadline. Whether the solve has a node limit is
    /// inherited, not read from the cap: a cap (or the work this meter
    /// has booked, which lowers what is left below `u64::MAX`) does not
    /// make a timed solve node-limited, so a sub-search keeps its time
    /// limit.
    pub(crate) fn sub(&self, within: Option<Duration>, units: Option<u64>) -> Meter<'a> {
        let now = (self.clock)();
        let deadline = match (self.deadline, within.and_then(|w| now.checked_add(w))) {
            (Some(d), Some(w)) => Some(d.min(w)),
            (d, None) => d,
            (None, w) => w,
        };
        Meter {
            clock: self.clock,
            deadline,
            limit: units.unwrap_or(u64::MAX).min(self.left()),
            node_limited: self.node_limited,
            used: Cell::new(0),
            next_check: Cell::new(CHECK_EVERY),
            spent: Cell::new(self.spent.get()),
            race: self.race,
            stop: self.stop,
            pace: self.pace,
            resumed: Cell::new(None),
            proof: Arc::clone(&self.proof),
            gave_up: RefCell::new(None),
        }
    }

    /// Books `units` of work; false once the budget is spent (and ever
    /// after).
    pub(crate) fn charge(&self, units: u64) -> bool {
        if self.spent.get() {
            return false;
        }
        let used = self.used.get().saturating_add(units);
        self.used.set(used);
        if used > self.limit || self.race.is_some_and(|r| used > r.load(Ordering::Relaxed)) {
            self.spent.set(true);
            return false;
        }
        if used >= self.next_check.get() {
            self.next_check.set(used.saturating_add(CHECK_EVERY));
            // Once a member has proved the goal the follower only has to
            // catch up with its work (under a node limit): no pauses.
            let open = self
                .race
                .is_none_or(|r| r.load(Ordering::Relaxed) == u64::MAX);
            if let (Some((p, member)), true) = (self.pace, open) {
                p.pause(member, &self.resumed, self.race);
            }
            if self.time_is_up() {
                self.spent.set(true);
                return false;
            }
        }
        true
    }

    /// Books the examination of `n` obstacles (rounded up to whole units
    /// only when it crosses a unit boundary, so a cheap step stays cheap).
    pub(crate) fn charge_obstacles(&self, n: usize) -> bool {
        self.charge(1 + n as u64 / OBSTACLES_PER_UNIT)
    }

    /// Reads the clock now: true when time is up (or a stop was
    /// requested).
    pub(crate) fn time_is_up(&self) -> bool {
        self.stop.is_some_and(|f| f.load(Ordering::Relaxed))
            || self.deadline.is_some_and(|d| (self.clock)() >= d)
    }

    /// True when `pending` units of work not yet booked would take this
    /// member past the race bound: it can no longer win, so a search
    /// that books its work in batches (a run of the exact search) need
    /// not finish the batch.
    pub(crate) fn outrun(&self, pending: u64) -> bool {
        self.race
            .is_some_and(|r| self.used.get().saturating_add(pending) > r.load(Ordering::Relaxed))
    }

    /// Checks the clock without booking work; false when spent.
    pub(crate) fn alive(&self) -> bool {
        if !self.spent.get() && self.time_is_up() {
            self.spent.set(true);
        }
        !self.spent.get()
    }

    /// True once the budget is spent.
    pub(crate) fn spent(&self) -> bool {
        self.spent.get()
    }

    /// Units booked so far.
    pub(crate) fn used(&self) -> u64 {
        self.used.get()
    }

    /// Units left (`u64::MAX` without a node limit).
    pub(crate) fn left(&self) -> u64 {
        let limit = match self.race {
            Some(r) => self.limit.min(r.load(Ordering::Relaxed)),
            None => self.limit,
        };
        limit.saturating_sub(self.used.get())
    }

    /// True when the solve's budget has a node limit: work, not time,
    /// should bound the steps (so the result is reproducible). A work cap
    /// of a sub-meter ([`Meter::sub`]) is not a node limit.
    pub(crate) fn has_node_limit(&self) -> bool {
        self.node_limited
    }

    /// Time left before the deadline (`None`: no time limit).
    pub(crate) fn time_left(&self) -> Option<Duration> {
        self.deadline.map(|d| d.saturating_sub((self.clock)()))
    }

    /// Marks the budget spent (a member that lost the race, a sub-search
    /// whose work ran out).
    pub(crate) fn mark_spent(&self) {
        self.spent.set(true);
    }

    /// Marks the budget spent because the time left cannot hold the next
    /// step, and records `why` (with the figures measured in the run): the
    /// run then ends before its deadline, and must not say that the time
    /// limit ended it. The first reason is kept.
    pub(crate) fn give_up(&self, why: String) {
        self.spent.set(true);
        self.gave_up.borrow_mut().get_or_insert(why);
    }

    /// Why this meter was given up ([`Meter::give_up`]), if it was.
    pub(crate) fn gave_up(&self) -> Option<String> {
        self.gave_up.borrow().clone()
    }

    /// Records a lower bound proven on the way (such as a repair window's
    /// optimum), kept when it is the highest so far. Every meter made from
    /// the solve's meter shares the record, so a proof found deep in a
    /// sub-search reaches the solve's outcome without each step in between
    /// passing it on.
    pub(crate) fn prove(&self, bound: Bound) {
        let mut best = self.proof.lock().unwrap_or_else(|e| e.into_inner());
        if best.as_ref().is_none_or(|b| bound.value > b.value) {
            *best = Some(bound);
        }
    }

    /// The highest bound recorded by [`Meter::prove`].
    pub(crate) fn proof(&self) -> Option<Bound> {
        self.proof.lock().unwrap_or_else(|e| e.into_inner()).clone()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A reading on a new thread is never behind one taken earlier on
    /// another: members of a portfolio compare their readings with a
    /// deadline set by the thread that started them.
    #[test]
    fn every_thread_reads_the_same_clock() {
        let before = real_clock();
        while real_clock() <= before + Duration::from_millis(1) {
            std::hint::spin_loop();
        }
        let earlier = real_clock();
        let later = std::thread::spawn(real_clock).join().unwrap();
        assert!(later >= earlier, "{later:?} < {earlier:?}");
    }

    /// A stop request spends the meter at its next clock check, with or
    /// without a time limit.
    #[test]
    fn a_stop_request_spends_the_meter() {
        static STOP: AtomicBool = AtomicBool::new(false);
        let m = Meter::new(&Budget::default().with_time_limit(None).with_stop(&STOP));
        assert!(m.charge(CHECK_EVERY));
        assert!(m.alive());
        STOP.store(true, Ordering::Relaxed);
        assert!(!m.alive());
        assert!(!m.charge(1));
        let sub = m.sub(None, None);
        assert!(sub.spent());
    }

    /// A clock for one test alone: what [`MOVED`] holds, in milliseconds
    /// (the other tests never read it, so they cannot move it).
    static MOVED: AtomicU64 = AtomicU64::new(0);
    fn moved() -> Duration {
        Duration::from_millis(MOVED.load(Ordering::Relaxed))
    }

    /// A clock that never advances: only work limits end anything.
    fn frozen() -> Duration {
        Duration::ZERO
    }

    /// A sub-meter of a solve with a time limit and no node limit is not
    /// node-limited, whatever work its parent booked and whatever work
    /// cap it has: the cap bounds its work, and a sub-search asking
    /// whether to take a time limit of its own is told to. (Before, the
    /// parent's booked work made what it had left `u64::MAX - used`, which
    /// the sub-meter reported as a node limit, so the repair's window
    /// searches dropped their time limits.)
    #[test]
    fn a_work_cap_is_not_a_node_limit() {
        let budget = Budget::default()
            .with_time_limit(Some(Duration::from_secs(10)))
            .with_clock(frozen);
        let parent = Meter::new(&budget);
        assert!(!parent.has_node_limit());
        assert!(parent.charge(1_000));
        let uncapped = parent.sub(None, None);
        assert!(!uncapped.has_node_limit());
        assert_eq!(uncapped.left(), u64::MAX - 1_000);
        let capped = parent.sub(None, Some(100));
        assert!(!capped.has_node_limit());
        assert_eq!(capped.left(), 100);
        assert!(capped.charge(100));
        assert!(!capped.charge(1), "the work cap still holds");
        assert!(capped.spent());
        assert!(parent.alive(), "the parent is not spent by its sub-meter");
    }

    /// A node limit is inherited by every sub-meter (the whole solve must
    /// be reproducible), and a sub-meter's cap is at most what its parent
    /// has left.
    #[test]
    fn a_node_limit_is_inherited() {
        let budget = Budget::default()
            .with_time_limit(Some(Duration::from_secs(10)))
            .with_clock(frozen)
            .with_node_limit(Some(1_000));
        let parent = Meter::new(&budget);
        assert!(parent.charge(900));
        let sub = parent.sub(Some(Duration::from_millis(1)), Some(500));
        assert!(sub.has_node_limit());
        assert_eq!(sub.left(), 100);
        let race = AtomicU64::new(u64::MAX);
        assert!(parent.share(50, None, &race).has_node_limit());
        // `u64::MAX` as a node limit is still a node limit.
        let huge = Budget::default().with_node_limit(Some(u64::MAX));
        assert!(Meter::new(&huge).sub(None, Some(10)).has_node_limit());
    }

    /// A capped sub-meter keeps its parent's deadline (cut to `within`
    /// when that comes first): it is spent when the parent's time is up
    /// even with work left, and when its own shorter time is up.
    #[test]
    fn a_sub_meter_carries_the_cap_and_the_deadline() {
        MOVED.store(0, Ordering::Relaxed);
        let budget = Budget::default()
            .with_time_limit(Some(Duration::from_secs(1)))
            .with_clock(moved);
        let parent = Meter::new(&budget);
        assert!(parent.charge(10));
        let long = parent.sub(Some(Duration::from_secs(60)), Some(1_000_000));
        let short = parent.sub(Some(Duration::from_millis(250)), Some(1_000_000));
        // The deadline is 95 % of the time limit.
        assert_eq!(long.time_left(), Some(Duration::from_millis(950)));
        assert_eq!(short.time_left(), Some(Duration::from_millis(250)));
        MOVED.store(300, Ordering::Relaxed);
        assert!(!short.alive(), "its own time is up");
        assert!(long.alive() && parent.alive());
        assert_eq!(long.time_left(), Some(Duration::from_millis(650)));
        MOVED.store(950, Ordering::Relaxed);
        assert!(!long.alive(), "the parent's deadline holds");
        assert!(long.left() > 0, "with work left");
        assert!(!parent.alive());
    }

    /// Work past the race bound spends a member's meter.
    #[test]
    fn a_member_stops_once_it_cannot_win() {
        let race = AtomicU64::new(u64::MAX);
        let parent = Meter::new(&Budget::default().with_time_limit(None));
        let m = parent.share(1_000, None, &race);
        assert!(m.charge(10));
        race.store(15, Ordering::Relaxed);
        assert_eq!(m.left(), 5);
        assert!(m.charge(5));
        assert!(!m.charge(1));
        assert!(m.spent());
    }

    /// Work not yet booked counts against the race bound: a member that
    /// books in batches learns mid-batch that it cannot win.
    #[test]
    fn pending_work_past_the_race_bound_is_outrun() {
        let race = AtomicU64::new(u64::MAX);
        let parent = Meter::new(&Budget::default().with_time_limit(None));
        let m = parent.share(1_000, None, &race);
        assert!(m.charge(10));
        assert!(!m.outrun(500));
        race.store(15, Ordering::Relaxed);
        assert!(!m.outrun(5));
        assert!(m.outrun(6));
        // A meter outside any race is never outrun.
        assert!(!parent.outrun(u64::MAX));
    }

    /// A pace led from the start keeps its leader until another member
    /// places seven eighths; the default pace has no leader until then.
    #[test]
    fn a_member_close_to_a_placement_takes_the_lead() {
        let parent = Meter::new(&Budget::default().with_time_limit(None));
        for (pace, first) in [(Pace::led_by(1), 1), (Pace::default(), 0)] {
            assert_eq!(pace.leader.load(Ordering::Relaxed), first);
            let other = parent.sub(None, None).paced(&pace, 2);
            other.progress(6, 8);
            assert_eq!(pace.leader.load(Ordering::Relaxed), first);
            other.progress(7, 8);
            assert_eq!(pace.leader.load(Ordering::Relaxed), 2);
        }
    }

    /// Only a member that does not lead pauses, and only while somebody
    /// leads.
    #[test]
    fn only_a_member_behind_a_leader_pauses() {
        let ran = Instant::now() - Duration::from_millis(2);
        let paused = |pace: &Pace, member: u8| {
            let resumed = Cell::new(Some(ran));
            let t = Instant::now();
            pace.pause(member, &resumed, None);
            t.elapsed() >= Duration::from_millis(5)
        };
        assert!(!paused(&Pace::default(), 1));
        assert!(!paused(&Pace::led_by(1), 1));
        assert!(paused(&Pace::led_by(1), 2));
        assert!(paused(&Pace::led_by(2), 1));
    }
}
