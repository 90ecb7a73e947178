//! Instrumented functions compile and compute what their plain twins compute. Every
//! function below is written once and expanded twice by `twin!`: as written (`plain`) and
//! with `#[autodebug(always)]` (`instrumented`); the tests compare them over many inputs.

#![deny(warnings)]

use std::future::Future;
use std::pin::pin;
use std::task::{Context, Poll, Waker};

/// Expands `fn`s twice: `$name::plain::f` and `$name::instrumented::f`.
macro_rules! twin {
    ($name:ident { $($item:item)* }) => {
        #[allow(dead_code, unused_imports, clippy::all)]
        mod $name {
            pub mod plain {
                use crate::*;
                $( $item )*
            }
            pub mod instrumented {
                use crate::*;
                $( #[autodebug_runtime::autodebug(always)] $item )*
            }
        }
    };
}

twin!(branches {
    pub fn classify(x: i32, y: i32) -> i32 {
        if x > 0 && y > 0 {
            1
        } else if x < 0 || (y < 0 && x != y) {
            2
        } else if x == y {
            3
        } else {
            4
        }
    }

    pub fn grade(score: u32) -> char {
        let mut letter = 'F';
        if score >= 90 {
            letter = 'A';
        } else if score >= 80 {
            letter = 'B';
        } else if score >= 70 {
            letter = 'C';
        }
        letter
    }
});

twin!(loops {
    pub fn sum_to(n: u32) -> u32 {
        let mut sum = 0;
        let mut i = 0;
        while i <= n {
            sum += i;
            i += 1;
        }
        sum
    }

    pub fn ranges(n: usize) -> usize {
        let mut acc = 0usize;
        for i in 0..n {
            acc += i * 2;
        }
        for j in 1..=n {
            acc ^= j;
        }
        for k in (0..n).rev() {
            acc = acc.wrapping_mul(3) + k;
        }
        for k in (0..n).step_by(2).rev() {
            acc -= k.min(acc);
        }
        acc
    }

    pub fn over_slice(v: &[i64]) -> i64 {
        let mut total = 0;
        for x in v {
            total += *x;
        }
        for (i, x) in v.iter().enumerate() {
            if i % 2 == 0 {
                total -= x;
            }
        }
        total
    }

    pub fn first_square_above(limit: u64) -> u64 {
        let mut n = 0;
        let found = loop {
            n += 1;
            if n * n > limit {
                break n * n;
            }
        };
        found
    }

    pub fn labeled(grid: &[Vec<i32>], target: i32) -> Option<(usize, usize)> {
        let mut hit = None;
        'outer: for (r, row) in grid.iter().enumerate() {
            for c in 0..row.len() {
                if row[c] == target {
                    hit = Some((r, c));
                    break 'outer;
                }
                if row[c] > target {
                    continue 'outer;
                }
            }
        }
        hit
    }

    pub fn drain(mut stack: Vec<i32>) -> i32 {
        let mut acc = 0;
        while let Some(top) = stack.pop() {
            acc = acc * 2 + top;
        }
        acc
    }
});

twin!(patterns {
    pub fn describe(o: Option<i32>) -> i32 {
        match o {
            Some(x) if x > 10 && x % 2 == 0 => x / 2,
            Some(x) if x < 0 => -x,
            Some(0) => 100,
            Some(x) => x,
            None => -1,
        }
    }

    pub fn chains(o: Option<i32>, flag: bool) -> i32 {
        if let Some(x) = o && x > 3 && flag {
            return x;
        }
        if let Some(x) = o {
            x + 1
        } else {
            0
        }
    }

    pub fn let_else(s: &str) -> u32 {
        let Some(first) = s.chars().next() else {
            return 0;
        };
        let Ok(n) = s.parse::<u32>() else { return first as u32 };
        n
    }

    pub fn try_op(a: &str, b: &str) -> Result<i64, String> {
        let x: i64 = a.parse().map_err(|e: std::num::ParseIntError| e.to_string())?;
        if x < 0 {
            return Err(format!("negative {x}"));
        }
        let y = b.parse::<i64>().map_err(|e| e.to_string())?;
        Ok(x + y)
    }

    pub fn swap_fib(n: u32) -> u64 {
        let (mut a, mut b) = (0u64, 1u64);
        for _ in 0..n {
            (a, b) = (b, a + b);
        }
        a
    }

    pub fn late_init(c: bool) -> i32 {
        let x;
        if c {
            x = 1;
        } else {
            x = 2;
        }
        let y: i32;
        y = x * 10;
        x + y
    }
});

