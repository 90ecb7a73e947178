//! The lowering, construct by construct: each test lowers a small file and compares the
//! IR as `{:#}` renders it (one statement per line, without sites); a few tests look at
//! sites, scopes and flags in the IR itself.

use autodebug_runtime::protocol::SiteKind;
use autodebug_symbolic::ir::{
    ContractKind, ExprKind, Iteration, Pos, Program, Stmt, Type, VarKind,
};

fn lower(src: &str) -> Program {
    Program::from_source(src, "src/lib.rs").expect("the test source parses")
}

/// The program rendered without sites, and every function fully lowered.
fn plain(src: &str) -> String {
    let program = lower(src);
    for f in &program.functions {
        assert!(
            f.is_fully_lowered(),
            "{} degraded: {:#?}",
            f.name,
            f.degradations
        );
    }
    format!("{program:#}")
}

fn assert_lowers_to(src: &str, expected: &str) {
    let actual = plain(src);
    assert_eq!(
        actual.trim(),
        expected.trim(),
        "\n--- actual ---\n{actual}\n--- expected ---\n{expected}"
    );
}

/// Integers of every width: wrapping, saturating, checked, min/max/abs, shifts, bit operators, casts, `i32::MAX`, `i128::MIN`.
#[test]
fn ints() {
    assert_lowers_to(
        r#"
fn ints(a: u8, b: i64, c: usize, d: i128, e: u16) -> i64 {
    let x = a.wrapping_add(1);
    let y = b / 2 % 3 << 1;
    let z = c.saturating_sub(4).min(10).max(1);
    let w = (x as i64) + y + z as i64 - (-b).abs();
    let big = d * -170141183460469231731687303715884105728;
    let bits = e & 0xff | e ^ 1;
    let o = b.checked_add(1);
    let lim = i32::MAX as i64 + u8::MAX as i64;
    w >> 2
}
"#,
        r#"
fn ints(a: u8, b: i64, c: usize, d: i128, e: u16) -> i64
{
  let x: u8 = wrapping_add(a, 1)
  let y: i64 = ((b / 2) % 3) << 1
  let z: usize = max(min(saturating_sub(c, 4), 10), 1)
  let w: i64 = (((x as i64) + y) + (z as i64)) - abs(-b)
  let big: i128 = d * -170141183460469231731687303715884105728
  let bits: u16 = (e & 255) | (e ^ 1)
  let o: Option<i64> = checked_add(b, 1)
  let lim: i64 = (2147483647 as i64) + (255 as i64)
  return w >> 2
}
"#,
    );
}

/// Casts between integers, `bool`, `char` and `u8`, and `u64::from`.
#[test]
fn casts() {
    assert_lowers_to(
        r#"
fn casts(c: char, b: bool, n: u64) -> u32 {
    let code = c as u32;
    let back = 97u8 as char;
    let one = b as i32;
    let low = n as u8;
    let wide = u64::from(low);
    code + one as u32 + wide as u32
}
"#,
        r#"
fn casts(c: char, b: bool, n: u64) -> u32
{
  let code: u32 = c as u32
  let back: char = 97 as char
  let one: i32 = b as i32
  let low: u8 = n as u8
  let wide: u64 = low as u64
  return (code + (one as u32)) + (wide as u32)
}
"#,
    );
}

/// Shadowing and block scopes resolve to distinct variables; `let` without a value.
#[test]
fn scopes() {
    assert_lowers_to(
        r#"
fn scopes(x: i32) -> i32 {
    let x = x + 1;
    {
        let x = x * 2;
        let y = x;
    }
    let y;
    y = x;
    y
}
"#,
        r#"
fn scopes(x: i32) -> i32
{
  let x#2: i32 = x + 1
  let x#3: i32 = x#2 * 2
  let y: i32 = x#3
  let y#2: i32
  y#2 = x#2
  return y#2
}
"#,
    );
}

