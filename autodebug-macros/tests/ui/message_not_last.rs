use autodebug_runtime::requires;

#[requires("x must be positive", x > 0)]
fn f(x: i32) -> i32 {
    x
}

fn main() {
    f(1);
}