twin!(inference {
    /// `None` on one side of a comparison: only the comparison says which `Option` it is.
    pub fn running_largest(v: &[i64]) -> Vec<i64> {
        let mut best: Option<i64> = None;
        let mut out = Vec::new();
        for &x in v {
            if best == None || x > best.unwrap() {
                best = Some(x);
            }
            if best != None && x <= best.unwrap() {
                out.push(best.unwrap());
            }
        }
        out
    }
});

#[derive(PartialEq, Clone, Copy, Debug)]
pub struct Point {
    pub x: i32,
    pub y: i32,
}

#[derive(PartialEq, Clone, Copy, Debug)]
pub enum Dir {
    Left,
    Right,
}

twin!(shapes {
    pub fn max_of<T: PartialOrd + Copy>(v: &[T]) -> Option<T> {
        let mut best = *v.first()?;
        for &x in v {
            if x > best {
                best = x;
            }
        }
        Some(best)
    }

    pub fn longest<'a>(a: &'a str, b: &'a str) -> &'a str {
        if a.len() >= b.len() { a } else { b }
    }

    pub fn evens(n: u32) -> impl Iterator<Item = u32> {
        (0..n).filter(|x| x % 2 == 0)
    }

    pub fn boxed(k: i32) -> Box<dyn Fn(i32) -> i32> {
        let f: Box<dyn Fn(i32) -> i32> = Box::new(move |x| x + k);
        f
    }

    pub fn origin(p: Point, d: Dir) -> i32 {
        if p == (Point { x: 0, y: 0 }) {
            0
        } else if d == Dir::Left && p.x < 0 {
            -1
        } else {
            p.x + p.y
        }
    }

    pub fn typed(v: u8) -> u32 {
        let small: u8 = 5;
        let wide: u32 = v as u32 + small as u32;
        let as_slice: &[u8] = &[1, 2, 3];
        wide + as_slice.len() as u32
    }

    pub fn with_unsafe(v: &[u32]) -> u32 {
        if v.is_empty() {
            return 0;
        }
        let first = unsafe { *v.get_unchecked(0) };
        unsafe { first + *v.get_unchecked(v.len() - 1) }
    }

    pub fn nested_item(x: i32) -> i32 {
        fn helper(y: i32) -> i32 {
            if y > 0 { y } else { -y }
        }
        helper(x) + 1
    }

    pub fn with_macros(v: &[i32]) -> Vec<i32> {
        assert!(v.len() < 1000, "too long: {}", v.len());
        let doubled = vec![0; v.len()];
        let mut out = doubled.clone();
        for i in 0..v.len() {
            out[i] = v[i] * 2;
        }
        debug_assert_eq!(out.len(), v.len());
        out
    }

    pub fn diverge_tail(x: i32) -> i32 {
        if x >= 0 {
            return x;
        }
        panic!("negative")
    }
});

