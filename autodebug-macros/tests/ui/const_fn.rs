use autodebug_runtime::requires;

#[requires(x > 0)]
const fn f(x: i32) -> i32 {
    x
}

fn main() {
    f(1);
}
