use Error;
use num::{FromPrimitive, One, ToPrimitive, Zero};
use std::cmp::*;
use std::cmp::Ordering::Equal;
use std::fmt;
use std::hash::{Hash, Hasher};
use std::iter::repeat;
use std::ops::{Add, AddAssign, Div, DivAssign, Mul, MulAssign, Rem, RemAssign, Sub, SubAssign};
use std::str::FromStr;

// Sign mask for the flags field. A value of zero in this bit indicates a
// positive Decimal value, and a value of one in this bit indicates a
// negative Decimal value.
const SIGN_MASK: u32 = 0x8000_0000;

// Scale mask for the flags field. This byte in the flags field contains
// the power of 10 to divide the Decimal value by. The scale byte must
// contain a value between 0 and 28 inclusive.
const SCALE_MASK: u32 = 0x00FF_0000;
const U8_MASK: u32 = 0x0000_00FF;
const U32_MASK: u64 = 0xFFFF_FFFF;

// Number of bits scale is shifted by.
const SCALE_SHIFT: u32 = 16;

// The maximum supported precision
const MAX_PRECISION: u32 = 28;

static ONE_INTERNAL_REPR: [u32; 3] = [1, 0, 0];

lazy_static! {
    static ref MIN: Decimal = Decimal {
        flags: 2_147_483_648,
        lo: 4_294_967_295,
        mid: 4_294_967_295,
        hi: 4_294_967_295
    };
    static ref MAX: Decimal = Decimal {
        flags: 0,
        lo: 4_294_967_295,
        mid: 4_294_967_295,
        hi: 4_294_967_295
    };
}

// Fast access for 10^n where n is 0-9
static POWERS_10: [u32; 10] = [
                1,
               10,
              100,
            1_000,
           10_000,
          100_000,
        1_000_000,
       10_000_000,
      100_000_000,
    1_000_000_000,
];
// Fast access for 10^n where n is 10-19
#[allow(dead_code)]
static BIG_POWERS_10: [u64; 10] = [
                10_000_000_000,
               100_000_000_000,
             1_000_000_000_000,
            10_000_000_000_000,
           100_000_000_000_000,
         1_000_000_000_000_000,
        10_000_000_000_000_000,
       100_000_000_000_000_000,
     1_000_000_000_000_000_000,
    10_000_000_000_000_000_000,
];

/// `Decimal` represents a 128 bit representation of a fixed-precision decimal number.
/// The finite set of values of type `Decimal` are of the form m / 10^e,
/// where m is an integer such that -2^96 <= m <= 2^96, and e is an integer
/// between 0 and 28 inclusive.
#[derive(Clone, Copy, Debug)]
pub struct Decimal {
    // Bits 0-15: unused
    // Bits 16-23: Contains "e", a value between 0-28 that indicates the scale
    // Bits 24-30: unused
    // Bit 31: the sign of the Decimal value, 0 meaning positive and 1 meaning negative.
    flags: u32,
    // The lo, mid, hi, and flags fields contain the representation of the
    // Decimal value as a 96-bit integer.
    hi: u32,
    lo: u32,
    mid: u32,
}

#[allow(dead_code)]
impl Decimal {
    /// Returns a `Decimal` with a 64 bit `m` representation and corresponding `e` scale.
    ///
    /// # Arguments
    ///
    /// * `num` - An i64 that represents the `m` portion of the decimal number
    /// * `scale` - A u32 representing the `e` portion of the decimal number.
    ///
    /// # Example
    ///
    /// ```
    /// use rust_decimal::Decimal;
    /// let _pi = Decimal::new(3141i64, 3u32);
    /// ```
    pub fn new(num: i64, scale: u32) -> Decimal {
        if scale > MAX_PRECISION {
            panic!(
                "Scale exceeds the maximum precision allowed: {} > {}",
                scale,
                MAX_PRECISION
            );
        }
        let flags: u32 = scale << SCALE_SHIFT;
        if num < 0 {
            return Decimal {
                flags: flags | SIGN_MASK,
                hi: 0,
                lo: (num.abs() as u64 & U32_MASK) as u32,
                mid: ((num.abs() as u64 >> 32) & U32_MASK) as u32,
            };
        }
        Decimal {
            flags: flags,
            hi: 0,
            lo: (num as u64 & U32_MASK) as u32,
            mid: ((num as u64 >> 32) & U32_MASK) as u32,
        }
    }

    /// Returns a `Decimal` using the instances constituent parts.
    ///
    /// # Arguments
    ///
    /// * `lo` - The low 32 bits of a 96-bit integer.
    /// * `mid` - The middle 32 bits of a 96-bit integer.
    /// * `hi` - The high 32 bits of a 96-bit integer.
    /// * `negative` - `true` to indicate a negative number.
    /// * `scale` - A power of 10 ranging from 0 to 28.
    ///
    /// # Example
    ///
    /// ```
    /// use rust_decimal::Decimal;
    /// let _pi = Decimal::from_parts(3141u32, 0u32, 0u32, false, 3u32);
    /// ```
    pub fn from_parts(lo: u32, mid: u32, hi: u32, negative: bool, scale: u32) -> Decimal {
        Decimal {
            lo: lo,
            mid: mid,
            hi: hi,
            flags: flags(negative, scale),
        }
    }

    /// Returns the scale of the decimal number, otherwise known as `e`.
    pub fn scale(&self) -> u32 {
        ((self.flags & SCALE_MASK) >> SCALE_SHIFT) as u32
    }

    /// An optimized method for changing the sign of a decimal number.
    ///
    /// # Arguments
    ///
    /// * `positive`: true if the resulting decimal should be positive.
    pub fn set_sign(&mut self, positive: bool) {
        if positive {
            if self.is_sign_negative() {
                self.flags ^= SIGN_MASK;
            }
        } else {
            self.flags |= SIGN_MASK;
        }
    }

    /// An optimized method for changing the scale of a decimal number.
    ///
    /// # Arguments
    ///
    /// * `scale`: the new scale of the number
    pub fn set_scale(&mut self, scale: u32) -> Result<(), Error> {
        if scale > MAX_PRECISION {
            return Err(Error::new("Scale exceeds maximum precision"));
        }
        self.flags = (scale << SCALE_SHIFT) | (self.flags & SIGN_MASK);
        Ok(())
    }

    /// Returns a serialized version of the decimal number.
    /// The resulting byte array will have the following representation:
    ///
    /// * Bytes 1-4: flags
    /// * Bytes 5-8: lo portion of `m`
    /// * Bytes 9-12: mid portion of `m`
    /// * Bytes 13-16: high portion of `m`
    pub fn serialize(&self) -> [u8; 16] {
        [
            (self.flags & U8_MASK) as u8,
            ((self.flags >> 8) & U8_MASK) as u8,
            ((self.flags >> 16) & U8_MASK) as u8,
            ((self.flags >> 24) & U8_MASK) as u8,
            (self.lo & U8_MASK) as u8,
            ((self.lo >> 8) & U8_MASK) as u8,
            ((self.lo >> 16) & U8_MASK) as u8,
            ((self.lo >> 24) & U8_MASK) as u8,
            (self.mid & U8_MASK) as u8,
            ((self.mid >> 8) & U8_MASK) as u8,
            ((self.mid >> 16) & U8_MASK) as u8,
            ((self.mid >> 24) & U8_MASK) as u8,
            (self.hi & U8_MASK) as u8,
            ((self.hi >> 8) & U8_MASK) as u8,
            ((self.hi >> 16) & U8_MASK) as u8,
            ((self.hi >> 24) & U8_MASK) as u8,
        ]
    }

    /// Deserializes the given bytes into a decimal number.
    /// The deserialized byte representation must be 16 bytes and adhere to the followign convention:
    ///
    /// * Bytes 1-4: flags
    /// * Bytes 5-8: lo portion of `m`
    /// * Bytes 9-12: mid portion of `m`
    /// * Bytes 13-16: high portion of `m`
    pub fn deserialize(bytes: [u8; 16]) -> Decimal {
        Decimal {
            flags: u32::from(bytes[0]) | u32::from(bytes[1]) << 8 | u32::from(bytes[2]) << 16 |
                u32::from(bytes[3]) << 24,
            lo: u32::from(bytes[4]) | u32::from(bytes[5]) << 8 | u32::from(bytes[6]) << 16 | u32::from(bytes[7]) << 24,
            mid: u32::from(bytes[8]) | u32::from(bytes[9]) << 8 | u32::from(bytes[10]) << 16 |
                u32::from(bytes[11]) << 24,
            hi: u32::from(bytes[12]) | u32::from(bytes[13]) << 8 | u32::from(bytes[14]) << 16 |
                u32::from(bytes[15]) << 24,
        }
    }

