//! Hidden tests of `vending`: further event sequences that judge whether a fix is correct,
//! not just plausible.

use vending::Event::*;
use vending::Output::*;
use vending::*;

fn run(m: &mut VendingMachine, events: &[Event]) -> Vec<Output> {
    events.iter().map(|&e| m.step(e)).collect()
}

#[test]
fn sells_a_whole_slot_and_then_reports_sold_out() {
    let mut m = VendingMachine::new([0, 3, 1]);
    for k in 0..3 {
        assert_eq!(m.step(Coin(100)), Credit(100));
        assert_eq!(m.step(Select(1)), Vend { slot: 1, change: 0 });
        assert_eq!(m.stock(1), 2 - k);
    }
    assert_eq!(m.sales(), 3);
    assert_eq!(m.state(), State::Idle);
    assert_eq!(
        run(
            &mut m,
            &[Coin(100), Select(1), Coin(25), Coin(25), Select(2)]
        ),
        vec![
            Credit(100),
            SoldOut,
            Credit(125),
            Credit(150),
            Vend { slot: 2, change: 0 }
        ]
    );
    assert_eq!(m.state(), State::Empty);
    assert_eq!(m.float(), 100 + 3 * 100 + 150);
}

#[test]
fn change_for_every_credit() {
    for credit in (65..=200).step_by(5) {
        let mut m = VendingMachine::new([1, 0, 0]);
        let mut left = credit;
        for coin in [100, 25, 10, 5] {
            while left >= coin {
                assert!(matches!(m.step(Coin(coin)), Credit(_)));
                left -= coin;
            }
        }
        assert_eq!(m.credit(), credit);
        let change = credit - 65;
        let expected = if change > 100 {
            ExactChangeOnly
        } else {
            Vend { slot: 0, change }
        };
        assert_eq!(m.step(Select(0)), expected, "credit {credit}");
    }
}

#[test]
fn bad_coins_only_count_in_a_row() {
    let mut m = VendingMachine::new([2, 2, 2]);
    let events = [
        Coin(1),
        Coin(1),
        Coin(10),
        Coin(1),
        Coin(1),
        Coin(10),
        Coin(1),
        Coin(1),
    ];
    let outputs = run(&mut m, &events);
    assert!(!outputs.contains(&Locked));
    assert_eq!(m.credit(), 20);
    assert_eq!(m.state(), State::Collecting);
    // A too-large valid coin is returned but still breaks the run of bad coins.
    let mut m = VendingMachine::new([2, 2, 2]);
    assert_eq!(
        run(
            &mut m,
            &[
                Coin(100),
                Coin(100),
                Coin(3),
                Coin(3),
                Coin(100),
                Coin(3),
                Coin(3)
            ]
        ),
        vec![
            Credit(100),
            Credit(200),
            ReturnCoin(3),
            ReturnCoin(3),
            ReturnCoin(100),
            ReturnCoin(3),
            ReturnCoin(3)
        ]
    );
    assert_eq!(m.step(Coin(3)), Refund(203));
    assert_eq!(m.state(), State::OutOfService);
}

#[test]
fn refills_are_capped_and_refused_during_a_sale() {
    let mut m = VendingMachine::new([0, 0, 0]);
    assert_eq!(m.state(), State::Empty);
    assert_eq!(m.step(Refill(2, 25)), Stocked(CAPACITY));
    assert_eq!(m.step(Refill(0, 9)), Stocked(9));
    assert_eq!(m.step(Refill(0, 1)), Stocked(10));
    assert_eq!(m.total_stock(), 20);
    assert_eq!(m.step(Coin(5)), Credit(5));
    assert_eq!(m.step(Refill(1, 1)), Invalid);
    assert_eq!(m.step(Cancel), Refund(5));
    assert_eq!(m.step(Refill(1, 1)), Stocked(1));
}

#[test]
fn service_cycle_keeps_stock_and_float() {
    let mut m = VendingMachine::new([4, 4, 4]);
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
    let float = m.float();
    assert_eq!(
        run(&mut m, &[Coin(25), ServiceKey]),
        vec![Credit(25), Refund(25)]
    );
    assert_eq!(
        run(&mut m, &[Select(0), Coin(5), ServiceKey]),
        vec![Locked, Locked, Nothing]
    );
    assert_eq!(m.float(), float);
    assert_eq!(m.stock(0), 3);
    assert_eq!(m.state(), State::Idle);
    assert_eq!(m.step(Cancel), Nothing);
}
