//! Records as defmt messages, whichever way the frames leave the board (RTT
//! or the UART: that is the global logger's business).
//!
//! Each record is one `info!` message that the host renders as the record's
//! line, `@pqb1 <kind> key=value ... *<crc>`, with values as they are (not
//! percent-encoded) and optional ones always present as `None` or
//! `Some(n)`. The CRC is the one of the line the text transport would have
//! written: `pqbench_wire::parse_rendered` rebuilds that line from the
//! rendered text and checks it, so a message's fields must be exactly the
//! text record's, in its order (`fields`, and the wire crate's
//! `measurement_fields` for a result and `measuring_fields` for a beat).

use core::fmt::{self, Write as _};
use core::marker::PhantomData;

use pqbench_suite::Reporter;
use pqbench_suite::calibrate::{self, Calibration};
use pqbench_types::{Algorithm, KeyFormat, Measurement, Measuring, Operation, Status};
#[cfg(not(feature = "text-mirror"))]
use pqbench_wire::Discard;
use pqbench_wire::{RecordWriter, kind, measurement_fields, measuring_fields};

use super::fields;
use crate::boards::{Clocks, Serial, board};
use crate::build_id;
use crate::fixed_text::FixedText;

/// Holds the serial port while records are sent, as the text transport
/// does: on defmt-serial the frames go out on it, and nothing else may
/// write into them.
pub struct Records<'a>(PhantomData<&'a mut Serial>);

impl<'a> Records<'a> {
    pub fn new(_port: &'a mut Serial) -> Self {
        Records(PhantomData)
    }

    /// Free text for a person watching the decoded frames.
    pub fn banner(&mut self) {
        defmt::info!("pqbench firmware on {=str}: waiting for a command", board::ID);
    }

    /// Who this board and build are, and the clocks it runs at: the first
    /// record of every run.
    pub fn hello(&mut self, clocks: &Clocks) {
        let build_id = build_id::hex();
        let mut tick_unit = FixedText::<32>::new();
        let _ = write!(tick_unit, "{}", board::TICK_UNIT);
        let crc = checksum(kind::HELLO, |r| fields::hello(r, build_id.as_str(), clocks));
        defmt::info!(
            "@pqb1 hello fw={=str} board={=str} mcu={=str} core={=str} clock_hz={=u64} clock_source={=str} flash_wait_states={=str} caches={=str} ticks_per_second={=u64} tick_unit={=str} heap_bytes={=usize} build_id={=str} rev={=str} rustc={=str} target={=str} profile={=str} opt={=str} lto={=str} features={=str} crates={=str} *{=u32:08x}",
            fields::FW,
            board::ID,
            board::MCU,
            board::CORE,
            clocks.clock_hz,
            clocks.source.as_str(),
            clocks.flash.wait_states_str(),
            clocks.flash.caches,
            clocks.ticks_per_second,
            tick_unit.as_str(),
            board::HEAP_BYTES,
            build_id.as_str(),
            env!("PQBENCH_REVISION"),
            env!("PQBENCH_RUSTC"),
            env!("PQBENCH_TARGET"),
            env!("PQBENCH_PROFILE"),
            env!("PQBENCH_OPT_LEVEL"),
            env!("PQBENCH_LTO"),
            env!("PQBENCH_FEATURES"),
            env!("PQBENCH_CRATES"),
            crc,
        );
    }

    pub fn calibration(&mut self, calibration: &Calibration) {
        let crc = checksum(kind::CALIBRATION, |r| fields::calibration(r, calibration));
        defmt::info!(
            "@pqb1 calibration stack_buffer={=usize} stack={=?} heap_buffer={=usize} heap={=?} allocs={=?} *{=u32:08x}",
            calibrate::STACK_BUFFER,
            calibration.stack.stack_bytes,
            calibrate::HEAP_BUFFER,
            calibration.heap.heap_bytes,
            calibration.heap.heap_allocs,
            crc,
        );
    }

    pub fn error(&mut self, message: &str) {
        send_error(message);
    }
}

/// An error record from a panic or fault handler, which owns nothing.
pub fn fault(message: &str) {
    send_error(message);
}

fn send_error(message: &str) {
    let crc = checksum(kind::ERROR, |r| fields::error(r, message));
    defmt::info!("@pqb1 error msg={=str} *{=u32:08x}", message, crc);
}

/// Where a record's text line goes while its CRC is computed: nowhere, or,
/// on a `text-mirror` test image, out of the board's second UART, so one
/// measurement can be read through both transports and compared.
#[cfg(not(feature = "text-mirror"))]
type TextSink = Discard;
#[cfg(feature = "text-mirror")]
type TextSink = crate::boards::MirrorSerial;