    /// Returns `true` if the decimal is negative.
    #[deprecated(since = "0.6.3", note = "please use `is_sign_negative` instead")]
    pub fn is_negative(&self) -> bool {
        self.is_sign_negative()
    }

    /// Returns `true` if the decimal is positive.
    #[deprecated(since = "0.6.3", note = "please use `is_sign_positive` instead")]
    pub fn is_positive(&self) -> bool {
        self.is_sign_positive()
    }

    /// Returns `true` if the decimal is negative.
    pub fn is_sign_negative(&self) -> bool {
        self.flags & SIGN_MASK > 0
    }

    /// Returns `true` if the decimal is positive.
    pub fn is_sign_positive(&self) -> bool {
        self.flags & SIGN_MASK == 0
    }

    /// Returns the minimum possible number that `Decimal` can represent.
    pub fn min_value() -> Decimal {
        *MIN
    }

    /// Returns the maximum possible number that `Decimal` can represent.
    pub fn max_value() -> Decimal {
        *MAX
    }

    /// Returns a new `Decimal` integral with no fractional portion.
    /// This is a true truncation whereby no rounding is performed, e.g. 1.56 -> 1
    pub fn trunc(&self) -> Decimal {
        let mut scale = self.scale();
        if scale == 0 {
            // Nothing to do
            return *self;
        }
        let mut working = [self.lo, self.mid, self.hi];
        while scale > 0 {
            // We're removing precision, so we don't care about overflow
            if scale < 10 {
                div_by_u32(&mut working, POWERS_10[scale as usize]);
                break;
            } else {
                div_by_u32(&mut working, POWERS_10[9]);
                // Only 9 as this array starts with 1
                scale -= 9;
            }
        }
        Decimal {
            lo: working[0],
            mid: working[1],
            hi: working[2],
            flags: flags(self.is_sign_negative(), 0),
        }
    }

    /// Returns a new `Decimal` representing the fractional portion of the number.
    /// e.g. 1.56 -> 0.56
    pub fn fract(&self) -> Decimal {
        // This is essentially the original number minus the integral.
        // Could possibly be optimized in the future
        *self - self.trunc()
    }

    /// Strips any trailing zero's from a `Decimal`. e.g. 1.10 -> 1.1
    pub fn normalize(&self) -> Decimal {
        let mut scale = self.scale();
        if scale == 0 {
            // Nothing to do
            return *self;
        }

        let mut result = [self.lo, self.mid, self.hi];
        let mut working = [self.lo, self.mid, self.hi];
        while scale > 0 {
            if div_by_u32(&mut working, 10) > 0 {
                break;
            }
            scale -= 1;
            copy_array(&mut result, &working);
        }
        Decimal {
            lo: result[0],
            mid: result[1],
            hi: result[2],
            flags: flags(self.is_sign_negative(), scale),
        }
    }

    /// Returns a new `Decimal` number with no fractional portion (i.e. an integer).
    /// Rounding currently follows "Bankers Rounding" rules. e.g. 6.5 -> 6, 7.5 -> 8
    pub fn round(&self) -> Decimal {
        self.round_dp(0)
    }

    /// Returns a new `Decimal` number with the specified number of decimal points for fractional portion.
    /// Rounding currently follows "Bankers Rounding" rules. e.g. 6.5 -> 6, 7.5 -> 8
    ///
    /// # Arguments
    /// * `dp`: the number of decimal points to round to.
    pub fn round_dp(&self, dp: u32) -> Decimal {

        let old_scale = self.scale();

        if dp < old_scale {
            // Short circuit for zero
            if self.is_zero() {
                return Decimal {
                    lo: 0,
                    mid: 0,
                    hi: 0,
                    flags: flags(self.is_sign_negative(), dp),
                };
            }

            let mut value = [self.lo, self.mid, self.hi];
            let mut value_scale = self.scale();
            let negative = self.is_sign_negative();

            value_scale -= dp;

            // Rescale to zero so it's easier to work with
            while value_scale > 0 {
                if value_scale < 10 {
                    div_by_u32(&mut value, POWERS_10[value_scale as usize]);
                    value_scale = 0;
                } else {
                    div_by_u32(&mut value, POWERS_10[9]);
                    value_scale -= 9;
                }
            }

            // Do some midpoint rounding checks
            // We're actually doing two things here.
            //  1. Figuring out midpoint rounding when we're right on the boundary. e.g. 2.50000
            //  2. Figuring out whether to add one or not e.g. 2.51
            // For this, we need to figure out the fractional portion that is additional to
            // the rounded number. e.g. for 0.12345 rounding to 2dp we'd want 345.
            // We're doing the equivalent of losing precision (e.g. to get 0.12)
            // then increasing the precision back up to 0.12000
            let mut offset = [self.lo, self.mid, self.hi];
            let mut diff = old_scale - dp;
            while diff > 0 {
                if diff < 10 {
                    div_by_u32(&mut offset, POWERS_10[diff as usize]);
                    break;
                } else {
                    div_by_u32(&mut offset, POWERS_10[9]);
                    // Only 9 as this array starts with 1
                    diff -= 9;
                }
            }
            let mut diff = old_scale - dp;
            while diff > 0 {
                if diff < 10 {
                    mul_by_u32(&mut offset, POWERS_10[diff as usize]);
                    break;
                } else {
                    mul_by_u32(&mut offset, POWERS_10[9]);
                    // Only 9 as this array starts with 1
                    diff -= 9;
                }
            }

            let mut decimal_portion = [self.lo, self.mid, self.hi];
            sub_internal(&mut decimal_portion, &offset);

            // If the decimal_portion is zero then we round based on the other data
            let mut cap = [5, 0, 0];
            for _ in 0..(old_scale - dp - 1) {
                mul_by_u32(&mut cap, 10);
            }
            let order = cmp_internal(&decimal_portion, &cap);
            match order {
                Ordering::Equal => {
                    if (value[0] & 1) == 1 {
                        add_internal(&mut value, &ONE_INTERNAL_REPR);
                    }
                }
                Ordering::Greater => {
                    // Doesn't matter about the decimal portion
                    add_internal(&mut value, &ONE_INTERNAL_REPR);
                }
                _ => {}
            }

            Decimal {
                lo: value[0],
                mid: value[1],
                hi: value[2],
                flags: flags(negative, dp),
            }
        } else {
            *self
        }
    }

