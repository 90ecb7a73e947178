//! Integer number theory with loops, in the spirit of the small numeric programs of the
//! fault-localization literature (Euclid's gcd, integer roots, fast exponentiation):
//! greatest common divisor, least common multiple, integer square root by bisection,
//! modular exponentiation by squaring, primality by trial division, integer base-2
//! logarithm, digit sums and the digital root.
//!
//! Everything works on `u64`; the preconditions bound the inputs so that no intermediate
//! product can overflow.

use autodebug_runtime::{ensures, requires};

/// Largest argument of [`isqrt`] and [`is_prime`]: `10^12`, whose square root is
/// [`MAX_ROOT`].
pub const MAX_SQUARE: u64 = 1_000_000_000_000;
/// The square root of [`MAX_SQUARE`].
pub const MAX_ROOT: u64 = 1_000_000;
/// Largest argument of [`lcm`]: the product of two of them fits in a `u64`.
pub const MAX_LCM_ARG: u64 = 1_000_000_000;
/// Largest modulus of [`mod_pow`]: products of two residues fit in a `u64`.
pub const MAX_MODULUS: u64 = 1 << 32;

/// The greatest common divisor of `a` and `b` by Euclid's algorithm (`gcd(0, 0) = 0`).
#[ensures((ret == 0) == (a == 0 && b == 0))]
#[ensures(ret > 0 -> a % ret == 0 && b % ret == 0, "a common divisor")]
pub fn gcd(a: u64, b: u64) -> u64 {
    let mut x = a;
    let mut y = b;
    while y != 0 {
        let r = x % y;
        x = y;
        y = r;
    }
    x
}

/// The least common multiple of `a` and `b` (0 when either is 0).
#[requires(a <= MAX_LCM_ARG && b <= MAX_LCM_ARG, "arguments at most 10^9")]
#[ensures(ret == 0 -> a == 0 || b == 0)]
#[ensures(ret > 0 -> ret % a == 0 && ret % b == 0, "a common multiple")]
#[ensures(ret <= a * b)]
pub fn lcm(a: u64, b: u64) -> u64 {
    if a == 0 || b == 0 {
        return 0;
    }
    a / gcd(a, b) * b
}

/// The integer square root of `n`: the largest `r` with `r * r <= n`, found by bisection.
#[requires(n <= MAX_SQUARE, "n at most 10^12")]
#[ensures(ret * ret <= n && (ret + 1) * (ret + 1) > n)]
pub fn isqrt(n: u64) -> u64 {
    // Invariant: lo * lo <= n < hi * hi.
    let mut lo = 0;
    let mut hi = if n < MAX_ROOT { n + 1 } else { MAX_ROOT + 1 };
    while hi - lo > 1 {
        let mid = lo + (hi - lo) / 2;
        if mid * mid <= n {
            lo = mid;
        } else {
            hi = mid;
        }
    }
    lo
}

/// `base` raised to `exp`, modulo `m`, by repeated squaring.
#[requires(m >= 1 && m <= MAX_MODULUS, "a modulus in 1..=2^32")]
#[ensures(ret < m)]
#[ensures(exp == 0 -> ret == 1 % m)]
pub fn mod_pow(base: u64, exp: u64, m: u64) -> u64 {
    let mut result = 1 % m;
    let mut b = base % m;
    let mut e = exp;
    while e > 0 {
        if e % 2 == 1 {
            result = result * b % m;
        }
        b = b * b % m;
        e /= 2;
    }
    result
}

/// Whether `n` is prime, by trial division with the odd numbers up to its square root.
#[requires(n <= MAX_SQUARE, "n at most 10^12")]
#[ensures(ret -> n >= 2)]
#[ensures(ret && n > 2 -> n % 2 == 1)]
pub fn is_prime(n: u64) -> bool {
    if n < 2 {
        return false;
    }
    if n < 4 {
        return true;
    }
    if n % 2 == 0 {
        return false;
    }
    let mut d = 3;
    while d * d <= n {
        if n % d == 0 {
            return false;
        }
        d += 2;
    }
    true
}

/// The base-2 logarithm of `n`, rounded down: the position of its highest set bit.
#[requires(n > 0, "the logarithm of 0 is undefined")]
#[ensures(ret < 64)]
#[ensures(1u64 << ret <= n)]
#[ensures(ret == 63 || n < 1u64 << (ret + 1))]
pub fn ilog2(n: u64) -> u32 {
    let mut k = 0;
    let mut v = n;
    while v > 1 {
        v /= 2;
        k += 1;
    }
    k
}

/// The sum of the decimal digits of `n`.
#[ensures(n < 10 -> ret == n)]
#[ensures(ret <= n)]
#[ensures(ret % 9 == n % 9, "casting out nines")]
pub fn digit_sum(n: u64) -> u64 {
    let mut s = 0;
    let mut m = n;
    while m > 0 {
        s += m % 10;
        m /= 10;
    }
    s
}

