use autodebug_runtime::requires;

#[requires(x > 0 && ret > x)]
fn f(x: i32) -> i32 {
    x + 1
}

fn main() {
    f(1);
}