    fn base2_to_decimal(bits: &mut [u32; 3], exponent2: i32, positive: bool, is64: bool) -> Option<Self> {
        // 2^exponent2 = (10^exponent2)/(5^exponent2)
        //             = (5^-exponent2)*(10^exponent2)
        let mut exponent5 = -exponent2;
        let mut exponent10 = exponent2; // Ultimately, we want this for the scale

        while exponent5 > 0 {
            // Check to see if the mantissa is divisible by 2
            if bits[0] & 0x1 == 0 {
                exponent10 += 1;
                exponent5 -= 1;

                // We can divide by 2 without losing precision
                let hi_carry = bits[2] & 0x1 == 1;
                bits[2] >>= 1;
                let mid_carry = bits[1] & 0x1 == 1;
                bits[1] = (bits[1] >> 1) | if hi_carry { SIGN_MASK } else { 0 };
                bits[0] = (bits[0] >> 1) | if mid_carry { SIGN_MASK } else { 0 };
            } else {
                // The mantissa is NOT divisible by 2. Therefore the mantissa should
                // be multiplied by 5, unless the multiplication overflows.
                exponent5 -= 1;

                let mut temp = [bits[0], bits[1], bits[2]];
                if mul_by_u32(&mut temp, 5) == 0 {
                    // Multiplication succeeded without overflow, so copy result back
                    bits[0] = temp[0];
                    bits[1] = temp[1];
                    bits[2] = temp[2];
                } else {
                    // Multiplication by 5 overflows. The mantissa should be divided
                    // by 2, and therefore will lose significant digits.
                    exponent10 += 1;

                    // Shift right
                    let hi_carry = bits[2] & 0x1 == 1;
                    bits[2] >>= 1;
                    let mid_carry = bits[1] & 0x1 == 1;
                    bits[1] = (bits[1] >> 1) | if hi_carry { SIGN_MASK } else { 0 };
                    bits[0] = (bits[0] >> 1) | if mid_carry { SIGN_MASK } else { 0 };
                }
            }
        }

        // In order to divide the value by 5, it is best to multiply by 2/10.
        // Therefore, exponent10 is decremented, and the mantissa should be multiplied by 2
        while exponent5 < 0 {
            if bits[2] & SIGN_MASK == 0 {
                // No far left bit, the mantissa can withstand a shift-left without overflowing
                exponent10 -= 1;
                exponent5 += 1;
                shl_internal(bits, 1);
            } else {
                // The mantissa would overflow if shifted. Therefore it should be
                // directly divided by 5. This will lose significant digits, unless
                // by chance the mantissa happens to be divisible by 5.
                exponent5 += 1;
                div_by_u32(bits, 5);
            }
        }

        // At this point, the mantissa has assimilated the exponent5, but
        // exponent10 might not be suitable for assignment. exponent10 must be
        // in the range [-MAX_PRECISION..0], so the mantissa must be scaled up or
        // down appropriately.
        while exponent10 > 0 {
            // In order to bring exponent10 down to 0, the mantissa should be
            // multiplied by 10 to compensate. If the exponent10 is too big, this
            // will cause the mantissa to overflow.
            if mul_by_u32(bits, 10) == 0 {
                exponent10 -= 1;
            } else {
                // Overflowed - return?
                return None;
            }
        }

        // In order to bring exponent up to -MAX_PRECISION, the mantissa should
        // be divided by 10 to compensate. If the exponent10 is too small, this
        // will cause the mantissa to underflow and become 0.
        while exponent10 < -(MAX_PRECISION as i32) {
            let rem10 = div_by_u32(bits, 10);
            exponent10 += 1;
            if is_all_zero(bits) {
                // Underflow, unable to keep dividing
                exponent10 = 0;
            } else if rem10 >= 5 {
                add_internal(bits, &ONE_INTERNAL_REPR);
            }
        }

        // This step is required in order to remove excess bits of precision from the
        // end of the bit representation, down to the precision guaranteed by the
        // floating point number
        if is64 {
            // Guaranteed to about 16 dp
            while exponent10 < 0 && (bits[2] != 0 || (bits[1] & 0xFFE0_0000) != 0) {

                let rem10 = div_by_u32(bits, 10);
                exponent10 += 1;
                if rem10 >= 5 {
                    add_internal(bits, &ONE_INTERNAL_REPR);
                }
            }
        } else {
            // Guaranteed to about 7 dp
            while exponent10 < 0 &&
                (bits[2] != 0 || bits[1] != 0 || (bits[2] == 0 && bits[1] == 0 && (bits[0] & 0xFF00_0000) != 0))
            {

                let rem10 = div_by_u32(bits, 10);
                exponent10 += 1;
                if rem10 >= 5 {
                    add_internal(bits, &ONE_INTERNAL_REPR);
                }
            }
        }

        // Remove multiples of 10 from the representation
        while exponent10 < 0 {
            let mut temp = [bits[0], bits[1], bits[2]];
            let remainder = div_by_u32(&mut temp, 10);
            if remainder == 0 {
                exponent10 += 1;
                bits[0] = temp[0];
                bits[1] = temp[1];
                bits[2] = temp[2];
            } else {
                break;
            }
        }

        Some(Decimal {
            lo: bits[0],
            mid: bits[1],
            hi: bits[2],
            flags: flags(!positive, -exponent10 as u32),
        })
    }
}

#[inline]
fn flags(neg: bool, scale: u32) -> u32 {
    (scale << SCALE_SHIFT) | if neg { SIGN_MASK } else { 0 }
}

/// Rescales the given decimals to equivalent scales.
/// It will firstly try to scale both the left and the right side to
/// the maximum scale of left/right. If it is unable to do that it
/// will try to reduce the accuracy of the other argument.
/// e.g. with 1.23 and 2.345 it'll rescale the first arg to 1.230
fn rescale(left: &mut [u32], left_scale: &mut u32, right: &mut [u32], right_scale: &mut u32) {
    if left_scale == right_scale {
        // Nothing to do
        return;
    }

    enum Target {
        Left,
        Right,
    }

    let target;
    let mut diff;
    let my;
    let other;
    if left_scale > right_scale {
        diff = *left_scale - *right_scale;
        my = right;
        other = left;
        target = Target::Left;
    } else {
        diff = *right_scale - *left_scale;
        my = left;
        other = right;
        target = Target::Right;
    };

    let mut working = [my[0], my[1], my[2]];
    while diff > 0 && mul_by_u32(&mut working, 10) == 0 {
        copy_array(my, &working);
        diff -= 1;
    }

    if diff == 0 {
        // We're done - same scale
        match target {
            Target::Left => *right_scale = *left_scale,
            Target::Right => *left_scale = *right_scale,
        }
        return;
    }

    // Scaling further isn't possible since we got an overflow
    // In this case we need to reduce the accuracy of the "side to keep"
    // First, set the scales
    match target {
        Target::Left => {
            *left_scale = *right_scale;
        }
        Target::Right => {
            *right_scale = *left_scale;
        }
    }

    // Now do the necessary rounding
    let mut remainder = 0;
    while diff > 0 && !is_all_zero(other) {
        diff -= 1;

        // Any remainder is discarded if diff > 0 still (i.e. lost precision)
        remainder = div_by_u32(other, 10);
    }
    if remainder >= 5 {
        for part in other.iter_mut() {
            let digit = u64::from(*part) + 1u64;
            remainder = if digit > 0xFFFF_FFFF { 1 } else { 0 };
            *part = (digit & 0xFFFF_FFFF) as u32;
            if remainder == 0 {
                break;
            }
        }
    }
}

fn copy_array(into: &mut [u32], from: &[u32]) {
    copy_array_with_limit(into, from, 0);
}

fn copy_array_with_limit(into: &mut [u32], from: &[u32], limit: usize) {
    let limit = if limit == 0 {
        from.len()
    } else {
        from.len().min(limit)
    };
    for i in 0..into.len() {
        if i >= limit {
            break;
        }
        into[i] = from[i];
    }
}

#[inline]
fn u64_to_array(value: u64) -> [u32;2] {
    [
        (value & U32_MASK) as u32,
        (value >> 32 & U32_MASK) as u32,
    ]
}

fn add_internal(value: &mut [u32], by: &[u32]) -> u32 {
    let mut carry: u64 = 0;
    let vl = value.len();
    let bl = by.len();
    if vl >= bl {
        let mut sum: u64;
        for i in 0..bl {
            sum = u64::from(value[i]) + u64::from(by[i]) + carry;
            value[i] = (sum & 0xFFFF_FFFF) as u32;
            carry = sum >> 32;
        }
        if vl > bl {
            for i in value.iter_mut().take(vl).skip(bl) {
                if carry == 0 {
                    break;
                }
                sum = u64::from(*i) + carry;
                *i = (sum & 0xFFFF_FFFF) as u32;
                carry = sum >> 32;
            }
        }
    }
    carry as u32
}

