//! A vending machine as a state machine, in the spirit of the event-driven programs of the
//! Siemens suite (`schedule`'s command interpreter) and of the reactive controllers used in
//! fault-localization studies: one `step` per event, guarded transitions between states,
//! and counters with thresholds.
//!
//! The machine sells from [`SLOTS`] slots at fixed prices. It accepts some coins up to a
//! credit limit, gives change from a float of coins it holds, locks itself after
//! [`MAX_BAD_COINS`] consecutive invalid coins until a service key resets it, and knows when
//! it is empty.

// Explicit index loops on purpose: each index step is a site the debugger can observe.
#![allow(clippy::needless_range_loop)]

use autodebug_runtime::autodebug;

/// Number of product slots.
pub const SLOTS: usize = 3;
/// Price of each slot, in cents.
pub const PRICES: [u32; SLOTS] = [65, 100, 150];
/// Most items a slot holds.
pub const CAPACITY: u32 = 10;
/// Most credit the machine accepts before it returns further coins.
pub const MAX_CREDIT: u32 = 200;
/// Consecutive invalid coins after which the machine locks itself.
pub const MAX_BAD_COINS: u32 = 3;
/// Coins the machine holds for change when it is switched on, in cents.
pub const INITIAL_FLOAT: u32 = 100;

/// Where the machine is.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum State {
    /// Waiting for a customer, no credit.
    Idle,
    /// Credit has been inserted.
    Collecting,
    /// Every slot is empty: coins are returned until a refill.
    Empty,
    /// Locked (after too many invalid coins, or by the service key) until the service key.
    OutOfService,
}

/// What happens to the machine.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Event {
    /// A coin of this value (cents) is inserted.
    Coin(u32),
    /// The customer presses the button of a slot.
    Select(usize),
    /// The customer asks for the credit back.
    Cancel,
    /// The operator adds items to a slot.
    Refill(usize, u32),
    /// The operator turns the service key: locks an open machine, unlocks a locked one.
    ServiceKey,
}

/// What the machine does in answer to an event.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Output {
    /// Nothing visible.
    Nothing,
    /// The coin was accepted; the display shows the credit.
    Credit(u32),
    /// The coin drops back out.
    ReturnCoin(u32),
    /// An item of `slot` drops, with `change` cents.
    Vend {
        /// The slot sold from.
        slot: usize,
        /// The change paid out.
        change: u32,
    },
    /// This many cents are paid back.
    Refund(u32),
    /// The selected slot is empty.
    SoldOut,
    /// The credit is short of the price by this many cents.
    NeedMore(u32),
    /// The machine cannot give the change: exact amount only.
    ExactChangeOnly,
    /// The slot now holds this many items.
    Stocked(u32),
    /// The machine is out of service.
    Locked,
    /// The event makes no sense here (unknown slot, refill during a sale).
    Invalid,
}

/// A vending machine: its state, the customer's credit, the stock and the counters.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct VendingMachine {
    state: State,
    credit: u32,
    stock: [u32; SLOTS],
    float: u32,
    bad_coins: u32,
    sales: u32,
}

#[autodebug]
impl VendingMachine {
    /// A machine holding `stock` items per slot (at most [`CAPACITY`] each) and the initial
    /// float.
    pub fn new(stock: [u32; SLOTS]) -> Self {
        let mut m = VendingMachine {
            state: State::Idle,
            credit: 0,
            stock: [0; SLOTS],
            float: INITIAL_FLOAT,
            bad_coins: 0,
            sales: 0,
        };
        for slot in 0..SLOTS {
            m.stock[slot] = stock[slot].min(CAPACITY);
        }
        if m.total_stock() == 0 {
            m.state = State::Empty;
        }
        m
    }

    /// The current state.
    pub fn state(&self) -> State {
        self.state
    }

    /// The customer's credit, in cents.
    pub fn credit(&self) -> u32 {
        self.credit
    }

    /// Items left in `slot`.
    pub fn stock(&self, slot: usize) -> u32 {
        self.stock[slot]
    }

    /// Coins held for change, in cents.
    pub fn float(&self) -> u32 {
        self.float
    }

    /// Items sold so far.
    pub fn sales(&self) -> u32 {
        self.sales
    }

    /// Whether the machine takes coins of this value.
    pub fn is_valid_coin(coin: u32) -> bool {
        coin == 5 || coin == 10 || coin == 25 || coin == 100
    }

    /// Items left in all slots together.
    pub fn total_stock(&self) -> u32 {
        let mut total = 0;
        for slot in 0..SLOTS {
            total += self.stock[slot];
        }
        total
    }