/// Slices, `Vec`, arrays and references to them: length, indexing, element assignment, `push`, `swap`, `vec!`, `contains`.
#[test]
fn seqs() {
    assert_lowers_to(
        r#"
fn seqs(a: &[i32], v: &mut Vec<i64>, arr: [u8; 4], r: &Vec<bool>) -> usize {
    let n = a.len() + arr.len() + r.len();
    let empty = v.is_empty();
    v[0] = a[1] as i64;
    v[n - 1] += 2;
    v.push(3);
    v.swap(0, 1);
    let w = vec![1, 2, 3];
    let z = [0u8; 8];
    let copy = a.to_vec();
    let has = a.contains(&7);
    n + w[2] + z.len()
}
"#,
        r#"
fn seqs(a: [i32], v: &mut [i64], arr: [u8; 4], r: [bool]) -> usize
{
  let n: usize = (len(a) + len(arr)) + len(r)
  let empty: bool = len(v) == 0
  v[0] = a[1] as i64
  v[n - 1] = v[n - 1] + 2
  v = push(v, 3)
  let $t1: usize = 0
  let $t2: usize = 1
  let $t3: i64 = v[$t1]
  v[$t1] = v[$t2]
  v[$t2] = $t3
  let w: [usize] = [1, 2, 3]
  let z: [u8; 8] = [0; 8]
  let copy: [i32] = a
  let has: bool = exists $k in 0..len(a) => a[$k] == 7
  return (n + w[2]) + len(z)
}
"#,
    );
}

/// Structs (named, tuple, with `..base`), tuples and their fields, simple enums, destructuring `let`.
#[test]
fn aggregates() {
    assert_lowers_to(
        r#"
struct P { x: i32, y: i32 }
struct T(u8, bool);
#[derive(PartialEq)]
enum Color { Red, Green }
fn aggregates(p: P, t: (i32, (bool, u8)), c: Color) -> i32 {
    let q = P { x: 1, ..p };
    let r = T(3, true);
    let flag = (t.1).0 && r.1;
    let sum = q.x + p.y + t.0;
    let same = c == Color::Green;
    let (a, (b, k)) = t;
    let P { x, y: yy } = p;
    sum + x + yy + a + r.0 as i32
}
"#,
        r#"
fn aggregates(p: P, t: (i32, (bool, u8)), c: Color) -> i32
{
  let q: P = P { x: 1, y: p.y }
  let r: T = T { 0: 3, 1: true }
  let flag: bool = t.1.0 && r.1
  let sum: i32 = (q.x + p.y) + t.0
  let same: bool = c == Color::Green
  let $t1: (i32, (bool, u8)) = t
  let a: i32 = $t1.0
  let b: bool = $t1.1.0
  let k: u8 = $t1.1.1
  let $t2: P = p
  let x: i32 = $t2.x
  let yy: i32 = $t2.y
  return (((sum + x) + yy) + a) + (r.0 as i32)
}
"#,
    );
}

/// `if` as a value, `else if` chains, `&&`/`||` conditions, early `return`.
#[test]
fn branches() {
    assert_lowers_to(
        r#"
fn branches(a: i32, b: i32, c: bool) -> i32 {
    let m = if a > b { a } else { b };
    let mut r = 0;
    if a > 0 && (b > 0 || c) {
        r = 1;
    } else if a < 0 {
        r = 2;
    } else {
        let t = a - b;
        r = t;
    }
    if c { return r; }
    m + r
}
"#,
        r#"
fn branches(a: i32, b: i32, c: bool) -> i32
{
  let m: i32 = if a > b { a } else { b }
  let r: i32 = 0
  if (a > 0) && ((b > 0) || c) {
    r = 1
  } else {
    if a < 0 {
      r = 2
    } else {
      let t: i32 = a - b
      r = t
    }
  }
  if c {
    return r
  }
  return m + r
}
"#,
    );
}