fn add_with_scale_internal(
    quotient: &mut [u32],
    quotient_scale: &mut i32,
    working: &mut [u32],
    working_scale: &mut i32,
) -> bool {
    // Add quotient and the working (i.e. quotient = quotient + working)
    // We only care about the first 4 words of working_quotient as we are only dealing with the quotient
    if is_all_zero(quotient) {
        // Quotient is zero (i.e. quotient = 0 + working_quotient).
        // We can just copy the working quotient in directly
        // First, make sure they are both 96 bit.
        while working[3] != 0 {
            div_by_u32(working, 10);
            *working_scale -= 1;
        }
        copy_array(quotient, working);
        *quotient_scale = *working_scale;
        return false;
    }

    if is_some_zero(working, 0, 4) {
        return false;
    }

    // We have ensured that working is not zero so we should do the addition
    let mut temp = [0u32, 0u32, 0u32, 0u32, 0u32];

    // If our two quotients are different then
    // try to scale down the one with the bigger scale
    if *quotient_scale != *working_scale {
        if *quotient_scale < *working_scale {
            // divide by 10 until target scale is reached
            copy_array_with_limit(&mut temp, working, 4);
            while *working_scale > *quotient_scale {
                // TODO: Work out a better way to share this code
                let remainder = div_by_u32(&mut temp, 10);
                if remainder == 0 {
                    *working_scale -= 1;
                    copy_array_with_limit(working, &temp, 4);
                } else {
                    break;
                }
            }
        } else {
            copy_array(&mut temp, quotient);
            // divide by 10 until target scale is reached
            while *quotient_scale > *working_scale {
                // TODO: Work out a better way to share this code
                let remainder = div_by_u32(&mut temp, 10);
                if remainder == 0 {
                    *quotient_scale -= 1;
                    copy_array(quotient, &temp);
                } else {
                    break;
                }
            }

        }
    }

    // If our two quotients are still different then
    // try to scale up the smaller scale
    if *quotient_scale != *working_scale {
        if *quotient_scale > *working_scale {
            copy_array_with_limit(&mut temp, working, 4);
            // Multiply by 10 until scale reached or overflow
            while *working_scale < *quotient_scale && temp[4] == 0 {
                mul_by_u32(&mut temp, 10);
                if temp[4] == 0 {
                    // still does not overflow
                    *working_scale += 1;
                    copy_array_with_limit(working, &temp, 4);
                }
            }
        } else {
            copy_array(&mut temp, quotient);
            // Multiply by 10 until scale reached or overflow
            while *quotient_scale < *working_scale && temp[3] == 0 {
                mul_by_u32(&mut temp, 10);
                if temp[3] == 0 {
                    // still does not overflow
                    *quotient_scale += 1;
                    copy_array(quotient, &temp);
                }
            }
        }
    }

    // If our two quotients are still different then
    // try to scale down the one with the bigger scale
    // (ultimately losing significant digits)
    if *quotient_scale != *working_scale {
        if *quotient_scale < *working_scale {
            copy_array_with_limit(&mut temp, working, 4);
            // divide by 10 until target scale is reached
            while *working_scale > *quotient_scale {
                div_by_u32(&mut temp, 10);
                *working_scale -= 1;
                copy_array_with_limit(working, &temp, 4);
            }

        } else {
            copy_array(&mut temp, quotient);
            // divide by 10 until target scale is reached
            while *quotient_scale > *working_scale {
                div_by_u32(&mut temp, 10);
                *quotient_scale -= 1;
                copy_array(quotient, &temp);
            }
        }
    }

    // If quotient or working are zero we have an underflow condition
    if is_all_zero(quotient) || is_some_zero(working, 0, 4) {
        // Underflow
        return true;
    } else {
        // Both numbers have the same scale and can be added.
        // We just need to know whether we can fit them in
        let mut underflow = false;
        while !underflow {
            for i in 0..5 {
                if i < 3 {
                    temp[i] = quotient[i];
                } else {
                    temp[i] = 0;
                }
            }

            let mut carry = 0;
            let mut sum: u64;
            for i in 0..4 {
                sum = u64::from(temp[i]) + u64::from(working[i]) + carry as u64;
                temp[i] = (sum & 0xFFFF_FFFF) as u32;
                carry = sum >> 32;
            }
            sum = u64::from(temp[4]) + carry as u64;
            temp[4] = (sum & 0xFFFF_FFFF) as u32;

            if temp[3] == 0 && temp[4] == 0 {
                // addition was successful
                copy_array(quotient, &temp);
                break;
            } else {
                // addition overflowed - remove significant digits and try again
                div_by_u32(quotient, 10);
                *quotient_scale -= 1;
                div_by_u32(working, 10);
                *working_scale -= 1;
                // Check for underflow
                underflow = is_all_zero(quotient) || is_some_zero(working, 0, 4);
            }
        }
        if underflow {
            return true;
        }
    }
    false
}

#[inline]
fn add_part(left: u32, right: u32) -> (u32, u32) {
    let added = u64::from(left) + u64::from(right);
    (
        (added & U32_MASK) as u32,
        (added >> 32 & U32_MASK) as u32,
    )
}

fn sub_internal(value: &mut [u32], by: &[u32]) -> u32 {
    // The way this works is similar to long subtraction
    // Let's assume we're working with bytes for simpliciy in an example:
    //   257 - 8 = 249
    //   0000_0001 0000_0001 - 0000_0000 0000_1000 = 0000_0000 1111_1001
    // We start by doing the first byte...
    //   Overflow = 0
    //   Left = 0000_0001 (1)
    //   Right = 0000_1000 (8)
    // Firstly, we make sure the left and right are scaled up to twice the size
    //   Left = 0000_0000 0000_0001
    //   Right = 0000_0000 0000_1000
    // We then subtract right from left
    //   Result = Left - Right = 1111_1111 1111_1001
    // We subtract the overflow, which in this case is 0.
    // Because left < right (1 < 8) we invert the high part.
    //   Lo = 1111_1001
    //   Hi = 1111_1111 -> 0000_0001
    // Lo is the field, hi is the overflow.
    // We do the same for the second byte...
    //   Overflow = 1
    //   Left = 0000_0001
    //   Right = 0000_0000
    //   Result = Left - Right = 0000_0000 0000_0001
    // We subtract the overflow...
    //   Result = 0000_0000 0000_0001 - 1 = 0
    // And we invert the high, just because (invert 0 = 0).
    // So our result is:
    //   0000_0000 1111_1001
    let mut overflow = 0;
    let vl = value.len();
    let bl = by.len();
    for i in 0..vl {
        if i >= bl {
            break;
        }
        let (lo, hi) = sub_part(value[i], by[i], overflow);
        value[i] = lo;
        overflow = hi;
    }
    overflow
}

fn sub_part(left: u32, right: u32, overflow: u32) -> (u32, u32) {
    let mut invert = false;
    let overflow = i64::from(overflow);
    let mut part: i64 = i64::from(left) - i64::from(right);
    if left < right {
        invert = true;
    }

    if part > overflow {
        part -= overflow;
    } else {
        part -= overflow;
        invert = true;
    }

    let mut hi: i32 = ((part >> 32) & 0xFFFF_FFFF) as i32;
    let lo: u32 = (part & 0xFFFF_FFFF) as u32;
    if invert {
        hi = -hi;
    }
    (lo, hi as u32)
}

// Returns overflow
fn mul_by_u32(bits: &mut [u32], m: u32) -> u32 {
    let mut overflow = 0;
    for b in bits.iter_mut() {
        let (lo, hi) = mul_part(*b, m, overflow);
        *b = lo;
        overflow = hi;
    }
    overflow
}

fn mul_part(left: u32, right: u32, high: u32) -> (u32, u32) {
    let result = u64::from(left) * u64::from(right) + u64::from(high);
    let hi = ((result >> 32) & U32_MASK) as u32;
    let lo = (result & U32_MASK) as u32;
    (lo, hi)
}

fn div_internal(working: &mut [u32; 8], divisor: &[u32; 3]) {
    // There are a couple of ways to do division on binary numbers:
    //   1. Using long division
    //   2. Using the complement method
    // ref: https://www.wikihow.com/Divide-Binary-Numbers
    // The complement method basically keeps trying to subtract the
    // divisor until it can't anymore and placing the rest in remainder.
    let mut sub = [
        0u32,
        0u32,
        0u32,
        0u32,
        divisor[0] ^ 0xFFFF_FFFF,
        divisor[1] ^ 0xFFFF_FFFF,
        divisor[2] ^ 0xFFFF_FFFF,
        0xFFFF_FFFF,
    ];

    // Add one onto the complement, also, make sure remainder is 0
    let mut carry = 0;
    let one = [1u32, 0u32, 0u32, 0u32];
    for i in 4..8 {
        let sum = u64::from(sub[i]) + u64::from(one[i - 4]) + carry as u64;
        sub[i] = (sum & 0xFFFF_FFFF) as u32;
        carry = sum >> 32;

        // Zero out remainder at same time
        working[i] = 0;
    }

    // If we have nothing in our hi+ block then shift over till we do
    let mut blocks_to_process = 0;
    loop {
        if blocks_to_process >= 4 || working[3] != 0 {
            break;
        }
        // Shift whole blocks to the "left"
        working[3] = working[2];
        working[2] = working[1];
        working[1] = working[0];
        working[0] = 0;

        // Incremember the counter
        blocks_to_process += 1;
    }

    // Let's try and do the addition...
    let mut block = blocks_to_process << 5;
    loop {
        if block >= 128 {
            break;
        }

        // << 1 for the entire working array
        let mut shifted = 0;
        for part in working.iter_mut() {
            let b = *part >> 31;
            *part = (*part << 1) | shifted;
            shifted = b;
        }

        // Copy the remainder of working into sub
        sub[..4].clone_from_slice(&working[4..(4 + 4)]);

        // A little weird but we add together sub
        let mut carry = 0;
        for i in 0..4 {
            let sum = u64::from(sub[i]) + u64::from(sub[i + 4]) + carry as u64;
            sub[i] = (sum & 0xFFFF_FFFF) as u32;
            carry = sum >> 32;
        }

        // Was it positive?
        if (sub[3] & 0x8000_0000) == 0 {
            working[4..(4 + 4)].clone_from_slice(&sub[..4]);
            working[0] |= 1;
        }

        // Increment our pointer
        block += 1;
    }
}

// Returns remainder
fn div_by_u32(bits: &mut [u32], divisor: u32) -> u32 {
    if divisor == 0 {
        // Divide by zero
        panic!("Internal error: divide by zero");
    } else if divisor == 1 {
        // dividend remains unchanged
        0
    } else {
        let mut remainder = 0u32;
        let divisor = u64::from(divisor);
        for part in bits.iter_mut().rev() {
            let temp = (u64::from(remainder) << 32) + u64::from(*part);
            remainder = (temp % divisor) as u32;
            *part = (temp / divisor) as u32;
        }

        remainder
    }
}