/// The digital root of `n`: its digit sum, repeated until a single digit remains.
#[ensures(ret < 10)]
#[ensures(n > 0 -> ret >= 1)]
pub fn digital_root(n: u64) -> u64 {
    let mut r = n;
    while r >= 10 {
        r = digit_sum(r);
    }
    r
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn gcd_by_euclid() {
        assert_eq!(gcd(12, 18), 6);
        assert_eq!(gcd(18, 12), 6);
        assert_eq!(gcd(17, 5), 1);
        assert_eq!(gcd(7, 7), 7);
        assert_eq!(gcd(0, 9), 9);
        assert_eq!(gcd(9, 0), 9);
        assert_eq!(gcd(0, 0), 0);
        assert_eq!(gcd(1071, 462), 21);
    }

    #[test]
    fn lcm_from_gcd() {
        assert_eq!(lcm(4, 6), 12);
        assert_eq!(lcm(6, 4), 12);
        assert_eq!(lcm(5, 7), 35);
        assert_eq!(lcm(8, 8), 8);
        assert_eq!(lcm(1, 9), 9);
        assert_eq!(lcm(0, 3), 0);
        assert_eq!(lcm(3, 0), 0);
        assert_eq!(lcm(21, 6), 42);
    }

    #[test]
    fn square_roots_of_small_numbers() {
        let expected = [0, 1, 1, 1, 2, 2, 2, 2, 2, 3, 3];
        for (n, &r) in expected.iter().enumerate() {
            assert_eq!(isqrt(n as u64), r, "isqrt({n})");
        }
        assert_eq!(isqrt(99), 9);
        assert_eq!(isqrt(100), 10);
        assert_eq!(isqrt(101), 10);
    }

    #[test]
    fn square_roots_of_large_numbers() {
        assert_eq!(isqrt(999_999), 999);
        assert_eq!(isqrt(1_000_000), 1000);
        assert_eq!(isqrt(MAX_SQUARE), MAX_ROOT);
        assert_eq!(isqrt(MAX_SQUARE - 1), MAX_ROOT - 1);
        assert_eq!(isqrt(123_456_789), 11_111);
    }

    #[test]
    #[should_panic(expected = "Pre-condition of isqrt violated: n at most 10^12")]
    fn isqrt_rejects_huge_numbers() {
        isqrt(MAX_SQUARE + 1);
    }

    #[test]
    fn modular_powers() {
        assert_eq!(mod_pow(2, 10, 1000), 24);
        assert_eq!(mod_pow(3, 0, 7), 1);
        assert_eq!(mod_pow(3, 1, 7), 3);
        assert_eq!(mod_pow(3, 2, 7), 2);
        assert_eq!(mod_pow(5, 3, 13), 8);
        assert_eq!(mod_pow(7, 5, 1), 0);
        assert_eq!(mod_pow(10, 9, 6), 4);
        assert_eq!(mod_pow(2, 32, MAX_MODULUS), 0);
        assert_eq!(mod_pow(2, 31, 1 << 32), 1 << 31);
        assert_eq!(mod_pow(MAX_MODULUS - 1, 2, MAX_MODULUS), 1);
    }

    #[test]
    fn primes_and_composites() {
        let primes: Vec<u64> = (0..30).filter(|&n| is_prime(n)).collect();
        assert_eq!(primes, vec![2, 3, 5, 7, 11, 13, 17, 19, 23, 29]);
        assert!(!is_prime(49));
        assert!(!is_prime(121));
        assert!(is_prime(97));
        assert!(is_prime(7919));
        assert!(!is_prime(7917));
    }

    #[test]
    fn base_two_logarithms() {
        assert_eq!(ilog2(1), 0);
        assert_eq!(ilog2(2), 1);
        assert_eq!(ilog2(3), 1);
        assert_eq!(ilog2(4), 2);
        assert_eq!(ilog2(1023), 9);
        assert_eq!(ilog2(1024), 10);
        assert_eq!(ilog2(u64::MAX), 63);
    }

    #[test]
    fn digit_sums() {
        assert_eq!(digit_sum(0), 0);
        assert_eq!(digit_sum(7), 7);
        assert_eq!(digit_sum(10), 1);
        assert_eq!(digit_sum(19), 10);
        assert_eq!(digit_sum(12345), 15);
        assert_eq!(digit_sum(90_009), 18);
    }

    #[test]
    fn digital_roots() {
        assert_eq!(digital_root(0), 0);
        assert_eq!(digital_root(9), 9);
        assert_eq!(digital_root(10), 1);
        assert_eq!(digital_root(38), 2);
        assert_eq!(digital_root(99), 9);
        assert_eq!(digital_root(123_456_789), 9);
        assert_eq!(digital_root(1_000_000_007), 8);
    }
}