twin!(borrows {
    pub fn closures(v: &[i32], k: i32) -> i32 {
        let mut count = 0;
        v.iter().for_each(|x| count += x);
        let add = |a: i32| {
            if a > 0 {
                return a + k;
            }
            a
        };
        let bumped = add(count);
        bumped + k
    }

    pub fn mut_borrowed(seed: i32) -> i32 {
        let mut n = seed;
        let r = &mut n;
        *r += 1;
        let z = 5;
        *r += z;
        let w = z * 2;
        n + w
    }

    pub fn ref_mut_pattern(seed: i32) -> i32 {
        let mut a = seed;
        {
            let ref mut r = a;
            *r += 1;
            let q = 2;
            *r += q;
        }
        a
    }

    pub fn moved(v: Vec<i32>) -> usize {
        let s = String::from("abc");
        let t = s;
        let w = v;
        let n = w.len();
        let total = n + t.len();
        drop(w);
        total
    }

    pub fn shadowing(x: i32) -> usize {
        let x = x.to_string();
        let y = 3;
        let x = x + "!";
        x.len() + y
    }

    pub fn swap_in_place(mut v: Vec<i32>) -> Vec<i32> {
        let n = v.len();
        let mut i = 0;
        while i + 1 < n {
            v.swap(i, i + 1);
            v[i] += 1;
            i += 2;
        }
        let (a, b) = v.split_at_mut(n / 2);
        if let (Some(x), Some(y)) = (a.first_mut(), b.first_mut()) {
            std::mem::swap(x, y);
        }
        v
    }

    pub fn places(pair: (String, String), k: i32) -> usize {
        let _ = pair;
        let (first, _) = pair;
        let second = pair.1;
        let (a, b);
        (a, _) = (k, k + 1);
        b = k * 2;
        let v = &vec![1, 2, k];
        let e = &make(k)[0];
        let t = &k.to_string();
        let r = if k > 0 { &make(1) } else { &make(2) };
        first.len() + second.len() + v.len() + t.len() + (*e + a + b + r[0]).unsigned_abs() as usize
    }

    pub fn macro_borrow(v: &mut Vec<u8>) -> usize {
        use std::io::Write;
        let mut buf = Vec::new();
        write!(&mut buf, "{}", v.len()).unwrap();
        let len = buf.len();
        v.push(len as u8);
        len + v.len()
    }
});

pub fn make(k: i32) -> Vec<i32> {
    vec![k, k + 1]
}

pub struct Counter {
    pub count: u32,
    pub name: String,
}

#[autodebug_runtime::autodebug(always)]
impl Counter {
    pub fn get(&self) -> u32 {
        if self.count > 3 {
            self.count * 2
        } else {
            self.count
        }
    }

    pub fn bump(&mut self, by: u32) -> u32 {
        let before = self.count;
        self.count += by;
        if self.count > 100 {
            self.count = 100;
        }
        before
    }

    pub fn name_len(&self) -> &str {
        let n = self.name.len();
        &self.name[..n.min(3)]
    }

    pub fn into_name(self) -> String {
        let extra = self.count;
        format!("{}{}", self.name, extra)
    }
}

#[autodebug_runtime::autodebug(always)]
async fn async_double(x: u32) -> u32 {
    let y = ready(x).await;
    if y > 10 { y * 2 } else { y }
}

async fn ready(x: u32) -> u32 {
    x
}

#[autodebug_runtime::autodebug(always)]
const fn const_max(a: u32, b: u32) -> u32 {
    if a > b { a } else { b }
}

/// Evaluated at compile time: proves `const fn` bodies are left alone.
const CONST_MAX: u32 = const_max(3, 7);

#[autodebug_runtime::autodebug(always)]
#[allow(dead_code)]
fn never_returns() -> ! {
    loop {}
}

mod untouched {
    #[allow(non_upper_case_globals)]
    const __autodebug_call: i32 = 7;

    /// Not instrumented without `always` (and without `AUTODEBUG_INSTRUMENT=1`):
    /// instrumented, its first statement would be `let __autodebug_call = enter(…)`, a
    /// pattern naming the constant above, and the function would not compile.
    #[autodebug_runtime::autodebug]
    pub fn not_instrumented() -> i32 {
        __autodebug_call
    }
}

