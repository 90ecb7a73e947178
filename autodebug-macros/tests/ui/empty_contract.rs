use autodebug_runtime::requires;

#[requires()]
fn f(x: i32) -> i32 {
    x
}

fn main() {
    f(1);
}
