//! Strict number parsing: a figure is stored only when its text is exactly
//! what printf prints for it, so that a garbled line is reported, not
//! misread. Floats go through Rust's `str::parse::<f64>` on the printed
//! text, so a stored figure equals the file's (parsing is correctly rounded).

/// An unsigned decimal integer: ASCII digits only (no sign, no spaces).
pub(crate) fn integer(text: &str) -> Option<u64> {
    if text.is_empty() || !text.bytes().all(|b| b.is_ascii_digit()) {
        return None;
    }
    text.parse().ok()
}

/// A non-negative decimal as `%f`/`%.3f` print it: digits, optionally a
/// point and more digits. No sign, exponent, `inf` or `nan`.
pub(crate) fn decimal(text: &str) -> Option<f64> {
    let (whole, fraction) = match text.split_once('.') {
        Some((whole, fraction)) => (whole, Some(fraction)),
        None => (text, None),
    };
    let digits = |s: &str| !s.is_empty() && s.bytes().all(|b| b.is_ascii_digit());
    if !digits(whole) || !fraction.is_none_or(digits) {
        return None;
    }
    text.parse().ok().filter(|v: &f64| v.is_finite())
}

/// A decimal times 10^`places`, computed by moving the point in the text,
/// so that "8.521" MB/s is exactly 8521000 bytes/s (multiplying the parsed
/// float by 1e6 would give 8521000.000000001).
pub(crate) fn decimal_shifted(text: &str, places: usize) -> Option<f64> {
    decimal(text)?;
    let (whole, fraction) = text.split_once('.').unwrap_or((text, ""));
    let moved = fraction.len().min(places);
    let mut shifted = String::with_capacity(text.len() + places + 1);
    shifted.push_str(whole);
    shifted.push_str(&fraction[..moved]);
    shifted.extend(std::iter::repeat_n('0', places - moved));
    if moved < fraction.len() {
        shifted.push('.');
        shifted.push_str(&fraction[moved..]);
    }
    shifted.parse().ok().filter(|v: &f64| v.is_finite())
}

/// An integer with optional thousands separators as pqm4 prints them
/// ("1,536,343"), or plain ("1536343"). The groups must be well formed:
/// "1,53,6343" is not a number.
pub(crate) fn grouped_integer(text: &str) -> Option<u64> {
    let mut groups = text.split(',');
    let first = groups.next()?;
    if !(1..=3).contains(&first.len()) && text.contains(',') {
        return None;
    }
    let mut digits = String::from(first);
    for group in groups {
        if group.len() != 3 {
            return None;
        }
        digits.push_str(group);
    }
    integer(&digits)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn integers_are_digits_only() {
        assert_eq!(integer("2048"), Some(2048));
        assert_eq!(integer("0"), Some(0));
        for bad in ["", "-1", "+1", " 1", "1.0", "1e3", "0x10", "99999999999999999999999"] {
            assert_eq!(integer(bad), None, "{bad:?}");
        }
    }

    #[test]
    fn decimals_are_printf_shaped() {
        assert_eq!(decimal("1.039"), Some(1.039));
        assert_eq!(decimal("409.047"), Some(409.047));
        assert_eq!(decimal("9"), Some(9.0));
        for bad in ["", ".5", "5.", "1.2.3", "-1.0", "1e3", "inf", "NaN", "1,5", " 1.0", "1.0 "] {
            assert_eq!(decimal(bad), None, "{bad:?}");
        }
    }

    #[test]
    fn shifting_the_point_is_exact() {
        assert_eq!(decimal_shifted("8.521", 6), Some(8_521_000.0));
        assert_eq!(decimal_shifted("7.935", 3), Some(7935.0));
        assert_eq!(decimal_shifted("0.017", 3), Some(17.0));
        assert_eq!(decimal_shifted("1.23456", 3), Some(1234.56));
        assert_eq!(decimal_shifted("12", 9), Some(12e9));
        assert_eq!(decimal_shifted("12", 0), Some(12.0));
        assert_eq!(decimal_shifted("x", 3), None);
    }

    #[test]
    fn grouped_integers_need_whole_groups() {
        assert_eq!(grouped_integer("645,295"), Some(645_295));
        assert_eq!(grouped_integer("1,536,343"), Some(1_536_343));
        assert_eq!(grouped_integer("1536343"), Some(1_536_343));
        assert_eq!(grouped_integer("0"), Some(0));
        for bad in ["", ",123", "1,53", "1,5366", "1234,567", "1,,234", "1,234,", "-1,234", "1.234"] {
            assert_eq!(grouped_integer(bad), None, "{bad:?}");
        }
    }
}
