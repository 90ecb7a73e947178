use autodebug_runtime::{ensures, requires};

// Type errors inside a condition point at the user's tokens.
#[requires(x)]
#[ensures(ret + 1)]
fn f(x: i32) -> i32 {
    x
}

fn main() {
    f(1);
}