/// `match` on enums, options, tuples and integers (or-patterns, ranges, guards, bindings) as `if` chains.
#[test]
fn matches() {
    assert_lowers_to(
        r#"
#[derive(PartialEq)]
enum Dir { Up, Down, Left }
fn matches(n: u32, d: Dir, o: Option<i8>, pair: (bool, u8)) -> u32 {
    let k = match d {
        Dir::Up => 1,
        Dir::Down | Dir::Left => 2,
    };
    let j = match o {
        Some(v) if v > 3 => v as u32,
        Some(0) => 10,
        None => 20,
        _ => 30,
    };
    match pair {
        (true, x) => return x as u32,
        (false, 0..=9) => {}
        _ => {}
    }
    match n {
        0 => k,
        1 | 2 => j,
        m if m > 100 => m - 100,
        _ => k + j,
    }
}
"#,
        r#"
fn matches(n: u32, d: Dir, o: Option<i8>, pair: (bool, u8)) -> u32
{
  let $t1: u32
  if d == Dir::Up {
    $t1 = 1
  } else {
    $t1 = 2
  }
  let k: u32 = $t1
  let $t2: u32
  if is_some(o) && (unwrap(o) > 3) {
    let v: i8 = unwrap(o)
    $t2 = v as u32
  } else {
    if is_some(o) && (unwrap(o) == 0) {
      $t2 = 10
    } else {
      if !is_some(o) {
        $t2 = 20
      } else {
        $t2 = 30
      }
    }
  }
  let j: u32 = $t2
  if pair.0 == true {
    let x: u8 = pair.1
    return x as u32
  } else {
    if (pair.0 == false) && ((pair.1 >= 0) && (pair.1 <= 9)) {
    }
  }
  if n == 0 {
    return k
  } else {
    if (n == 1) || (n == 2) {
      return j
    } else {
      if n > 100 {
        let m: u32 = n
        return m - 100
      } else {
        return k + j
      }
    }
  }
}
"#,
    );
}

/// `while` with `&&`, labeled `break`/`continue`, `for` over ranges (`rev`, `..=`), slices, `iter()`, `enumerate()`, `loop` with a value.
#[test]
fn loops() {
    assert_lowers_to(
        r#"
fn loops(v: &[i32], n: usize) -> i32 {
    let mut s = 0;
    let mut i = 0;
    'outer: while i < n && v[i] > 0 {
        for j in (0..i).rev() {
            if v[j] == 3 { continue 'outer; }
            if v[j] == 4 { break 'outer; }
        }
        i += 1;
    }
    for k in 1..=n { s += k as i32; }
    for x in v { s += x; }
    for &x in v.iter() { s -= x; }
    for (k, x) in v.iter().enumerate() { s += *x * k as i32; }
    let r = loop {
        s += 1;
        if s > 3 { break s * 2; }
    };
    r
}
"#,
        r#"
fn loops(v: [i32], n: usize) -> i32
{
  let s: i32 = 0
  let i: usize = 0
  'outer: while (i < n) && (v[i] > 0) {
    for j: usize in rev(0..i) {
      if v[j] == 3 {
        continue 'outer
      }
      if v[j] == 4 {
        break 'outer
      }
    }
    i = i + 1
  }
  for k: usize in 1..=n {
    s = s + (k as i32)
  }
  for x: i32 in elements(v) {
    s = s + x
  }
  for x#2: i32 in elements(v) {
    s = s - x#2
  }
  for x#3: i32 in enumerate(v) with index k#2 {
    s = s + (x#3 * (k#2 as i32))
  }
  let $t1: i32
  loop {
    s = s + 1
    if s > 3 {
      $t1 = s * 2
      break
    }
  }
  let r: i32 = $t1
  return r
}
"#,
    );
}

/// `let … else`, `if let` chains, `assert!`/`assert_eq!`/`debug_assert_ne!`, `panic!`, `unreachable!`.
#[test]
fn specs() {
    assert_lowers_to(
        r#"
fn specs(o: Option<i8>, x: i32) -> i32 {
    let Some(w) = o else { return 0; };
    if let Some(v) = o && v > 0 {
        return v as i32;
    }
    assert!(x < 10, "x below {}", 10);
    assert_eq!(w, 2);
    debug_assert_ne!(x, 0);
    if x == -1 { panic!("minus one"); }
    if x == -2 { unreachable!() }
    x
}
"#,
        r#"
fn specs(o: Option<i8>, x: i32) -> i32
{
  let $t1: Option<i8> = o
  if !is_some($t1) {
    return 0
  }
  let w: i8 = unwrap($t1)
  if is_some(o) && (unwrap(o) > 0) {
    let v: i8 = unwrap(o)
    return v as i32
  }
  assert x < 10, "x below {}", 10
  assert w == 2
  debug_assert x != 0
  if x == -1 {
    panic "minus one"
  }
  if x == -2 {
    panic
  }
  return x
}
"#,
    );
}