fn block_on<F: Future>(f: F) -> F::Output {
    let mut f = pin!(f);
    let mut cx = Context::from_waker(Waker::noop());
    loop {
        if let Poll::Ready(v) = f.as_mut().poll(&mut cx) {
            return v;
        }
    }
}

const INTS: [i32; 11] = [-100, -7, -2, -1, 0, 1, 2, 3, 7, 12, 100];

#[test]
fn branches_match() {
    for x in INTS {
        for y in INTS {
            assert_eq!(
                branches::plain::classify(x, y),
                branches::instrumented::classify(x, y)
            );
        }
    }
    for s in 0..=100 {
        assert_eq!(branches::plain::grade(s), branches::instrumented::grade(s));
    }
}

#[test]
fn loops_match() {
    for n in 0..40 {
        assert_eq!(loops::plain::sum_to(n), loops::instrumented::sum_to(n));
        assert_eq!(
            loops::plain::ranges(n as usize),
            loops::instrumented::ranges(n as usize)
        );
        assert_eq!(
            loops::plain::first_square_above(n as u64 * 7),
            loops::instrumented::first_square_above(n as u64 * 7)
        );
        let v: Vec<i64> = (0..n as i64).map(|i| i * 3 - 20).collect();
        assert_eq!(
            loops::plain::over_slice(&v),
            loops::instrumented::over_slice(&v)
        );
        let stack: Vec<i32> = (0..n as i32 % 20).collect();
        assert_eq!(
            loops::plain::drain(stack.clone()),
            loops::instrumented::drain(stack)
        );
    }
    let grid = vec![vec![1, 2, 3], vec![4, 9, 6], vec![7, 8, 5]];
    for target in 0..12 {
        assert_eq!(
            loops::plain::labeled(&grid, target),
            loops::instrumented::labeled(&grid, target)
        );
    }
}

#[test]
fn patterns_match() {
    for x in INTS {
        for o in [Some(x), None] {
            assert_eq!(
                patterns::plain::describe(o),
                patterns::instrumented::describe(o)
            );
            for flag in [true, false] {
                assert_eq!(
                    patterns::plain::chains(o, flag),
                    patterns::instrumented::chains(o, flag)
                );
            }
        }
    }
    for s in ["", "x", "42", "-3", "abc", "7"] {
        assert_eq!(
            patterns::plain::let_else(s),
            patterns::instrumented::let_else(s)
        );
        for t in ["1", "q", "-5"] {
            assert_eq!(
                patterns::plain::try_op(s, t),
                patterns::instrumented::try_op(s, t)
            );
        }
    }
    for n in 0..50 {
        assert_eq!(
            patterns::plain::swap_fib(n),
            patterns::instrumented::swap_fib(n)
        );
    }
    for c in [true, false] {
        assert_eq!(
            patterns::plain::late_init(c),
            patterns::instrumented::late_init(c)
        );
    }
}

#[test]
fn inference_matches() {
    for v in [vec![], vec![3, 1, 4, 1, 5], vec![-2, -7, 0, 9, 9]] {
        assert_eq!(
            inference::plain::running_largest(&v),
            inference::instrumented::running_largest(&v)
        );
    }
}

