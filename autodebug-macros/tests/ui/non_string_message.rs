use autodebug_runtime::ensures;

#[ensures(ret > 0, 42)]
fn f(x: i32) -> i32 {
    x
}

fn main() {
    f(1);
}