/// Calls of functions and methods of the file (`&mut` arguments and receivers write back), `max`, sums over slices.
#[test]
fn calls() {
    assert_lowers_to(
        r#"
struct Acc { total: u64 }
impl Acc {
    fn new() -> Acc { Acc { total: 0 } }
    fn add(&mut self, by: u64) { self.total += by; }
    fn get(&self) -> u64 { self.total }
    fn double(&mut self) { self.add(self.get()); }
}
fn bump(x: &mut i32, by: i32) { *x += by; }
fn calls(a: &[i32]) -> u64 {
    let mut acc = Acc::new();
    acc.add(3);
    let mut k = 1;
    bump(&mut k, 2);
    let m = std::cmp::max(k, 3);
    let t = a.iter().sum::<i32>();
    let h = a[1..3].iter().sum::<i32>();
    acc.get() + m as u64 + t as u64 + h as u64
}
"#,
        r#"
fn Acc::new() -> Acc
{
  return Acc { total: 0 }
}

fn Acc::add(self: &mut Acc, by: u64) -> ()
{
  self.total = self.total + by
}

fn Acc::get(self: Acc) -> u64
{
  return self.total
}

fn Acc::double(self: &mut Acc) -> ()
{
  Acc::add(&mut self, Acc::get(self))
}

fn bump(x: &mut i32, by: i32) -> ()
{
  x = x + by
}

fn calls(a: [i32]) -> u64
{
  let acc: Acc = Acc::new()
  Acc::add(&mut acc, 3)
  let k: i32 = 1
  bump(&mut k, 2)
  let m: i32 = max(k, 3)
  let t: i32 = sum $k in 0..len(a) => a[$k]
  let h: i32 = sum $k#2 in 1..3 => a[$k#2]
  return ((Acc::get(acc) + (m as u64)) + (t as u64)) + (h as u64)
}
"#,
    );
}

/// Contracts: `requires`/`ensures`/impl `invariant`, `ret`, `old`, `->`, quantifiers, nested conditions, `contains`.
#[test]
fn contracts() {
    assert_lowers_to(
        r#"
use autodebug_runtime::{ensures, invariant, requires};
struct Counter { n: u32 }
#[invariant(self.n <= 10, "bounded")]
impl Counter {
    #[requires(by > 0)]
    #[ensures(self.n == old(self.n) + by, "grows")]
    #[ensures(ret -> self.n > 5)]
    fn add(&mut self, by: u32) -> bool { self.n += by; self.n > 5 }
    fn zero() -> Counter { Counter { n: 0 } }
}
#[requires(forall i in 1..a.len() => a[i - 1] <= a[i], "sorted")]
#[ensures(ret.is_some() -> a[ret.unwrap()] == x)]
#[ensures(ret.is_none() -> !a.contains(&x))]
#[ensures(a.len() > 0 && (exists i in 0..=a.len() - 1 => a[i] == x -> ret.is_some()))]
fn find(a: &[i32], x: i32) -> Option<usize> { None }
"#,
        r#"
fn Counter::add(self: &mut Counter, by: u32) -> bool
  invariant self.n <= 10
  requires by > 0
  ensures self.n == (old(self.n) + by)
  ensures ret -> (self.n > 5)
{
  self.n = self.n + by
  return self.n > 5
}

fn Counter::zero() -> Counter
{
  return Counter { n: 0 }
}

fn find(a: [i32], x: i32) -> Option<usize>
  requires forall i in 1..len(a) => a[i - 1] <= a[i]
  ensures is_some(ret) -> (a[unwrap(ret)] == x)
  ensures !is_some(ret) -> !(exists $k in 0..len(a) => a[$k] == x)
  ensures (len(a) > 0) && (exists i#2 in 0..=(len(a) - 1) => (a[i#2] == x) -> is_some(ret))
{
  return None
}
"#,
    );
}

/// Sites as `{}` renders them: kind and start of every reported site (unreported
/// components in parentheses).
#[test]
fn sites_are_placed_as_the_macro_places_them() {
    let src = "\
fn f(a: i32, v: &[i32]) -> i32 {
    let (x, y) = (a, 1);
    let mut s = 0;
    while s < a && v[0] > 0 {
        s += x;
    }
    for i in 0..v.len() {
        s = s - v[i];
    }
    loop { break; }
    if s > 10 { s } else { y }
}
";
    let program = lower(src);
    let f = program.function("f").expect("f");
    let expected = "\
fn f(a: i32, v: [i32]) -> i32 @Fn(1:4)
{
  let $t1: (i32, i32) = (a, 1) @Let(2:18)
  let x: i32 = $t1.0
  let y: i32 = $t1.1
  let s: i32 = 0 @Let(3:17)
  while {s < a} @Operand(4:11) && {v[0] > 0} @Operand(4:20) @While(4:11) @Loop(4:5) {
    s = s + x @Compound(5:14)
  }
  for i: usize in 0..len(v) @Bound(7:17) @Loop(7:5) {
    s = s - v[i] @Assign(8:13)
  }
  loop @Loop(10:5) {
    break
  }
  if s > 10 @If(11:8) {
    return s @Return(11:17)
  } else {
    return y @Return(11:28)
  }
}
";
    assert_eq!(f.to_string(), expected);
    // Ends and texts, as the trace's site table gives them.
    let bound = f
        .sites()
        .into_iter()
        .find(|s| s.kind == SiteKind::Bound)
        .expect("a bound");
    assert_eq!(bound.span.code, "v.len()");
    assert_eq!(
        bound.span.end,
        Pos {
            line: 7,
            column: 24
        }
    );
    let head = f
        .sites()
        .into_iter()
        .find(|s| s.kind == SiteKind::Loop && s.span.start.line == 4)
        .expect("a while head");
    assert_eq!(head.span.code, "while s < a && v[0] > 0");
    assert!(!f.instrumented, "no attribute: not instrumented");
}