fn shl_internal(bits: &mut [u32; 3], shift: u32) {

    let mut shift = shift;

    // Whole blocks first
    while shift >= 32 {
        bits[2] = bits[1];
        bits[1] = bits[0];
        bits[0] = 0;
        shift -= 32;
    }

    // Continue with the rest
    if shift > 0 {
        let mut shifted = 0;
        for part in bits.iter_mut() {
            let b = *part >> (32 - shift);
            *part = (*part << shift) | shifted;
            shifted = b;
        }
    }
}

#[inline]
fn cmp_internal(left: &[u32; 3], right: &[u32; 3]) -> Ordering {
    let left_hi: u32 = left[2];
    let right_hi: u32 = right[2];
    let left_lo: u64 = u64::from(left[1]) << 32 | u64::from(left[0]);
    let right_lo: u64 = u64::from(right[1]) << 32 | u64::from(right[0]);
    if left_hi < right_hi || (left_hi <= right_hi && left_lo < right_lo) {
        Ordering::Less
    } else if left_hi == right_hi && left_lo == right_lo {
        Ordering::Equal
    } else {
        Ordering::Greater
    }
}

fn is_all_zero(bits: &[u32]) -> bool {
    for b in bits.iter() {
        if *b != 0 {
            return false;
        }
    }
    true
}

fn is_some_zero(bits: &[u32], skip: usize, take: usize) -> bool {
    for b in bits.iter().skip(skip).take(take) {
        if *b != 0 {
            return false;
        }
    }
    true
}

macro_rules! impl_from {
    ($T:ty, $from_ty:path) => {
        impl From<$T> for Decimal {
            #[inline]
            fn from(t: $T) -> Decimal {
                $from_ty(t).unwrap()
            }
        }
    }
}

impl_from!(isize, FromPrimitive::from_isize);
impl_from!(i8, FromPrimitive::from_i8);
impl_from!(i16, FromPrimitive::from_i16);
impl_from!(i32, FromPrimitive::from_i32);
impl_from!(i64, FromPrimitive::from_i64);
impl_from!(usize, FromPrimitive::from_usize);
impl_from!(u8, FromPrimitive::from_u8);
impl_from!(u16, FromPrimitive::from_u16);
impl_from!(u32, FromPrimitive::from_u32);
impl_from!(u64, FromPrimitive::from_u64);

macro_rules! forward_val_val_binop {
    (impl $imp:ident for $res:ty, $method:ident) => {
        impl $imp<$res> for $res {
            type Output = $res;

            #[inline]
            fn $method(self, other: $res) -> $res {
                (&self).$method(&other)
            }
        }
    }
}

macro_rules! forward_ref_val_binop {
    (impl $imp:ident for $res:ty, $method:ident) => {
        impl<'a> $imp<$res> for &'a $res {
            type Output = $res;

            #[inline]
            fn $method(self, other: $res) -> $res {
                self.$method(&other)
            }
        }
    }
}

macro_rules! forward_val_ref_binop {
    (impl $imp:ident for $res:ty, $method:ident) => {
        impl<'a> $imp<&'a $res> for $res {
            type Output = $res;

            #[inline]
            fn $method(self, other: &$res) -> $res {
                (&self).$method(other)
            }
        }
    }
}

macro_rules! forward_all_binop {
    (impl $imp:ident for $res:ty, $method:ident) => {
        forward_val_val_binop!(impl $imp for $res, $method);
        forward_ref_val_binop!(impl $imp for $res, $method);
        forward_val_ref_binop!(impl $imp for $res, $method);
    };
}

impl Zero for Decimal {
    fn is_zero(&self) -> bool {
        self.lo.is_zero() && self.mid.is_zero() && self.hi.is_zero()
    }

    fn zero() -> Decimal {
        Decimal {
            flags: 0,
            hi: 0,
            lo: 0,
            mid: 0,
        }
    }
}

impl One for Decimal {
    fn one() -> Decimal {
        Decimal {
            flags: 0,
            hi: 0,
            lo: 1,
            mid: 0,
        }
    }
}

impl FromStr for Decimal {
    type Err = Error;

    fn from_str(value: &str) -> Result<Decimal, Self::Err> {
        if value.is_empty() {
            return Err(Error::new("Invalid decimal: empty"));
        }

        let mut offset = 0;
        let mut len = value.len();
        let bytes: Vec<u8> = value.bytes().collect();
        let mut negative = false; // assume positive

        // handle the sign
        if bytes[offset] == b'-' {
            negative = true; // leading minus means negative
            offset += 1;
            len -= 1;
        } else if bytes[offset] == b'+' {
            // leading + allowed
            offset += 1;
            len -= 1;
        }

        // should now be at numeric part of the significand
        let mut dot_offset: i32 = -1; // '.' offset, -1 if none
        let cfirst = offset; // record start of integer
        let mut coeff = Vec::new(); // integer significand array

        while len > 0 {
            let b = bytes[offset];
            match b {
                b'0'...b'9' => {
                    coeff.push(u32::from(b - b'0'));
                    offset += 1;
                    len -= 1;

                    // If the coefficient is longer than 29 then it'll affect the scale, so exit early
                    if coeff.len() as u32 > MAX_PRECISION {
                        // Before we exit, do some rounding if necessary
                        if offset < bytes.len() {
                            // We only need to look at the next significant digit
                            let next_byte = bytes[offset];
                            match next_byte {
                                b'0'...b'9' => {
                                    let digit = u32::from(next_byte - b'0');
                                    if digit >= 5 {
                                        let mut index = coeff.len() - 1;
                                        loop {
                                            let new_digit = coeff[index] + 1;
                                            if new_digit <= 9 {
                                                coeff[index] = new_digit;
                                                break;
                                            } else {
                                                coeff[index] = 0;
                                                if index == 0 {
                                                    coeff.insert(0, 1u32);
                                                    dot_offset += 1;
                                                    coeff.pop();
                                                    break;
                                                }
                                            }
                                            index -= 1;
                                        }
                                    }
                                }
                                b'_' => {}
                                b'.' => {
                                    // Still an error if we have a second dp
                                    if dot_offset >= 0 {
                                        return Err(Error::new("Invalid decimal: two decimal points"));
                                    }
                                }
                                _ => return Err(Error::new("Invalid decimal: unknown character")),
                            }
                        }
                        break;
                    }
                }
                b'.' => {
                    if dot_offset >= 0 {
                        return Err(Error::new("Invalid decimal: two decimal points"));
                    }
                    dot_offset = offset as i32;
                    offset += 1;
                    len -= 1;
                }
                b'_' => {
                    // Must start with a number...
                    if coeff.is_empty() {
                        return Err(Error::new("Invalid decimal: must start lead with a number"));
                    }
                    offset += 1;
                    len -= 2;
                }
                _ => return Err(Error::new("Invalid decimal: unknown character")),
            }
        }

        // here when no characters left
        if coeff.is_empty() {
            return Err(Error::new("Invalid decimal: no digits found"));
        }

        let scale = if dot_offset >= 0 {
            // we had a decimal place so set the scale
            (coeff.len() as u32) - (dot_offset as u32 - cfirst as u32)
        } else {
            0
        };

        // Parse this using base 10 (future allow using radix?)
        let mut data = [0u32, 0u32, 0u32];
        for digit in coeff {
            // If the data is going to overflow then we should go into recovery mode
            let overflow = mul_by_u32(&mut data, 10u32);
            if overflow > 0 {
                // This indicates a bug in the coeeficient rounding above
                return Err(Error::new("Invalid decimal: overflow"));
            }
            let carry = add_internal(&mut data, &[digit]);
            if carry > 0 {
                // Highly unlikely scenario which is more indicative of a bug
                return Err(Error::new("Invalid decimal: overflow"));
            }
        }

        Ok(Decimal {
            lo: data[0],
            mid: data[1],
            hi: data[2],
            flags: flags(negative, scale),
        })
    }
}

impl FromPrimitive for Decimal {
    fn from_i32(n: i32) -> Option<Decimal> {
        let flags: u32;
        let value_copy: i32;
        if n >= 0 {
            flags = 0;
            value_copy = n;
        } else {
            flags = SIGN_MASK;
            value_copy = -n;
        }
        Some(Decimal {
            flags: flags,
            lo: value_copy as u32,
            mid: 0,
            hi: 0,
        })
    }

