use autodebug_runtime::ensures;

#[ensures(forall i 0..v.len() => v[i] <= ret)]
fn max(v: &[i32]) -> i32 {
    v.iter().copied().max().unwrap_or(0)
}

fn main() {
    max(&[1]);
}