/// `Vars(c)`: the user's variables visible at each component, a `let`'s own variable
/// excluded, shadowed and out-of-scope ones excluded, temporaries never.
#[test]
fn components_carry_the_variables_in_scope() {
    let src = "\
fn f(a: i32, b: i32) -> i32 {
    let x = a;
    {
        let y = x + 1;
        let a = y;
    }
    let z = match b { 0 => x, _ => a };
    z + x
}
";
    let program = lower(src);
    let f = program.function("f").expect("f");
    let scope_of = |line: u32| -> Vec<String> {
        let c = f
            .components()
            .into_iter()
            .find(|c| c.site.span.start.line == line)
            .unwrap_or_else(|| panic!("a component on line {line}"));
        c.scope.iter().map(|&v| f.var_name(v)).collect()
    };
    assert_eq!(scope_of(2), ["a", "b"]);
    assert_eq!(scope_of(4), ["a", "b", "x"]);
    // The parameter `a`: the inner `a` is not in its own `let`'s scope.
    assert_eq!(scope_of(5), ["a", "b", "x", "y"]);
    // After the block, `y` and the inner `a` are gone.
    assert_eq!(scope_of(7), ["a", "b", "x"]);
    let param_a = f.params[0];
    let at_7 = f
        .components()
        .into_iter()
        .find(|c| c.site.span.start.line == 7)
        .expect("line 7");
    assert_eq!(at_7.scope[0], param_a);
    assert_eq!(f.vars_named("a").len(), 2);
    assert_eq!(scope_of(8), ["a", "b", "x", "z"]);
    assert!(f.components().iter().all(|c| {
        c.scope
            .iter()
            .all(|&v| matches!(f.var(v).kind, VarKind::Local | VarKind::Param { .. }))
    }));
}

