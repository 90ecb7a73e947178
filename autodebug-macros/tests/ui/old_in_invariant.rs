use autodebug_runtime::invariant;

struct Counter {
    n: u32,
}

#[invariant(self.n >= old(self.n))]
impl Counter {
    fn bump(&mut self) {
        self.n += 1;
    }
}

fn main() {
    Counter { n: 0 }.bump();
}
