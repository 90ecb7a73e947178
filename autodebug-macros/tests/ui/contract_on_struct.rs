use autodebug_runtime::requires;

#[requires(true)]
struct Point {
    x: i32,
}

fn main() {
    let _ = Point { x: 1 }.x;
}