/// Parameters: `&mut` ones (and `&mut self`) are marked, shared references are values;
/// methods are named as the instrumentation names them; instrumented functions are those
/// with one of the project's attributes (on themselves or their `impl`), not `const`.
#[test]
fn parameters_names_and_instrumentation() {
    let src = "\
use autodebug_runtime::{autodebug, invariant, requires};
struct Stack { items: Vec<i32>, len: usize }
#[invariant(self.len <= 100)]
impl Stack {
    fn push(&mut self, x: i32) { self.items.push(x); self.len += 1; }
    fn peek(&self) -> i32 { self.items[self.len - 1] }
    fn new() -> Stack { Stack { items: Vec::new(), len: 0 } }
    #[requires(n > 0)]
    fn with(n: usize) -> Stack { Stack::new() }
    const fn limit(&self) -> usize { 100 }
}
#[autodebug]
fn fill(s: &mut Stack, v: &[i32]) { for x in v { s.push(*x); } }
fn plain(x: u8) -> u8 { x }
mod tests {
    fn helper(k: u8) -> u8 { k }
}
";
    let program = lower(src);
    let names: Vec<&str> = program.functions.iter().map(|f| f.name.as_str()).collect();
    assert_eq!(
        names,
        [
            "Stack::push",
            "Stack::peek",
            "Stack::new",
            "Stack::with",
            "Stack::limit",
            "fill",
            "plain",
            "helper"
        ]
    );
    let instrumented: Vec<bool> = program.functions.iter().map(|f| f.instrumented).collect();
    assert_eq!(
        instrumented,
        [true, true, false, true, false, true, false, false]
    );
    let push = program.function("Stack::push").expect("push");
    assert!(push.var(push.params[0]).is_mut_param());
    assert_eq!(push.contracts.len(), 1);
    assert_eq!(push.contracts[0].kind, ContractKind::Invariant);
    let peek = program.function("Stack::peek").expect("peek");
    assert!(!peek.var(peek.params[0]).is_mut_param());
    let fill = program.function("fill").expect("fill");
    assert!(fill.var(fill.params[0]).is_mut_param());
    assert!(!fill.var(fill.params[1]).is_mut_param());
    assert_eq!(fill.var(fill.params[1]).ty.to_string(), "[i32]");
    // `new` has no `self`: the impl's invariant does not apply.
    assert!(
        program
            .function("Stack::new")
            .expect("new")
            .contracts
            .is_empty()
    );
    // Lookup by module path, and by a site's full function path.
    let helper = program.function("tests::helper").expect("helper by module");
    assert_eq!(helper.module, ["tests"]);
    assert!(program.function("my_crate::tests::helper").is_some());
    assert!(program.function("my_crate::fill").is_some());
    assert!(program.function("missing").is_none());
}

/// Contract sites span each condition's tokens, as the macro's do; messages are kept.
#[test]
fn contract_conditions_have_their_sites() {
    let src = "\
#[requires(x > 0, x < 100, \"in range\")]
#[ensures(ret >= x -> ret == x + 1)]
fn inc(x: u32) -> u32 { x + 1 }
";
    let program = lower(src);
    let f = program.function("inc").expect("inc");
    let sites: Vec<(ContractKind, Pos, Pos, &str)> = f
        .contracts
        .iter()
        .map(|c| {
            (
                c.kind,
                c.site.span.start,
                c.site.span.end,
                c.site.span.code.as_str(),
            )
        })
        .collect();
    let pos = |line, column| Pos { line, column };
    assert_eq!(
        sites,
        [
            (ContractKind::Requires, pos(1, 12), pos(1, 17), "x > 0"),
            (ContractKind::Requires, pos(1, 19), pos(1, 26), "x < 100"),
            (
                ContractKind::Ensures,
                pos(2, 11),
                pos(2, 35),
                "ret >= x -> ret == x + 1"
            ),
        ]
    );
    assert_eq!(f.contracts[0].message.as_deref(), Some("in range"));
    assert_eq!(f.contracts[0].site.kind, SiteKind::Requires);
    let ExprKind::Binary(_, premise, _) = &f.contracts[2].cond.kind else {
        panic!("an implication")
    };
    let ExprKind::Binary(_, ret, _) = &premise.kind else {
        panic!("a comparison")
    };
    assert_eq!(ret.kind, ExprKind::Var(f.ret));
    assert_eq!(f.var(f.ret).kind, VarKind::Ret);
}

