//! Throughput units as wolfCrypt prints them (bytes, KiB, MB, kB, ...) and
//! how many bytes each stands for.

use super::banner::Context;
use super::error::LineError;
use crate::number::{decimal, decimal_shifted};

/// How a printed throughput unit turns into bytes.
pub(super) struct Scale {
    /// 1024 or 1000 to the power `exponent`.
    binary: bool,
    exponent: u32,
    /// For the note, e.g. "MiB = 2^20 bytes".
    pub(super) describe: String,
}

impl Scale {
    pub(super) fn bytes(&self, rate: &str) -> Option<f64> {
        if self.binary {
            // A power of two: the product is exact.
            Some(decimal(rate)? * f64::from(1u32 << (10 * self.exponent)))
        } else {
            decimal_shifted(rate, 3 * self.exponent as usize)
        }
    }
}

pub(super) fn unit_scale(unit: &str, context: &Context) -> Result<Scale, LineError> {
    let binary = |exponent: u32| Scale {
        binary: true,
        exponent,
        describe: format!("{unit} = 2^{} bytes", 10 * exponent),
    };
    let decimal = |exponent: u32| Scale {
        binary: false,
        exponent,
        describe: format!("{unit} = 10^{} bytes", 3 * exponent),
    };
    Ok(match unit {
        "bytes" => Scale { binary: true, exponent: 0, describe: "bytes".into() },
        "KiB" => binary(1),
        "MiB" => binary(2),
        "GiB" => binary(3),
        // Releases before 5.6 printed these for -base10.
        "kB" => decimal(1),
        "mB" => decimal(2),
        "KB" | "MB" | "GB" => {
            let exponent = match unit {
                "KB" => 1,
                "MB" => 2,
                _ => 3,
            };
            let mut scale = if context.kmg_is_decimal { decimal(exponent) } else { binary(exponent) };
            scale.describe = format!("{} ({})", scale.describe, context.kmg_reason);
            scale
        }
        other => return Err(LineError::UnknownUnit { unit: other.to_string() }),
    })
}