    /// Handles one event and says what the machine does.
    pub fn step(&mut self, event: Event) -> Output {
        if self.state == State::OutOfService {
            if event == Event::ServiceKey {
                self.bad_coins = 0;
                self.state = if self.total_stock() == 0 {
                    State::Empty
                } else {
                    State::Idle
                };
                return Output::Nothing;
            }
            return Output::Locked;
        }
        match event {
            Event::Coin(coin) => self.insert(coin),
            Event::Select(slot) => self.select(slot),
            Event::Cancel => self.cancel(),
            Event::Refill(slot, count) => self.refill(slot, count),
            Event::ServiceKey => {
                let refund = self.credit;
                self.credit = 0;
                self.state = State::OutOfService;
                if refund > 0 {
                    Output::Refund(refund)
                } else {
                    Output::Locked
                }
            }
        }
    }

    /// A coin is inserted.
    fn insert(&mut self, coin: u32) -> Output {
        if self.state == State::Empty {
            return Output::ReturnCoin(coin);
        }
        if !Self::is_valid_coin(coin) {
            self.bad_coins += 1;
            if self.bad_coins >= MAX_BAD_COINS {
                // Someone is fiddling with the slot: give everything back and lock.
                let refund = self.credit + coin;
                self.credit = 0;
                self.state = State::OutOfService;
                return Output::Refund(refund);
            }
            return Output::ReturnCoin(coin);
        }
        self.bad_coins = 0;
        if self.credit + coin > MAX_CREDIT {
            return Output::ReturnCoin(coin);
        }
        self.credit += coin;
        self.state = State::Collecting;
        Output::Credit(self.credit)
    }

    /// A slot's button is pressed.
    fn select(&mut self, slot: usize) -> Output {
        if slot >= SLOTS {
            return Output::Invalid;
        }
        if self.stock[slot] == 0 {
            return Output::SoldOut;
        }
        let price = PRICES[slot];
        if self.credit < price {
            return Output::NeedMore(price - self.credit);
        }
        let change = self.credit - price;
        if change > self.float {
            return Output::ExactChangeOnly;
        }
        // The customer's coins join the float, the change leaves it.
        self.float = self.float + self.credit - change;
        self.credit = 0;
        self.stock[slot] -= 1;
        self.sales += 1;
        self.state = if self.total_stock() == 0 {
            State::Empty
        } else {
            State::Idle
        };
        Output::Vend { slot, change }
    }

    /// The customer cancels.
    fn cancel(&mut self) -> Output {
        if self.credit == 0 {
            return Output::Nothing;
        }
        let refund = self.credit;
        self.credit = 0;
        self.state = State::Idle;
        Output::Refund(refund)
    }

