use autodebug_runtime::invariant;

struct Counter {
    n: u32,
}

impl Counter {
    #[invariant(true)]
    fn zero() -> Counter {
        Counter { n: 0 }
    }
}

fn main() {
    let _ = Counter::zero().n;
}