/// The CRC of the record's text line, computed without a buffer.
fn checksum(kind: &str, fields: impl FnOnce(&mut RecordWriter<'_, TextSink>) -> fmt::Result) -> u32 {
    #[cfg(not(feature = "text-mirror"))]
    let mut sink = Discard;
    #[cfg(feature = "text-mirror")]
    let mut sink = crate::boards::MirrorSerial::steal();
    let sum = RecordWriter::begin(&mut sink, kind).and_then(|mut r| {
        fields(&mut r)?;
        r.finish_with_crc()
    });
    // Discard takes everything, so this cannot fail; should a value's
    // Display ever fail, a sum of 0 gets the record refused and counted by
    // the host rather than silently dropped here.
    sum.unwrap_or(0)
}

impl Reporter for Records<'_> {
    fn begin(&mut self, operations: u32) {
        let crc = checksum(kind::BEGIN, |r| fields::begin(r, operations));
        defmt::info!("@pqb1 begin operations={=u32} *{=u32:08x}", operations, crc);
    }

    fn progress(&mut self, algorithm: Algorithm, operation: Operation, index: u32, total: u32) {
        let crc = checksum(kind::OP, |r| fields::progress(r, algorithm, operation, index, total));
        defmt::info!(
            "@pqb1 op alg={=str} op={=str} n={=u32} of={=u32} *{=u32:08x}",
            algorithm.as_str(),
            operation.as_str(),
            index,
            total,
            crc,
        );
    }

    fn measuring(&mut self, m: &Measuring) {
        let crc = checksum(kind::MEASURING, |r| measuring_fields(r, m));
        defmt::info!(
            "@pqb1 measuring alg={=str} op={=str} min_ms={=u32} beat_ms={=u32} calls={=u32} elapsed={=u64} slowest={=u64} *{=u32:08x}",
            m.algorithm.as_str(),
            m.operation.as_str(),
            m.min_time_ms,
            m.beat_ms,
            m.calls,
            m.elapsed_ticks,
            m.slowest_ticks,
            crc,
        );
    }

    fn result(&mut self, m: &Measurement) {
        let crc = checksum(kind::RESULT, |r| measurement_fields(r, m));
        // Only a measurement that ran has timings, as in the text record.
        if m.status == Status::Ok {
            defmt::info!(
                "@pqb1 result alg={=str} op={=str} status={=str} iters={=u32} total={=u64} min={=u64} median={=u64} max={=u64} heap={=?} allocs={=?} stack={=?} depth={=?} bytes={=?} needs={=?} batch={=?} sd={=?} p10={=?} p90={=?} p99={=?} keys={=str} *{=u32:08x}",
                m.algorithm.as_str(),
                m.operation.as_str(),
                m.status.as_str(),
                m.iterations,
                m.total_ticks,
                m.min_ticks,
                m.median_ticks,
                m.max_ticks,
                m.heap_bytes,
                m.heap_allocs,
                m.stack_bytes,
                m.stack_depth_bytes,
                m.bytes_per_op,
                m.needed_bytes,
                m.batch,
                m.stdev_ticks,
                m.p10_ticks,
                m.p90_ticks,
                m.p99_ticks,
                // Rendered `None` where not said, as an Option is: the host
                // drops the field either way.
                m.key_format.map_or("None", KeyFormat::as_str),
                crc,
            );
        } else if let Some(failure) = m.failure {
            // A failed self-test names which failed (failed results carry
            // no figures, so every optional field is None).
            defmt::info!(
                "@pqb1 result alg={=str} op={=str} status={=str} heap={=?} allocs={=?} stack={=?} bytes={=?} needs={=?} batch={=?} reason={=str} *{=u32:08x}",
                m.algorithm.as_str(),
                m.operation.as_str(),
                m.status.as_str(),
                m.heap_bytes,
                m.heap_allocs,
                m.stack_bytes,
                m.bytes_per_op,
                m.needed_bytes,
                m.batch,
                failure.as_str(),
                crc,
            );
        } else {
            defmt::info!(
                "@pqb1 result alg={=str} op={=str} status={=str} heap={=?} allocs={=?} stack={=?} bytes={=?} needs={=?} batch={=?} *{=u32:08x}",
                m.algorithm.as_str(),
                m.operation.as_str(),
                m.status.as_str(),
                m.heap_bytes,
                m.heap_allocs,
                m.stack_bytes,
                m.bytes_per_op,
                m.needed_bytes,
                m.batch,
                crc,
            );
        }
    }

    fn end(&mut self, results: u32) {
        let crc = checksum(kind::END, |r| fields::end(r, results));
        defmt::info!("@pqb1 end results={=u32} *{=u32:08x}", results, crc);
    }
}
