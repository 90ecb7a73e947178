use autodebug_runtime::autodebug;

#[autodebug(sometimes)]
fn f(x: i32) -> i32 {
    x
}

fn main() {
    f(1);
}
