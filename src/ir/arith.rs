//! The language's integer arithmetic where Rust's differs: `/` and `%` round toward minus
//! infinity. Shared by the checker's constant folding and the runner, so both agree.

/// Division rounding down (toward minus infinity), as the language defines `/`: `7 / -2` is -4.
/// `None` when dividing by zero or when the quotient overflows (`i64::MIN / -1`).
pub fn floor_div(a: i64, b: i64) -> Option<i64> {
    let q = a.checked_div(b)?;
    if a % b != 0 && ((a < 0) != (b < 0)) {
        q.checked_sub(1)
    } else {
        Some(q)
    }
}

/// The remainder that goes with [`floor_div`], as the language defines `%`: `a - floor_div(a, b) * b`,
/// so its sign follows the divisor (`7 % -2` is -1). `None` wherever `floor_div` is `None`
/// (including `i64::MIN % -1`) or the arithmetic overflows.
pub fn floor_rem(a: i64, b: i64) -> Option<i64> {
    floor_div(a, b).and_then(|q| a.checked_sub(q.checked_mul(b)?))
}

/// `a op b` for an arithmetic operator, as the language computes it; `None` on overflow, on
/// division by zero, and for `and` / `or` (which are not arithmetic).
pub fn checked(op: super::BinOp, a: i64, b: i64) -> Option<i64> {
    use super::BinOp;
    match op {
        BinOp::Add => a.checked_add(b),
        BinOp::Sub => a.checked_sub(b),
        BinOp::Mul => a.checked_mul(b),
        BinOp::Div => floor_div(a, b),
        BinOp::Rem => floor_rem(a, b),
        BinOp::And | BinOp::Or => None,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn division_rounds_toward_minus_infinity() {
        assert_eq!(floor_div(7, 2), Some(3));
        assert_eq!(floor_div(-7, 2), Some(-4));
        assert_eq!(floor_div(7, -2), Some(-4));
        assert_eq!(floor_div(-7, -2), Some(3));
        assert_eq!(floor_div(6, -2), Some(-3));
        assert_eq!(floor_div(0, -5), Some(0));
    }

    #[test]
    fn division_by_zero_and_overflow_are_none() {
        assert_eq!(floor_div(7, 0), None);
        assert_eq!(floor_div(0, 0), None);
        assert_eq!(floor_div(i64::MIN, -1), None);
        assert_eq!(floor_div(i64::MIN, 1), Some(i64::MIN));
    }

    #[test]
    fn remainder_sign_follows_the_divisor() {
        assert_eq!(floor_rem(7, 2), Some(1));
        assert_eq!(floor_rem(-7, 2), Some(1));
        assert_eq!(floor_rem(7, -2), Some(-1));
        assert_eq!(floor_rem(-7, -2), Some(-1));
        assert_eq!(floor_rem(6, -2), Some(0));
    }

    #[test]
    fn remainder_is_none_where_division_is() {
        assert_eq!(floor_rem(7, 0), None);
        // `i64::MIN / -1` overflows, so `floor_div` is None and so is the remainder
        // (Rust's `checked_rem` would also refuse it).
        assert_eq!(floor_rem(i64::MIN, -1), None);
        assert_eq!(floor_rem(i64::MIN, 1), Some(0));
    }

    #[test]
    fn division_and_remainder_agree() {
        for a in -20..=20 {
            for b in (-6..=6).filter(|&b| b != 0) {
                let (q, r) = (floor_div(a, b).unwrap(), floor_rem(a, b).unwrap());
                assert_eq!(q * b + r, a, "{a} / {b}");
                assert!(r == 0 || (r < 0) == (b < 0), "{a} % {b} = {r}");
                assert!(r.abs() < b.abs(), "{a} % {b} = {r}");
            }
        }
    }
}
