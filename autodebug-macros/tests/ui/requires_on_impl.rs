use autodebug_runtime::requires;

struct Counter {
    n: u32,
}

#[requires(true)]
impl Counter {
    fn bump(&mut self) {
        self.n += 1;
    }
}

fn main() {
    Counter { n: 0 }.bump();
}