/// Constructs outside the subset become opaque nodes with a reason, a position, and the
/// variables they may change.
#[test]
fn constructs_outside_the_subset_degrade_with_reasons() {
    let src = "\
fn f(s: &str, v: &mut Vec<i32>, g: f64) -> usize {
    let n = s.len();
    let c = v.iter().map(|x| x * 2).count();
    let r = &mut v[0];
    *r = 3;
    v.sort();
    let h = g * 2.0;
    n + c
}
";
    let program = lower(src);
    let f = program.function("f").expect("f");
    let found: Vec<(String, u32, u32)> = f
        .degradations
        .iter()
        .map(|d| (d.construct.clone(), d.span.start.line, d.span.start.column))
        .collect();
    let expected = [
        ("parameter `s`", 1, 6),
        ("parameter `g`", 1, 33),
        ("method `len`", 2, 13),
        ("method `count`", 3, 13),
        ("mutable borrow", 4, 5),
        ("write through a mutable borrow", 5, 5),
        ("method `sort`", 6, 5),
        ("arithmetic", 7, 13),
        ("literal", 7, 17),
    ];
    let expected: Vec<(String, u32, u32)> = expected
        .iter()
        .map(|(c, l, col)| (c.to_string(), *l, *col))
        .collect();
    assert_eq!(found, expected);
    assert!(f.degradations.iter().all(|d| !d.reason.is_empty()));
    // `v.sort()` may change `v`; the borrow changes `r` and `v`.
    let mut opaque = Vec::new();
    Stmt::walk_all(&f.body, &mut |s| {
        if let Stmt::Opaque { defines, .. } = s {
            opaque.push(defines.iter().map(|&v| f.var_name(v)).collect::<Vec<_>>());
        }
    });
    assert_eq!(opaque, [vec!["v", "r"], vec!["v"], vec!["v"]]);
    assert!(f.var(f.vars_named("v")[0]).is_mut_param());
    let n = f.vars_named("n")[0];
    assert_eq!(
        f.var(n).ty,
        Type::Int(autodebug_symbolic::ir::IntType::Usize)
    );
}

/// Nothing that parses makes the lowering panic: generics, traits, closures, async,
/// labeled blocks, `?`, strings, floats, nested items, macros of all kinds.
#[test]
fn anything_that_parses_lowers() {
    let src = r#"
use std::collections::HashMap;
trait Shape { fn area(&self) -> f64; fn name(&self) -> String { "shape".into() } }
struct Wrap<T>(T);
impl<T: Clone> Wrap<T> { fn get(&self) -> T { self.0.clone() } }
enum E { A(i32), B { x: u8 } }
async fn fetch() -> u8 { 1 }
const fn c() -> u8 { 2 }
unsafe fn raw(p: *const u8) -> u8 { *p }
fn kitchen(m: &mut HashMap<String, i32>, e: E) -> Result<i32, String> {
    let v: Vec<i32> = (0..10).filter(|x| x % 2 == 0).collect();
    let s = format!("{}", v.len());
    let t = 'b: { if v.is_empty() { break 'b 1; } 2 };
    let n: i32 = s.parse().map_err(|_| "bad".to_string())?;
    m.insert(s.clone(), n);
    let x = match e { E::A(k) => k, E::B { x } => x as i32 };
    fn inner(q: u8) -> u8 { q }
    let w = unsafe { raw(&3) };
    let f = 1.5f32 as i32;
    let arr = [[0u8; 3]; 2];
    let (a, .., b) = (1, 2, 3, 4);
    let cl = |y: i32| -> i32 { y + t };
    let big = u128::MAX;
    while let Some(top) = v.last() { if *top > 0 { break; } }
    let tuple_ref = &(1, 2).0;
    Ok(x + cl(1) + inner(w) as i32 + f + a + b + arr[1][2] as i32 + *tuple_ref)
}
"#;
    let program = lower(src);
    let names: Vec<&str> = program.functions.iter().map(|f| f.name.as_str()).collect();
    // Trait items are not functions of the program (they have no single body).
    assert_eq!(names, ["Wrap::get", "fetch", "c", "raw", "kitchen"]);
    let kitchen = program.function("kitchen").expect("kitchen");
    assert!(!kitchen.is_fully_lowered());
    for f in &program.functions {
        for d in &f.degradations {
            assert!(d.span.start.line > 0, "{}: {d:?}", f.name);
            assert!(!d.reason.is_empty());
        }
        let _ = f.to_string();
    }
    // The `while let` is a loop breaking when the pattern fails.
    let mut loops = 0;
    Stmt::walk_all(&kitchen.body, &mut |s| {
        if let Stmt::Loop { head, .. } = s {
            assert_eq!(head.span.code, "while let Some(top) = v.last()");
            loops += 1;
        }
    });
    assert_eq!(loops, 1);
}

