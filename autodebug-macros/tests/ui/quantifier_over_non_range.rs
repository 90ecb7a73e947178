use autodebug_runtime::ensures;

#[ensures(forall x in v => *x <= ret)]
fn max(v: &[i32]) -> i32 {
    v.iter().copied().max().unwrap_or(0)
}

fn main() {
    max(&[1]);
}
