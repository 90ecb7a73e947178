use autodebug_runtime::requires;

#[requires(x < 0 ->, y > 0)]
fn f(x: i32, y: i32) -> i32 {
    x + y
}

fn main() {
    f(1, 1);
}