/// A `for` loop over a range keeps its bound as a component; one over a slice iterates
/// its elements.
#[test]
fn for_loops_name_what_they_iterate() {
    let src =
        "fn f(v: &[u8], n: u8) { for i in (1..n).rev() {} for (k, &x) in v.iter().enumerate() {} }";
    let program = lower(src);
    let f = program.function("f").expect("f");
    let mut iterations = Vec::new();
    Stmt::walk_all(&f.body, &mut |s| {
        if let Stmt::For { iteration, var, .. } = s {
            iterations.push((iteration.clone(), f.var(*var).ty.clone()));
        }
    });
    let [(range, range_ty), (elements, elem_ty)] = iterations.as_slice() else {
        panic!("two loops: {iterations:?}")
    };
    let Iteration::Range {
        reverse,
        inclusive,
        bound,
        ..
    } = range
    else {
        panic!("a range")
    };
    assert!(*reverse && !*inclusive);
    assert_eq!(bound.as_ref().expect("a bound").site.span.code, "n");
    assert_eq!(range_ty, &Type::Int(autodebug_symbolic::ir::IntType::U8));
    let Iteration::Elements { index, .. } = elements else {
        panic!("elements")
    };
    assert_eq!(f.var_name(index.expect("an index")), "k");
    assert_eq!(elem_ty, &Type::Int(autodebug_symbolic::ir::IntType::U8));
}

/// A parse error is an error, not a panic.
#[test]
fn unparseable_files_are_errors() {
    let err = Program::from_source("fn f( {", "src/bad.rs").expect_err("does not parse");
    assert!(err.to_string().starts_with("src/bad.rs:1:"), "{err}");
    let missing = Program::from_file("/nonexistent/file.rs").expect_err("no such file");
    assert!(missing.to_string().contains("/nonexistent/file.rs"));
}

/// Bindings that would alias their scrutinee (`ref mut`, match ergonomics on a `&mut`
/// value) degrade instead of silently losing the writes through them; a closure that
/// mutates what it captured changes it where it is called.
#[test]
fn aliasing_bindings_and_mutating_closures_are_not_silently_lost() {
    let src = "\
fn f(pair: &mut (i32, i32), o: &mut Option<u8>, q: (i32, i32)) -> i32 {
    let (a, b) = pair;
    *a += 1;
    if let Some(ref mut x) = *o { *x += 1; }
    let (c, d) = q;
    let mut count = 0;
    let mut bump = |k: i32| count += k;
    bump(2);
    c + d + count
}
";
    let program = lower(src);
    let f = program.function("f").expect("f");
    let constructs: Vec<(&str, u32)> = f
        .degradations
        .iter()
        .map(|d| (d.construct.as_str(), d.span.start.line))
        .collect();
    assert!(constructs.contains(&("`let` pattern", 2)), "{constructs:?}");
    assert!(
        constructs.contains(&("`let` condition", 4)),
        "{constructs:?}"
    );
    // `(c, d) = q` binds copies: fine.
    assert!(
        !constructs.iter().any(|(_, line)| *line == 5),
        "{constructs:?}"
    );
    // The call `bump(2)` may change `count`.
    let count = f.vars_named("count")[0];
    let mut call_defines = None;
    Stmt::walk_all(&f.body, &mut |s| {
        if let Stmt::Opaque { span, defines, .. } = s
            && span.code == "bump(2)"
        {
            call_defines = Some(defines.clone());
        }
    });
    assert_eq!(call_defines, Some(vec![count]));
}

/// ASCII classes of `char` are comparisons.
#[test]
fn ascii_char_classes() {
    assert_lowers_to(
        "fn f(c: char) -> bool { c.is_ascii_digit() || c.to_ascii_lowercase() == 'q' }",
        "
fn f(c: char) -> bool
{
  return ((c >= '0') && (c <= '9')) || ((if (c >= 'A') && (c <= 'Z') { ((c as u8) + 32) as char } else { c }) == 'q')
}
",
    );
}

/// Declarations without a value and destructuring assignments.
#[test]
fn destructuring_assignment() {
    assert_lowers_to(
        "fn m(p: (i32, i32)) -> i32 { let (a, b); (a, b) = p; _ = a; a + b }",
        "
fn m(p: (i32, i32)) -> i32
{
  let a: i32
  let b: i32
  let $t1: (i32, i32)
  $t1 = p
  a = $t1.0
  b = $t1.1
  let $t2: i32 = a
  return a + b
}
",
    );
}