    fn from_i64(n: i64) -> Option<Decimal> {
        let flags: u32;
        let value_copy: i64;
        if n >= 0 {
            flags = 0;
            value_copy = n;
        } else {
            flags = SIGN_MASK;
            value_copy = -n;
        }
        Some(Decimal {
            flags: flags,
            lo: value_copy as u32,
            mid: (value_copy >> 32) as u32,
            hi: 0,
        })
    }

    fn from_u32(n: u32) -> Option<Decimal> {
        Some(Decimal {
            flags: 0,
            lo: n,
            mid: 0,
            hi: 0,
        })
    }

    fn from_u64(n: u64) -> Option<Decimal> {
        Some(Decimal {
            flags: 0,
            lo: n as u32,
            mid: (n >> 32) as u32,
            hi: 0,
        })
    }

    fn from_f32(n: f32) -> Option<Decimal> {
        // Handle the case if it is NaN, Infinity or -Infinity
        if !n.is_finite() {
            return None;
        }

        // It's a shame we can't use a union for this due to it being broken up by bits
        // i.e. 1/8/23 (sign, exponent, mantissa)
        // See https://en.wikipedia.org/wiki/IEEE_754-1985
        // n = (sign*-1) * 2^exp * mantissa
        // Decimal of course stores this differently... 10^-exp * significand
        let raw = n.to_bits();
        let positive = (raw >> 31) == 0;
        let biased_exponent = ((raw >> 23) & 0xFF) as i32;
        let mantissa = raw & 0x007F_FFFF;

        // Handle the special zero case
        if biased_exponent == 0 && mantissa == 0 {
            let mut zero = Decimal::zero();
            if !positive {
                zero.set_sign(false);
            }
            return Some(zero);
        }

        // Get the bits and exponent2
        let mut exponent2 = biased_exponent - 127;
        let mut bits = [mantissa, 0u32, 0u32];
        if biased_exponent == 0 {
            // Denormalized number - correct the exponent
            exponent2 += 1;
        } else {
            // Add extra hidden bit to mantissa
            bits[0] |= 0x0080_0000;
        }

        // The act of copying a mantissa as integer bits is equivalent to shifting
        // left the mantissa 23 bits. The exponent is reduced to compensate.
        exponent2 -= 23;

        // Convert to decimal
        Decimal::base2_to_decimal(&mut bits, exponent2, positive, false)
    }

    fn from_f64(n: f64) -> Option<Decimal> {
        // Handle the case if it is NaN, Infinity or -Infinity
        if !n.is_finite() {
            return None;
        }

        // It's a shame we can't use a union for this due to it being broken up by bits
        // i.e. 1/11/52 (sign, exponent, mantissa)
        // See https://en.wikipedia.org/wiki/IEEE_754-1985
        // n = (sign*-1) * 2^exp * mantissa
        // Decimal of course stores this differently... 10^-exp * significand
        let raw = n.to_bits();
        let positive = (raw >> 63) == 0;
        let biased_exponent = ((raw >> 52) & 0x7FF) as i32;
        let mantissa = raw & 0x000F_FFFF_FFFF_FFFF;

        // Handle the special zero case
        if biased_exponent == 0 && mantissa == 0 {
            let mut zero = Decimal::zero();
            if !positive {
                zero.set_sign(false);
            }
            return Some(zero);
        }

        // Get the bits and exponent2
        let mut exponent2 = biased_exponent - 1023;
        let mut bits = [
            (mantissa & 0xFFFF_FFFF) as u32,
            ((mantissa >> 32) & 0xFFFF_FFFF) as u32,
            0u32,
        ];
        if biased_exponent == 0 {
            // Denormalized number - correct the exponent
            exponent2 += 1;
        } else {
            // Add extra hidden bit to mantissa
            bits[1] |= 0x0010_0000;
        }

        // The act of copying a mantissa as integer bits is equivalent to shifting
        // left the mantissa 52 bits. The exponent is reduced to compensate.
        exponent2 -= 52;

        // Convert to decimal
        Decimal::base2_to_decimal(&mut bits, exponent2, positive, true)
    }
}

impl ToPrimitive for Decimal {
    fn to_f64(&self) -> Option<f64> {
        if self.scale() == 0 {
            let integer = self.to_i64();
            match integer {
                Some(i) => Some(i as f64),
                None => None,
            }
        } else {
            // TODO: Utilize mantissa algorithm.
            match self.to_string().parse::<f64>() {
                Ok(s) => Some(s),
                Err(_) => None,
            }
        }
    }

    fn to_i64(&self) -> Option<i64> {
        let d = self.trunc();
        // Quick overflow check
        if d.hi != 0 || (d.mid & 0x8000_0000) > 0 {
            // Overflow
            return None;
        }

        let raw: i64 = (i64::from(d.mid) << 32) | i64::from(d.lo);
        if self.is_sign_negative() {
            Some(-raw)
        } else {
            Some(raw)
        }
    }

    fn to_u64(&self) -> Option<u64> {
        if self.is_sign_negative() {
            return None;
        }

        let d = self.trunc();
        if d.hi != 0 {
            // Overflow
            return None;
        }

        Some((u64::from(d.mid) << 32) | u64::from(d.lo))
    }
}

impl fmt::Display for Decimal {
    fn fmt(&self, f: &mut fmt::Formatter) -> Result<(), fmt::Error> {
        // Get the scale - where we need to put the decimal point
        let mut scale = self.scale() as usize;

        // Convert to a string and manipulate that (neg at front, inject decimal)
        let mut chars = Vec::new();
        let mut working = [self.lo, self.mid, self.hi];
        while !is_all_zero(&working) {
            let remainder = div_by_u32(&mut working, 10u32);
            chars.push(char::from(b'0' + remainder as u8));
        }
        let mut rep = chars.iter().rev().collect::<String>();
        let len = rep.len();

        if let Some(n_dp) = f.precision() {
            if n_dp < scale {
                rep.truncate(len - scale + n_dp)
            } else {
                let zeros = repeat("0").take(n_dp - scale).collect::<String>();
                rep.push_str(&zeros[..]);
            }
            scale = n_dp;
        }
        let len = rep.len();

        // Inject the decimal point
        if scale > 0 {
            // Must be a low fractional
            if scale > len {
                let mut new_rep = String::new();
                let zeros = repeat("0").take(scale as usize - len).collect::<String>();
                new_rep.push_str("0.");
                new_rep.push_str(&zeros[..]);
                new_rep.push_str(&rep[..]);
                rep = new_rep;
            } else if scale == len {
                rep.insert(0, '.');
                rep.insert(0, '0');
            } else {
                rep.insert(len - scale as usize, '.');
            }
        } else if rep.is_empty() {
            // corner case for when we truncated everything in a low fractional
            rep.insert(0, '0');
        }

        f.pad_integral(self.is_sign_positive(), "", &rep)
    }
}

forward_all_binop!(impl Add for Decimal, add);

impl<'a, 'b> Add<&'b Decimal> for &'a Decimal {
    type Output = Decimal;

    #[inline]
    fn add(self, other: &Decimal) -> Decimal {

        // Convert to the same scale
        let mut my = [self.lo, self.mid, self.hi];
        let mut my_scale = self.scale();
        let mut ot = [other.lo, other.mid, other.hi];
        let mut other_scale = other.scale();
        rescale(&mut my, &mut my_scale, &mut ot, &mut other_scale);

        let final_scale = my_scale.max(other_scale);

        // Add the items together
        let my_negative = self.is_sign_negative();
        let other_negative = other.is_sign_negative();
        let mut negative = false;
        if my_negative && other_negative {
            negative = true;
            add_internal(&mut my, &ot);
        } else if my_negative && !other_negative {
            // -x + y
            let cmp = cmp_internal(&my, &ot);
            // if x > y then it's negative (i.e. -2 + 1)
            match cmp {
                Ordering::Less => {
                    sub_internal(&mut ot, &my);
                    my[0] = ot[0];
                    my[1] = ot[1];
                    my[2] = ot[2];
                }
                Ordering::Greater => {
                    negative = true;
                    sub_internal(&mut my, &ot);
                }
                Ordering::Equal => {
                    // -2 + 2
                    my[0] = 0;
                    my[1] = 0;
                    my[2] = 0;
                }
            }
        } else if !my_negative && other_negative {
            // x + -y
            let cmp = cmp_internal(&my, &ot);
            // if x < y then it's negative (i.e. 1 + -2)
            match cmp {
                Ordering::Less => {
                    negative = true;
                    sub_internal(&mut ot, &my);
                    my[0] = ot[0];
                    my[1] = ot[1];
                    my[2] = ot[2];
                }
                Ordering::Greater => {
                    sub_internal(&mut my, &ot);
                }
                Ordering::Equal => {
                    // 2 + -2
                    my[0] = 0;
                    my[1] = 0;
                    my[2] = 0;
                }
            }
        } else {
            add_internal(&mut my, &ot);
        }
        Decimal {
            lo: my[0],
            mid: my[1],
            hi: my[2],
            flags: flags(negative, final_scale),
        }
    }
}

