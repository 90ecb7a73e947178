//! A `#![no_std]` crate has no `::std`: instrumented functions and their contracts compile
//! there as anywhere else (the runtime, which links `std`, is a dependency like any other).

#![no_std]

#[autodebug_runtime::autodebug(always)]
#[autodebug_runtime::ensures(ret >= a && ret >= b)]
#[autodebug_runtime::debug_requires(forall i in 0..2 => i < 2)]
fn larger(a: i32, b: i32) -> i32 {
    let mut best = a;
    if b > best {
        best = b;
    }
    best
}

fn main() {
    assert_eq!(larger(2, 5), 5);
    assert_eq!(larger(7, -1), 7);
}
