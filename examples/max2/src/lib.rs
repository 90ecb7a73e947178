//! Maximum of two numbers: the running example of Könighofer & Bloem ("Automated error
//! localization and correction for imperative programs"), with its fault in line 4 of
//! their example 2: `r = x` where `r = y` is meant. See `fault.json`.

use autodebug_runtime::ensures;

/// The larger of `x` and `y`.
#[ensures(ret == x || ret == y)]
pub fn max(x: i32, y: i32) -> i32 {
    let mut r = x;
    if y > x {
        r = x;
    }
    assert!(r >= x && r >= y);
    r
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn max_of_larger_first() {
        assert_eq!(max(2, 1), 2);
        assert_eq!(max(10, -10), 10);
    }

    #[test]
    fn max_of_larger_second() {
        assert_eq!(max(1, 2), 2);
    }

    #[test]
    fn max_of_equal_numbers() {
        assert_eq!(max(3, 3), 3);
        assert_eq!(max(-1, -1), -1);
    }

    #[test]
    fn max_of_negative_numbers() {
        assert_eq!(max(-5, -7), -5);
        assert_eq!(max(-7, -5), -5);
    }

    #[test]
    fn max_of_extremes() {
        assert_eq!(max(i32::MIN, 0), 0);
    }
}