impl AddAssign for Decimal {
    fn add_assign(&mut self, other: Decimal) {
        let result = self.add(other);
        self.lo = result.lo;
        self.mid = result.mid;
        self.hi = result.hi;
        self.flags = result.flags;
    }
}

forward_all_binop!(impl Sub for Decimal, sub);

impl<'a, 'b> Sub<&'b Decimal> for &'a Decimal {
    type Output = Decimal;

    #[inline]
    fn sub(self, other: &Decimal) -> Decimal {
        let negated_other = Decimal {
            lo: other.lo,
            mid: other.mid,
            hi: other.hi,
            flags: other.flags ^ SIGN_MASK,
        };
        self.add(negated_other)
    }
}

impl SubAssign for Decimal {
    fn sub_assign(&mut self, other: Decimal) {
        let result = self.sub(other);
        self.lo = result.lo;
        self.mid = result.mid;
        self.hi = result.hi;
        self.flags = result.flags;
    }
}

forward_all_binop!(impl Mul for Decimal, mul);

impl<'a, 'b> Mul<&'b Decimal> for &'a Decimal {
    type Output = Decimal;

    #[inline]
    fn mul(self, other: &Decimal) -> Decimal {
        // Early exit if either is zero
        if self.is_zero() || other.is_zero() {
            return Decimal::zero();
        }

        // We are only resulting in a negative if we have mismatched signs
        let negative = self.is_sign_negative() ^ other.is_sign_negative();

        // We get the scale of the result by adding the operands. This may be too big, however
        //  we'll correct later
        let mut final_scale = self.scale() + other.scale();

        // First of all, if ONLY the lo parts of both numbers is filled
        // then we can simply do a standard 64 bit calculation. It's a minor
        // optimization however prevents the need for long form multiplication
        if self.mid == 0 && self.hi == 0 &&
           other.mid == 0 && other.hi == 0 {

            // Simply multiplication
            let mut u64_result = u64_to_array(u64::from(self.lo) * u64::from(other.lo));

            // If we're above max precision then this is a very small number
            if final_scale > MAX_PRECISION {
                final_scale -= MAX_PRECISION;

                // If the number is above 19 then this will equate to zero.
                // This is because the max value in 64 bits is 1.84E19
                if final_scale > 19 {
                    return Decimal::zero();
                }

                let mut rem_lo = 0;
                let mut power;
                if final_scale > 9 {
                    // Since 10^10 doesn't fit into u32, we divide by 10^10/4
                    // and multiply the next divisor by 4.
                    rem_lo = div_by_u32(&mut u64_result, 2500000000);
                    power = POWERS_10[final_scale as usize - 10] << 2;
                } else {
                    power = POWERS_10[final_scale as usize];
                }

                // Divide fits in 32 bits
                let rem_hi = div_by_u32(&mut u64_result, power);

                // Round the result. Since the divisor is a power of 10
                // we check to see if the remainder is >= 1/2 divisor
                power >>= 1;
                if rem_hi >= power && (rem_hi > power || (rem_lo | (u64_result[0] & 0x1)) != 0) {
                    u64_result[0] += 1;
                }

                final_scale = MAX_PRECISION;
            }
            return Decimal {
                lo: u64_result[0],
                mid: u64_result[1],
                hi: 0,
                flags: flags(negative, final_scale),
            };
        }

        // We're using some of the high bits, so we essentially perform
        // long form multiplication. We compute the 9 partial products
        // into a 192 bit result array.
        //
        //                     [my-h][my-m][my-l]
        //                  x  [ot-h][ot-m][ot-l]
        // --------------------------------------
        // 1.                        [r-hi][r-lo] my-l * ot-l [0, 0]
        // 2.                  [r-hi][r-lo]       my-l * ot-m [0, 1]
        // 3.                  [r-hi][r-lo]       my-m * ot-l [1, 0]
        // 4.            [r-hi][r-lo]             my-m * ot-m [1, 1]
        // 5.            [r-hi][r-lo]             my-l * ot-h [0, 2]
        // 6.            [r-hi][r-lo]             my-h * ot-l [2, 0]
        // 7.      [r-hi][r-lo]                   my-m * ot-h [1, 2]
        // 8.      [r-hi][r-lo]                   my-h * ot-m [2, 1]
        // 9.[r-hi][r-lo]                         my-h * ot-h [2, 2]
        let my = [self.lo, self.mid, self.hi];
        let ot = [other.lo, other.mid, other.hi];
        let mut product = [0u32, 0u32, 0u32, 0u32, 0u32, 0u32];

        // We can perform a minor short circuit here. If the
        // high portions are both 0 then we can skip portions 5-9
        let to = if my[2] == 0 && ot[2] == 0 {
            2
        } else {
            3
        };

        for my_index in 0..to {
            for ot_index in 0..to {
                let (mut rlo, mut rhi) = mul_part(my[my_index], ot[ot_index], 0);

                // Get the index for the lo portion of the product
                for prod in product.iter_mut().skip(my_index + ot_index) {
                    let (res, overflow) = add_part(rlo, *prod);
                    *prod = res;

                    // If we have something in rhi from before then promote that
                    if rhi > 0 {
                        // If we overflowed in the last add, add that with rhi
                        if overflow > 0 {
                            let (nlo, nhi) = add_part(rhi, overflow);
                            rlo = nlo;
                            rhi = nhi;
                        } else {
                            rlo = rhi;
                            rhi = 0;
                        }
                    } else if overflow > 0 {
                        rlo = overflow;
                        rhi = 0;
                    } else {
                        break;
                    }

                    // If nothing to do next round then break out
                    if rlo == 0 {
                        break;
                    }
                }
            }
        }

        // If our result has used up the high portion of the product
        // then we either have an overflow or an underflow situation
        // Overflow will occur if we can't scale it back, whereas underflow
        // with kick in rounding
        let mut remainder = 0;
        while final_scale > 0 && !is_some_zero(&product, 3, 3) {
            remainder = div_by_u32(&mut product, 10u32);
            final_scale -= 1;
        }

        // Round up the carry if we need to
        if remainder >= 5 {
            for part in product.iter_mut() {
                if remainder == 0 {
                    break;
                }
                let digit: u64 = u64::from(*part) + 1;
                remainder = if digit > 0xFFFF_FFFF { 1 } else { 0 };
                *part = (digit & 0xFFFF_FFFF) as u32;
            }
        }

        // If we're still above max precision then we'll try again to
        // reduce precision - we may be dealing with a limit of "0"
        if final_scale > MAX_PRECISION {
            // We're in an underflow situation
            // The easiest way to remove precision is to divide off the result
            while final_scale > MAX_PRECISION && !is_all_zero(&product) {
                div_by_u32(&mut product, 10);
                final_scale -= 1;
            }
            // If we're still at limit then we can't represent any
            // siginificant decimal digits and will return an integer only
            // Can also be invoked while representing 0.
            if final_scale > MAX_PRECISION {
                final_scale = 0;
            }
        } else if !(product[3] == 0 && product[4] == 0 && product[5] == 0) {
            // We're in an overflow situation - we're within our precision bounds
            // but still have bits in overflow
            panic!("Multiplication overflowed");
        }

        Decimal {
            lo: product[0],
            mid: product[1],
            hi: product[2],
            flags: flags(negative, final_scale),
        }
    }
}

impl MulAssign for Decimal {
    fn mul_assign(&mut self, other: Decimal) {
        let result = self.mul(other);
        self.lo = result.lo;
        self.mid = result.mid;
        self.hi = result.hi;
        self.flags = result.flags;
    }
}

forward_all_binop!(impl Div for Decimal, div);

impl<'a, 'b> Div<&'b Decimal> for &'a Decimal {
    type Output = Decimal;