    /// The operator refills a slot; not while a customer has credit.
    fn refill(&mut self, slot: usize, count: u32) -> Output {
        if slot >= SLOTS || self.state == State::Collecting {
            return Output::Invalid;
        }
        let filled = self.stock[slot] + count;
        self.stock[slot] = if filled > CAPACITY { CAPACITY } else { filled };
        if self.state == State::Empty && self.stock[slot] > 0 {
            self.state = State::Idle;
        }
        Output::Stocked(self.stock[slot])
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use Event::*;
    use Output::*;

    /// Runs `events` and returns the outputs.
    fn run(m: &mut VendingMachine, events: &[Event]) -> Vec<Output> {
        events.iter().map(|&e| m.step(e)).collect()
    }

    #[test]
    fn a_new_machine_is_idle_or_empty() {
        let m = VendingMachine::new([2, 0, 1]);
        assert_eq!(m.state(), State::Idle);
        assert_eq!(m.total_stock(), 3);
        assert_eq!(m.credit(), 0);
        assert_eq!(m.float(), 100);
        let m = VendingMachine::new([0, 0, 0]);
        assert_eq!(m.state(), State::Empty);
        let m = VendingMachine::new([20, 11, 10]);
        assert_eq!(m.total_stock(), 30);
        assert_eq!(m.stock(1), CAPACITY);
    }

    #[test]
    fn valid_coins() {
        for coin in [5, 10, 25, 100] {
            assert!(VendingMachine::is_valid_coin(coin), "{coin}");
        }
        for coin in [0, 1, 4, 6, 9, 11, 20, 24, 26, 50, 99, 101] {
            assert!(!VendingMachine::is_valid_coin(coin), "{coin}");
        }
    }

    #[test]
    fn buys_with_exact_money() {
        let mut m = VendingMachine::new([1, 1, 1]);
        assert_eq!(
            run(&mut m, &[Coin(25), Coin(25), Coin(10), Coin(5)]),
            vec![Credit(25), Credit(50), Credit(60), Credit(65)]
        );
        assert_eq!(m.state(), State::Collecting);
        assert_eq!(m.step(Select(0)), Vend { slot: 0, change: 0 });
        assert_eq!(m.state(), State::Idle);
        assert_eq!(m.credit(), 0);
        assert_eq!(m.stock(0), 0);
        assert_eq!(m.sales(), 1);
        assert_eq!(m.float(), INITIAL_FLOAT + 65);
    }

    #[test]
    fn gives_change_from_the_float() {
        let mut m = VendingMachine::new([3, 3, 3]);
        assert_eq!(
            run(&mut m, &[Coin(100), Select(0)]),
            vec![
                Credit(100),
                Vend {
                    slot: 0,
                    change: 35
                }
            ]
        );
        assert_eq!(m.float(), INITIAL_FLOAT + 65);
        assert_eq!(
            run(&mut m, &[Coin(100), Coin(100), Select(2)]),
            vec![
                Credit(100),
                Credit(200),
                Vend {
                    slot: 2,
                    change: 50
                }
            ]
        );
        assert_eq!(m.float(), INITIAL_FLOAT + 65 + 150);
        assert_eq!(m.sales(), 2);
    }

    #[test]
    fn asks_for_more_money() {
        let mut m = VendingMachine::new([1, 1, 1]);
        assert_eq!(m.step(Select(1)), NeedMore(100));
        assert_eq!(
            run(
                &mut m,
                &[Coin(25), Select(1), Coin(25), Coin(25), Select(1)]
            ),
            vec![
                Credit(25),
                NeedMore(75),
                Credit(50),
                Credit(75),
                NeedMore(25)
            ]
        );
        assert_eq!(m.step(Coin(25)), Credit(100));
        assert_eq!(m.step(Select(1)), Vend { slot: 1, change: 0 });
        assert_eq!(m.step(Coin(100)), Credit(100));
        assert_eq!(m.step(Select(2)), NeedMore(50));
        assert_eq!(
            m.step(Select(0)),
            Vend {
                slot: 0,
                change: 35
            }
        );
    }

    #[test]
    fn sold_out_and_unknown_slots() {
        let mut m = VendingMachine::new([0, 1, 1]);
        assert_eq!(
            run(&mut m, &[Coin(100), Select(0), Select(3), Select(7)]),
            vec![Credit(100), SoldOut, Invalid, Invalid]
        );
        assert_eq!(m.credit(), 100);
        assert_eq!(m.step(Select(1)), Vend { slot: 1, change: 0 });
    }

    #[test]
    fn refuses_credit_above_the_limit() {
        let mut m = VendingMachine::new([1, 1, 1]);
        assert_eq!(
            run(&mut m, &[Coin(100), Coin(100), Coin(5), Coin(100)]),
            vec![Credit(100), Credit(200), ReturnCoin(5), ReturnCoin(100)]
        );
        assert_eq!(m.credit(), MAX_CREDIT);
        let mut m = VendingMachine::new([1, 1, 1]);
        assert_eq!(
            run(
                &mut m,
                &[Coin(100), Coin(25), Coin(25), Coin(25), Coin(25), Coin(5)]
            ),
            vec![
                Credit(100),
                Credit(125),
                Credit(150),
                Credit(175),
                Credit(200),
                ReturnCoin(5)
            ]
        );
    }

    #[test]
    fn cancel_refunds_the_credit() {
        let mut m = VendingMachine::new([1, 1, 1]);
        assert_eq!(m.step(Cancel), Nothing);
        assert_eq!(
            run(&mut m, &[Coin(10), Coin(25), Cancel]),
            vec![Credit(10), Credit(35), Refund(35)]
        );
        assert_eq!(m.state(), State::Idle);
        assert_eq!(m.credit(), 0);
        assert_eq!(m.float(), INITIAL_FLOAT);
        assert_eq!(m.step(Cancel), Nothing);
    }

    #[test]
    fn exact_change_only_when_the_float_is_short() {
        let mut m = VendingMachine::new([5, 5, 5]);
        // Change 135 > float 100: refused, credit kept.
        assert_eq!(
            run(&mut m, &[Coin(100), Coin(100), Select(0)]),
            vec![Credit(100), Credit(200), ExactChangeOnly]
        );
        assert_eq!(m.credit(), 200);
        // Change 100 == float: allowed.
        assert_eq!(
            m.step(Select(1)),
            Vend {
                slot: 1,
                change: 100
            }
        );
        assert_eq!(m.float(), INITIAL_FLOAT + 100);
        // Float 200 now pays change 135.
        assert_eq!(
            run(&mut m, &[Coin(100), Coin(100), Select(0)])[2],
            Vend {
                slot: 0,
                change: 135
            }
        );
        assert_eq!(m.float(), INITIAL_FLOAT + 100 + 65);
    }

    #[test]
    fn locks_after_three_bad_coins_in_a_row() {
        let mut m = VendingMachine::new([1, 1, 1]);
        assert_eq!(
            run(
                &mut m,
                &[Coin(25), Coin(3), Coin(50), Coin(10), Coin(1), Coin(2)]
            ),
            vec![
                Credit(25),
                ReturnCoin(3),
                ReturnCoin(50),
                Credit(35),
                ReturnCoin(1),
                ReturnCoin(2)
            ]
        );
        assert_eq!(m.state(), State::Collecting);
        // The third bad coin in a row: everything back, locked.
        assert_eq!(m.step(Coin(7)), Refund(42));
        assert_eq!(m.state(), State::OutOfService);
        assert_eq!(m.credit(), 0);
        assert_eq!(
            run(&mut m, &[Coin(25), Select(0), Cancel, Refill(0, 1)]),
            vec![Locked; 4]
        );
        assert_eq!(m.step(ServiceKey), Nothing);
        assert_eq!(m.state(), State::Idle);
        // The counter was reset: two bad coins do not lock.
        assert_eq!(
            run(&mut m, &[Coin(1), Coin(1), Coin(5)]),
            vec![ReturnCoin(1), ReturnCoin(1), Credit(5)]
        );
        assert_eq!(m.state(), State::Collecting);
    }

    #[test]
    fn the_service_key_locks_and_refunds() {
        let mut m = VendingMachine::new([1, 1, 1]);
        assert_eq!(m.step(ServiceKey), Locked);
        assert_eq!(m.state(), State::OutOfService);
        assert_eq!(m.step(ServiceKey), Nothing);
        assert_eq!(
            run(&mut m, &[Coin(100), ServiceKey]),
            vec![Credit(100), Refund(100)]
        );
        assert_eq!(m.credit(), 0);
        assert_eq!(m.step(Coin(5)), Locked);
        // Unlocking an emptied machine leaves it empty; one item left makes it idle.
        let mut m = VendingMachine::new([0, 0, 1]);
        assert_eq!(
            run(&mut m, &[ServiceKey, ServiceKey]),
            vec![Locked, Nothing]
        );
        assert_eq!(m.state(), State::Idle);
        let mut m = VendingMachine::new([0, 0, 0]);
        assert_eq!(
            run(&mut m, &[ServiceKey, ServiceKey]),
            vec![Locked, Nothing]
        );
        assert_eq!(m.state(), State::Empty);
    }

    #[test]
    fn a_new_machine_tolerates_two_bad_coins() {
        let mut m = VendingMachine::new([1, 1, 1]);
        assert_eq!(
            run(&mut m, &[Coin(2), Coin(2)]),
            vec![ReturnCoin(2), ReturnCoin(2)]
        );
        assert_eq!(m.state(), State::Idle);
        assert_eq!(m.step(Coin(2)), Refund(2));
        assert_eq!(m.state(), State::OutOfService);
    }

    #[test]
    fn empties_and_is_refilled() {
        let mut m = VendingMachine::new([1, 0, 0]);
        assert_eq!(
            run(&mut m, &[Coin(100), Select(0)]),
            vec![
                Credit(100),
                Vend {
                    slot: 0,
                    change: 35
                }
            ]
        );
        assert_eq!(m.state(), State::Empty);
        assert_eq!(m.step(Coin(25)), ReturnCoin(25));
        assert_eq!(m.credit(), 0);
        assert_eq!(m.step(Refill(1, 0)), Stocked(0));
        assert_eq!(m.state(), State::Empty);
        assert_eq!(m.step(Refill(1, 1)), Stocked(1));
        assert_eq!(m.state(), State::Idle);
        assert_eq!(m.step(Refill(1, 3)), Stocked(4));
        assert_eq!(m.step(Refill(1, 6)), Stocked(CAPACITY));
        assert_eq!(m.step(Refill(1, 1)), Stocked(CAPACITY));
        assert_eq!(m.step(Refill(3, 1)), Invalid);
        assert_eq!(m.step(Coin(100)), Credit(100));
        assert_eq!(m.step(Refill(0, 1)), Invalid);
        assert_eq!(m.stock(0), 0);
    }
}