#[test]
fn shapes_match() {
    let floats = [1.5, -2.0, 9.25, 3.0];
    assert_eq!(
        shapes::plain::max_of(&floats),
        shapes::instrumented::max_of(&floats)
    );
    assert_eq!(
        shapes::plain::max_of::<i32>(&[]),
        shapes::instrumented::max_of::<i32>(&[])
    );
    assert_eq!(
        shapes::plain::max_of(&INTS),
        shapes::instrumented::max_of(&INTS)
    );
    for (a, b) in [("ab", "abc"), ("xyz", "q"), ("", "")] {
        assert_eq!(
            shapes::plain::longest(a, b),
            shapes::instrumented::longest(a, b)
        );
    }
    for n in 0..20 {
        let plain: Vec<u32> = shapes::plain::evens(n).collect();
        let instrumented: Vec<u32> = shapes::instrumented::evens(n).collect();
        assert_eq!(plain, instrumented);
        assert_eq!(
            shapes::plain::typed(n as u8),
            shapes::instrumented::typed(n as u8)
        );
    }
    for k in INTS {
        assert_eq!(
            shapes::plain::boxed(k)(3),
            shapes::instrumented::boxed(k)(3)
        );
        assert_eq!(
            shapes::plain::nested_item(k),
            shapes::instrumented::nested_item(k)
        );
        for y in [-1, 0, 4] {
            for d in [Dir::Left, Dir::Right] {
                let p = Point { x: k, y };
                assert_eq!(
                    shapes::plain::origin(p, d),
                    shapes::instrumented::origin(p, d)
                );
            }
        }
    }
    for v in [vec![], vec![4], vec![1, 2, 3]] {
        assert_eq!(
            shapes::plain::with_unsafe(&v),
            shapes::instrumented::with_unsafe(&v)
        );
    }
    let v: Vec<i32> = INTS.to_vec();
    assert_eq!(
        shapes::plain::with_macros(&v),
        shapes::instrumented::with_macros(&v)
    );
    assert_eq!(
        shapes::plain::diverge_tail(4),
        shapes::instrumented::diverge_tail(4)
    );
    let plain = std::panic::catch_unwind(|| shapes::plain::diverge_tail(-1)).is_err();
    let instrumented = std::panic::catch_unwind(|| shapes::instrumented::diverge_tail(-1)).is_err();
    assert!(plain && instrumented);
}

#[test]
fn borrows_match() {
    for k in INTS {
        let v: Vec<i32> = (0..k.rem_euclid(9)).collect();
        assert_eq!(
            borrows::plain::closures(&v, k),
            borrows::instrumented::closures(&v, k)
        );
        assert_eq!(
            borrows::plain::mut_borrowed(k),
            borrows::instrumented::mut_borrowed(k)
        );
        assert_eq!(
            borrows::plain::ref_mut_pattern(k),
            borrows::instrumented::ref_mut_pattern(k)
        );
        assert_eq!(
            borrows::plain::moved(v.clone()),
            borrows::instrumented::moved(v.clone())
        );
        assert_eq!(
            borrows::plain::shadowing(k),
            borrows::instrumented::shadowing(k)
        );
        assert_eq!(
            borrows::plain::swap_in_place(v.clone()),
            borrows::instrumented::swap_in_place(v.clone())
        );
        let pair = (k.to_string(), "xy".to_string());
        assert_eq!(
            borrows::plain::places(pair.clone(), k),
            borrows::instrumented::places(pair, k)
        );
        let mut a: Vec<u8> = vec![1; k.rem_euclid(5) as usize];
        let mut b = a.clone();
        assert_eq!(
            borrows::plain::macro_borrow(&mut a),
            borrows::instrumented::macro_borrow(&mut b)
        );
        assert_eq!(a, b);
    }
}

#[test]
fn methods_async_and_const() {
    let mut c = Counter {
        count: 0,
        name: "counter".into(),
    };
    let mut seen = Vec::new();
    for by in [1, 2, 5, 50, 60] {
        seen.push((c.bump(by), c.get(), c.name_len().to_string()));
    }
    assert_eq!(
        seen,
        vec![
            (0, 1, "cou".into()),
            (1, 3, "cou".into()),
            (3, 16, "cou".into()),
            (8, 116, "cou".into()),
            (58, 200, "cou".into()),
        ]
    );
    assert_eq!(c.into_name(), "counter100");
    assert_eq!(block_on(async_double(4)), 4);
    assert_eq!(block_on(async_double(11)), 22);
    assert_eq!(CONST_MAX, 7);
    assert_eq!(const_max(9, 2), 9);
}

#[test]
fn without_always_the_body_is_left_alone() {
    assert_eq!(untouched::not_instrumented(), 7);
}