    #[inline]
    fn div(self, other: &Decimal) -> Decimal {
        if other.is_zero() {
            panic!("Division by zero");
        }
        if self.is_zero() {
            return Decimal::zero();
        }

        let dividend = [self.lo, self.mid, self.hi];
        let divisor = [other.lo, other.mid, other.hi];
        let dividend_scale = self.scale();
        let divisor_scale = other.scale();

        // Division is the most tricky...
        // 1. If it's the first iteration, we use the intended dividend.
        // 2. If the remainder != 0 from the previous iteration, we use it
        //    as the dividend for this iteration
        // 3. We use this to calculate the quotient and remainder
        // 4. We add this quotient to the final result
        // 5. We multiply the integer part of the remainder by 10 and up the
        //    scale to maintain precision.
        // 6. Loop back to step 2 until:
        //       a. the remainder is zero (i.e. 6/3 = 2) OR
        //       b. addition in 4 fails to modify bits in quotient (i.e. due to underflow)
        let mut quotient = [0u32, 0u32, 0u32];
        let mut quotient_scale: i32 = dividend_scale as i32 - divisor_scale as i32;

        // Working is the remainder + the quotient
        // We use an aligned array since we'll be using it alot.
        let mut working = [
            dividend[0],
            dividend[1],
            dividend[2],
            0u32,
            0u32,
            0u32,
            0u32,
            0u32,
        ];
        let mut working_scale = quotient_scale;
        let mut remainder_scale = working_scale;
        let mut underflow;

        loop {
            div_internal(&mut working, &divisor);
            underflow = add_with_scale_internal(
                &mut quotient,
                &mut quotient_scale,
                &mut working,
                &mut working_scale,
            );
            // TODO: We could round here however I don't want it to be lossy

            // Multiply the remainder by 10
            let mut overflow = 0;
            for part in working.iter_mut().skip(4) {
                let (lo, hi) = mul_part(*part, 10, overflow);
                *part = lo;
                overflow = hi;
            }
            // Copy it into the quotient section
            for i in 0..4 {
                working[i] = working[i + 4];
            }

            remainder_scale += 1;
            working_scale = remainder_scale;

            if underflow || is_some_zero(&working, 4, 4) {
                break;
            }
        }

        // If we have a really big number try to adjust the scale to 0
        while quotient_scale < 0 {
            for i in 0..8 {
                if i < 3 {
                    working[i] = quotient[i];
                } else {
                    working[i] = 0;
                }
            }

            // Mul 10
            let mut overflow = 0;
            for part in &mut working {
                let (lo, hi) = mul_part(*part, 10, overflow);
                *part = lo;
                overflow = hi;
            }
            if is_some_zero(&working, 3, 5) {
                quotient_scale += 1;
                quotient[0] = working[0];
                quotient[1] = working[1];
                quotient[2] = working[2];
            } else {
                // Overflow
                panic!("Division overflowed");
            }
        }

        if quotient_scale > 255 {
            quotient[0] = 0;
            quotient[1] = 0;
            quotient[2] = 0;
            quotient_scale = 0;
        }

        let mut quotient_negative = self.is_sign_negative() ^ other.is_sign_negative();

        // Check for underflow
        let mut final_scale: u32 = quotient_scale as u32;
        if final_scale > MAX_PRECISION {
            let mut remainder = 0;

            // Division underflowed. We must remove some significant digits over using
            //  an invalid scale.
            while final_scale > MAX_PRECISION && !is_all_zero(&quotient) {
                remainder = div_by_u32(&mut quotient, 10);
                final_scale -= 1;
            }
            if final_scale > MAX_PRECISION {
                // Result underflowed so set to zero
                final_scale = 0;
                quotient_negative = false;
            } else if remainder >= 5 {
                for part in &mut quotient {
                    if remainder == 0 {
                        break;
                    }
                    let digit: u64 = u64::from(*part) + 1;
                    remainder = if digit > 0xFFFF_FFFF { 1 } else { 0 };
                    *part = (digit & 0xFFFF_FFFF) as u32;
                }
            }
        }

        Decimal {
            lo: quotient[0],
            mid: quotient[1],
            hi: quotient[2],
            flags: flags(quotient_negative, final_scale),
        }
    }
}

impl DivAssign for Decimal {
    fn div_assign(&mut self, other: Decimal) {
        let result = self.div(other);
        self.lo = result.lo;
        self.mid = result.mid;
        self.hi = result.hi;
        self.flags = result.flags;
    }
}

forward_all_binop!(impl Rem for Decimal, rem);

impl<'a, 'b> Rem<&'b Decimal> for &'a Decimal {
    type Output = Decimal;

    #[inline]
    fn rem(self, other: &Decimal) -> Decimal {
        if other.is_zero() {
            panic!("Division by zero");
        }
        if self.is_zero() {
            return Decimal::zero();
        }


        // Working is the remainder + the quotient
        // We use an aligned array since we'll be using it alot.
        let mut working = [self.lo, self.mid, self.hi, 0u32, 0u32, 0u32, 0u32, 0u32];
        let divisor = [other.lo, other.mid, other.hi];
        div_internal(&mut working, &divisor);

        // Remainder has no scale however does have a sign (the same as self)
        Decimal {
            lo: working[4],
            mid: working[5],
            hi: working[6],
            flags: if self.is_sign_negative() {
                SIGN_MASK
            } else {
                0
            },
        }
    }
}

impl RemAssign for Decimal {
    fn rem_assign(&mut self, other: Decimal) {
        let result = self.rem(other);
        self.lo = result.lo;
        self.mid = result.mid;
        self.hi = result.hi;
        self.flags = result.flags;
    }
}

impl PartialEq for Decimal {
    #[inline]
    fn eq(&self, other: &Decimal) -> bool {
        self.cmp(other) == Equal
    }
}

impl Eq for Decimal {}

impl Hash for Decimal {
    fn hash<H: Hasher>(&self, state: &mut H) {
        self.lo.hash(state);
        self.mid.hash(state);
        self.hi.hash(state);
        self.flags.hash(state);
    }
}

impl PartialOrd for Decimal {
    #[inline]
    fn partial_cmp(&self, other: &Decimal) -> Option<Ordering> {
        Some(self.cmp(other))
    }
}

impl Ord for Decimal {
    fn cmp(&self, other: &Decimal) -> Ordering {
        // Quick exit if major differences
        let self_negative = self.is_sign_negative();
        let other_negative = other.is_sign_negative();
        if self_negative && !other_negative {
            return Ordering::Less;
        } else if !self_negative && other_negative {
            return Ordering::Greater;
        }

        // If we have 1.23 and 1.2345 then we have
        //  123 scale 2 and 12345 scale 4
        //  We need to convert the first to
        //  12300 scale 4 so we can compare equally
        let mut self_scale = self.scale();
        let mut other_scale = other.scale();

        if self_scale == other_scale {
            // Fast path for same scale
            if self.hi != other.hi {
                return self.hi.cmp(&other.hi);
            }
            if self.mid != other.mid {
                return self.mid.cmp(&other.mid);
            }
            return self.lo.cmp(&other.lo);
        }

        // Rescale and compare
        let mut self_raw = [self.lo, self.mid, self.hi];
        let mut other_raw = [other.lo, other.mid, other.hi];
        rescale(
            &mut self_raw,
            &mut self_scale,
            &mut other_raw,
            &mut other_scale,
        );
        cmp_internal(&self_raw, &other_raw)
    }
}


#[cfg(test)]
mod test {
    // Tests on private methods.
    //
    // All public tests should go under `tests/`.

    use super::*;

    #[test]
    fn it_can_rescale() {
        fn extract(value: &str) -> ([u32; 3], u32) {
            let v = Decimal::from_str(value).unwrap();
            ([v.lo, v.mid, v.hi], v.scale())
        }

        let tests = &[
            ("1", "1", "1"),
            ("1", "1.0", "1.0"),
            ("1", "1.00000", "1.00000"),
            ("1", "1.0000000000", "1.0000000000"),
            ("1", "1.00000000000000000000", "1.00000000000000000000"),
            ("1.1", "1.1", "1.1"),
            ("1.1", "1.10000", "1.10000"),
            ("1.1", "1.1000000000", "1.1000000000"),
            ("1.1", "1.10000000000000000000", "1.10000000000000000000"),
            (
                "0.6386554621848739495798319328",
                "11.815126050420168067226890757",
                "0.638655462184873949579831933",
            ),
        ];

        for &(left_raw, right_raw, expected_left) in tests {
            // Left = the value to rescale
            // Right = the new scale we're scaling to
            // Expected = the expected left value after rescale
            let (expected_left, _) = extract(expected_left);
            let (expected_right, _) = extract(right_raw);

            let (mut left, mut left_scale) = extract(left_raw);
            let (mut right, mut right_scale) = extract(right_raw);
            rescale(&mut left, &mut left_scale, &mut right, &mut right_scale);
            assert_eq!(left, expected_left);
            assert_eq!(right, expected_right);

            // Also test the transitive case
            let (mut left, mut left_scale) = extract(left_raw);
            let (mut right, mut right_scale) = extract(right_raw);
            rescale(&mut right, &mut right_scale, &mut left, &mut left_scale);
            assert_eq!(left, expected_left);
            assert_eq!(right, expected_right);
        }
    }
}
